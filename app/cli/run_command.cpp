// commlab-cli run: runs every run of an experiment and writes summary.json, series.csv, the
// scenario as run and the version into --out. Independent runs execute in parallel (--jobs); each
// run's numbers do not depend on it (every run owns its engine; OpenMP reductions use fixed
// chunks). Ctrl-C or SIGTERM stops cleanly and keeps what finished, marked INCOMPLETE; the folder
// is written aside and renamed into place (results_dir_util.h), so it is never half old, half new.
// Under `mpirun -np K` the simulated runs are spread over the K processes and process 0 writes the
// same files; a run with execution "mpi" is trained by all K processes together, one real rank each
// (docs/training.md, "On Open MPI").
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "cli/command.h"
#include "workload/chakra_trace.h"
#include "workload/trainer_graph.h"
#ifdef COMMLAB_HAVE_CHARTS
#include "chart_files.h"  // Qt-free: the charts are drawn inside commlab_ui
#endif
#include "cli/util/batch_util.h"
#include "cli/util/results_dir_util.h"
#include "cli/util/seed_report_util.h"
#include "exec/mpi_runtime.h"
#include "exec/runs/mpi_batch.h"
#include "scenario/flag_config.h"
#include "scenario/run/results_io.h"
#include "scenario/run/seed_stats.h"
#include "scenario/scenario.h"

namespace commlab::cli {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};  // the signal that stopped the run, 0: none
extern "C" void on_stop_signal(int sig) {
  g_signal.store(sig);
  g_stop.store(true);
}

struct Options {
  std::string scenario;
  std::string out;
  std::vector<std::string> sets;
  int64_t seed = -1;
  int seeds = 0;  // > 0: every run over this many seeds (overrides the scenario's `seeds`)
  int threads = 0;
  int jobs = 0;      // 0: as many as threads allow
  std::string exec;  // "", simulated or mpi: overrides every run's execution
  bool quiet = false;
  bool reproducible = false;
  bool charts = true;      // leave wall-clock times out so files are bit-identical
  std::string emit_trace;  // DIR: each trained run's iteration as Chakra traces
};

class Progress {
 public:
  Progress(int64_t total, bool quiet) : total_(total), quiet_(quiet), tty_(isatty(2)) {}
  // Thread-safe: one more iteration of `run` finished.
  void advance(const std::string& run) {
    std::lock_guard<std::mutex> lock(mutex_);
    update(run, ++done_);
  }
  void update(const std::string& run, int64_t done) {
    if (quiet_) return;
    const double frac = total_ ? static_cast<double>(done) / total_ : 1.0;
    const double elapsed = std::chrono::duration<double>(clock::now() - start_).count();
    const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    if (tty_) {
      const int width = 30, filled = static_cast<int>(frac * width);
      std::fprintf(stderr, "\r[%-*s] %3.0f%%  %s  ETA %4.0fs ", width,
                   std::string(filled, '#').c_str(), 100 * frac, run.c_str(), eta);
    } else if (static_cast<int>(frac * 10) > last_decile_ || done == total_) {
      last_decile_ = static_cast<int>(frac * 10);
      std::fprintf(stderr, "progress: %3.0f%% (%lld/%lld iterations) run %s, ETA %.0f s\n",
                   100 * frac, static_cast<long long>(done), static_cast<long long>(total_),
                   run.c_str(), eta);
    }
  }
  void finish() {
    if (!quiet_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  using clock = std::chrono::steady_clock;
  int64_t total_;
  bool quiet_, tty_;
  int last_decile_ = -1;
  int64_t done_ = 0;
  std::mutex mutex_;
  clock::time_point start_ = clock::now();
};

// Samples kept per run for the charts (a chart line holds at most ~2000 points anyway).
constexpr size_t kChartSamples = 4096;

std::string series_part(const std::string& out, int run) {
  return out + "/.series." + std::to_string(run) + ".csv";
}

// series.csv = the header, then each run's streamed rows in scenario order (atomically renamed).
void join_series(const std::string& out, const std::vector<char>& started) {
  const std::string path = out + "/series.csv", tmp = path + ".tmp";
  check_simulated_write_failure(path);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << series_header();
    for (size_t i = 0; i < started.size(); ++i) {
      if (!started[i]) continue;
      std::ifstream part(series_part(out, static_cast<int>(i)), std::ios::binary);
      if (part.peek() != std::ifstream::traits_type::eof()) f << part.rdbuf();
    }
    if (!f.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
  for (size_t i = 0; i < started.size(); ++i)
    std::filesystem::remove(series_part(out, static_cast<int>(i)));
}

// DIR/charts/*.png and *.svg (CLI.md), drawn by the GUI's chart code; returns a note for the
// final line. A chart failure is reported but keeps the numbers already written.
std::string write_charts(const std::vector<RunResult>& results, const std::string& dir) {
#ifdef COMMLAB_HAVE_CHARTS
  std::vector<ChartRun> runs;
  for (const RunResult& r : results) runs.push_back({r.summary.name, r.samples, r.summary});
  std::string error;
  const std::vector<std::string> files = write_run_charts(runs, dir, &error);
  if (!error.empty()) std::fprintf(stderr, "warning: charts: %s\n", error.c_str());
  return ", " + std::to_string(files.size()) + " chart files in charts/";
#else
  (void)results;
  (void)dir;
  return ", no charts (this build has no Qt: configure with COMMLAB_BUILD_GUI=ON)";
#endif
}

// One process's part of the job: the runs it executes and the runtime when under mpirun.
struct Job {
  std::unique_ptr<exec::MpiRuntime> rt;
  int rank = 0, size = 1;
  bool root() const { return rank == 0; }
};

// Under mpirun every process checks that all got the same command line and scenario; without it,
// an "mpi" run says how to launch it.
Job start_job(const Options& o, const Experiment& exp) {
  Job job;
  bool wants_mpi = false;
  for (const RunConfig& r : exp.runs) wants_mpi |= r.execution == "mpi";
  if (!exec::launched_by_mpirun()) {
    if (wants_mpi) throw InvalidInput(exec::launch_hint("run"));
    return job;
  }
  if (!exec::mpi_built())
    throw InvalidInput(
        "started by mpirun, but this commlab-cli was built without Open MPI: every process would "
        "write the same files (install libopenmpi-dev and configure again)");
  job.rt = std::make_unique<exec::MpiRuntime>();
  job.rank = job.rt->rank();
  job.size = job.rt->size();
  const std::string mismatch = job.rt->check_same_inputs(
      exec::hash_inputs(exec::process_arguments(), std::vector<std::string>{o.scenario}));
  if (!mismatch.empty()) {
    job.rt->report_everywhere(mismatch);
    throw AlreadyReported(kExitInvalid);
  }
  return job;
}

// summary.json of an "mpi" run gains what was measured across the processes and what the
// simulator predicted for the same run (the samples' time plane).
struct MpiMeasure {
  int processes = 0;
  MpiRunStats mean, max;
  uint64_t mismatched = 0;
  double predicted_compute_s = 0, predicted_comm_s = 0, predicted_codec_s = 0;
  double predicted_comm_total_s = 0, predicted_codec_total_s = 0;
};

nlohmann::json mpi_json(const MpiMeasure& m, double sim_time_s, bool reproducible) {
  auto wall = [&](double v) { return reproducible ? nlohmann::json(nullptr) : nlohmann::json(v); };
  auto split = [&](const MpiRunStats& s) {
    return nlohmann::json{{"compute_s", wall(s.compute_s)},
                          {"comm_s", wall(s.comm_s)},
                          {"codec_s", wall(s.codec_s)},
                          {"wall_s", wall(s.wall_s)}};
  };
  return {{"processes", m.processes},
          {"mismatched_buckets", m.mismatched},
          {"measured_mean", split(m.mean)},
          {"measured_max", split(m.max)},
          {"predicted",
           {{"sim_time_s", sim_time_s},
            {"compute_s", m.predicted_compute_s},
            {"comm_exposed_s", m.predicted_comm_s},
            {"codec_exposed_s", m.predicted_codec_s},
            {"comm_total_s", m.predicted_comm_total_s},
            {"codec_total_s", m.predicted_codec_total_s}}}};
}

int run(const Options& o) {
  check_flags({{"--threads", "threads", o.threads}, {"--jobs", "threads", o.jobs}});
  Experiment exp;
  try {
    exp = load_scenario(o.scenario, o.sets);
  } catch (const ScenarioError& e) {
    for (const std::string& p : e.problems) std::cerr << p << "\n";
    return kExitInvalid;
  }
  if (o.seed >= 0)
    for (RunConfig& r : exp.runs) r.seed = static_cast<uint64_t>(o.seed);
  if (!o.exec.empty()) {
    if (o.exec != "mpi" && o.exec != "simulated")
      throw InvalidInput("--exec: expected mpi or simulated, got '" + o.exec + "'");
    for (RunConfig& r : exp.runs) r.execution = o.exec;
    exp.resolved["execution"] = o.exec;
    for (nlohmann::json& r : exp.resolved["runs"]) r.erase("execution");
  }
  if (o.seeds > 0) {
    exp.resolved["seeds"] = o.seeds;
    for (nlohmann::json& r : exp.resolved["runs"]) r.erase("seeds");
  }
  // Every run becomes one replica per seed (seed, seed+1, ...); each replica is an independent
  // run with its own engine, so the numbers do not depend on --threads or --jobs.
  std::vector<size_t> first_replica;
  exp.runs = expand_seeds(exp.runs, o.seeds, &first_replica);
  Job job = start_job(o, exp);
  const bool quiet = o.quiet || !job.root();
  const int threads = o.threads > 0 ? o.threads : std::max(1, omp_get_max_threads());
  const int runs = static_cast<int>(exp.runs.size());
  // Simulated runs are spread over the processes (the k-th simulated run goes to process
  // k % size); each "mpi" run is trained by all processes together, one rank each.
  std::vector<int> mine, together;
  for (int i = 0, k = 0; i < runs; ++i) {
    if (exp.runs[i].execution == "mpi")
      together.push_back(i);
    else if (exec::owns_item(k++, job.rank, job.size))
      mine.push_back(i);
  }
  const int jobs =
      std::clamp(o.jobs > 0 ? o.jobs : threads, 1, std::max(static_cast<int>(mine.size()), 1));
  const int threads_per_job = std::max(1, threads / jobs);
  // Only process 0 writes, into DIR.incomplete renamed to DIR at the end (results_dir_util.h);
  // the others keep their series rows in a scratch folder.
  std::optional<ResultsDir> folder;
  if (job.root()) folder.emplace(o.out.empty() ? "results/" + exp.name : o.out, "run");
  const std::string out = job.root() ? folder->path() : "";
  const std::string parts_dir =
      job.root()
          ? out
          : (std::filesystem::temp_directory_path() / ("commlab-run-" + std::to_string(getpid())))
                .string();
  std::filesystem::create_directories(parts_dir);

  int64_t total = 0;
  for (int i : mine) total += exp.runs[i].training.iterations;
  for (int i : together) total += exp.runs[i].training.iterations;
  Progress progress(total, quiet);
  g_stop.store(false);
  g_signal.store(0);
  // SIGINT and SIGTERM stop at the next iteration and commit what finished, marked INCOMPLETE.
  auto previous = std::signal(SIGINT, on_stop_signal);
  auto previous_term = std::signal(SIGTERM, on_stop_signal);
  // Workers take runs in scenario order; results keep that order whatever finishes first.
  std::vector<RunResult> slots(runs);
  std::vector<char> started(runs, 0);
  std::vector<std::exception_ptr> errors(runs);
  std::vector<MpiMeasure> measures(runs);
  std::atomic<size_t> next{0};
  auto execute = [&](int i, const exec::MpiRuntime* rt) {
    const RunConfig& config = exp.runs[i];
    started[i] = 1;
    try {
      // Every sample goes to this run's part of series.csv as it comes; the session keeps a
      // bounded, thinned copy for the charts, so memory does not grow with the iterations.
      const bool writes = rt == nullptr || job.root();
      std::ofstream rows;
      if (writes) rows.open(series_part(parts_dir, i), std::ios::binary | std::ios::trunc);
      RunSession session(config, rt);
      session.set_sample_budget(kChartSamples);
      MpiMeasure& m = measures[i];
      session.run(
          [&](const Sample& s) {
            m.predicted_compute_s += s.compute_time_s;
            m.predicted_comm_s += s.comm_time_s;
            m.predicted_codec_s += s.codec_time_s;
            m.predicted_comm_total_s += s.comm_total_s;
            m.predicted_codec_total_s += s.codec_total_s;
            if (!writes) return progress.advance(config.name);
            if (o.reproducible) {
              Sample copy = s;
              copy.wall_time_s = Sample::kNaN;
              rows << series_row(config.name, copy);
            } else {
              rows << series_row(config.name, s);
            }
            progress.advance(config.name);
          },
          rt ? nullptr : &g_stop);  // all ranks of an mpi run must stop at the same iteration
      if (writes && !rows.flush())
        throw std::runtime_error("cannot write " + series_part(parts_dir, i));
      if (writes && !o.emit_trace.empty() && session.trainer()) {
        // The iteration as the trainer ran it (workload/trainer_graph.h), in the wire format's
        // bytes per gradient element; DIR/RUN.RANK.et with the run's name made file-safe.
        std::string file = config.name;
        for (char& ch : file)
          if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
        const int wire = config.collective.wire == "fp32" ? 4 : 2;
        workload::write_chakra_trace(workload::trainer_graph(*session.trainer(), wire, config.name),
                                     o.emit_trace, file);
      }
      if (rt) {  // every rank: the measured split, mean and max over the processes
        const MpiRunStats mystats = session.mpi_stats();
        m.processes = rt->size();
        m.mean.compute_s = rt->sum(mystats.compute_s) / rt->size();
        m.mean.comm_s = rt->sum(mystats.comm_s) / rt->size();
        m.mean.codec_s = rt->sum(mystats.codec_s) / rt->size();
        m.mean.wall_s = rt->sum(mystats.wall_s) / rt->size();
        m.max.compute_s = rt->max(mystats.compute_s);
        m.max.comm_s = rt->max(mystats.comm_s);
        m.max.codec_s = rt->max(mystats.codec_s);
        m.max.wall_s = rt->max(mystats.wall_s);
        m.mismatched = mystats.mismatched_buckets;
      }
      slots[i] = {session.summary(), session.samples(), session.done()};
    } catch (...) {  // rethrown below, in scenario order, so the exit code keeps its kind
      errors[i] = std::current_exception();
      g_stop.store(true);
    }
  };
  auto worker = [&] {
    omp_set_num_threads(threads_per_job);
    for (size_t k = next++; k < mine.size() && !g_stop.load(); k = next++)
      execute(mine[k], nullptr);
  };
  std::vector<std::thread> pool;
  for (int j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  omp_set_num_threads(threads);
  // The "mpi" runs: every process is one rank, on its main thread (MPI is called from it only).
  for (int i : together) {
    if (errors[i] || g_stop.load()) break;
    execute(i, job.rt.get());
  }
  std::signal(SIGINT, previous);
  std::signal(SIGTERM, previous_term);
  progress.finish();

  if (job.size > 1) {  // process 0 gathers the other processes' simulated runs
    std::vector<BatchItem> items;
    if (!job.root()) {
      for (int i : mine) {
        BatchItem it;
        it.index = i;
        it.status = errors[i] ? 2 : started[i] ? 1 : 0;
        if (errors[i]) {
          try {
            std::rethrow_exception(errors[i]);
          } catch (const std::invalid_argument& e) {
            it.invalid = true;
            it.error = e.what();
          } catch (const std::exception& e) {
            it.error = e.what();
          }
        } else if (started[i]) {
          it.result = std::move(slots[i]);
          std::ifstream part(series_part(parts_dir, i), std::ios::binary);
          it.series_rows.assign(std::istreambuf_iterator<char>(part), {});
        }
        items.push_back(std::move(it));
      }
      std::filesystem::remove_all(parts_dir);
    }
    job.rt->set_timeout_s(exec::kBatchGatherTimeout_s);
    const std::vector<std::string> all = job.rt->gather_strings(encode_batch(items, g_stop.load()));
    if (!job.root()) return kExitOk;  // process 0 reports and writes
    size_t gathered = 0;
    for (size_t p = 1; p < all.size(); ++p) {
      bool stopped = false;
      for (BatchItem& it : decode_batch(all[p], &stopped)) {
        const int i = it.index;
        if (stopped) g_stop.store(true);
        if (it.status == 0) continue;
        started[i] = 1;
        if (it.status == 2) {
          errors[i] = it.invalid ? std::make_exception_ptr(std::invalid_argument(it.error))
                                 : std::make_exception_ptr(std::runtime_error(it.error));
          continue;
        }
        slots[i] = std::move(it.result);
        std::ofstream(series_part(out, i), std::ios::binary | std::ios::trunc) << it.series_rows;
        ++gathered;
      }
    }
    if (!quiet)
      std::fprintf(stderr, "%d runs on %d processes: %zu here, %zu gathered\n",
                   runs - static_cast<int>(together.size()), job.size, mine.size(), gathered);
  } else if (!job.root()) {
    return kExitOk;
  }

  for (int i = 0; i < runs; ++i)
    if (errors[i]) std::rethrow_exception(errors[i]);  // ~ResultsDir drops DIR.incomplete
  if (o.reproducible)                                  // wall-clock time varies by host
    for (int i = 0; i < runs; ++i) slots[i].summary.wall_time_s = Sample::kNaN;
  std::vector<size_t> result_index;  // each result's first replica
  std::vector<RunResult> results =
      group_replicas(std::move(slots), started, first_replica, &result_index);

  std::string summary = summary_json(exp.name, results);
  if (!together.empty()) {
    nlohmann::json doc = nlohmann::json::parse(summary);
    for (size_t k = 0; k < results.size(); ++k) {
      const int i = result_index[k];
      if (exp.runs[i].execution == "mpi")
        doc["runs"][k]["mpi"] =
            mpi_json(measures[i], results[k].summary.sim_time_s, o.reproducible);
    }
    summary = doc.dump(2) + "\n";
  }
  write_file(out + "/summary.json", summary);
  join_series(out, started);
  write_file(out + "/scenario.json", exp.resolved.dump(2) + "\n");
  write_file(out + "/VERSION", std::string("commlab ") + kCommLabVersion + "\n");
  std::string charts_note = ", no charts (--no-charts)";
  if (o.charts) charts_note = write_charts(results, out + "/charts");
  int complete = 0;
  for (const RunResult& r : results) complete += r.complete ? 1 : 0;
  const int experiment_runs = static_cast<int>(first_replica.size()) - 1;
  const bool stopped = g_stop.load();
  const int sig = g_signal.load();
  folder->commit(stopped ? "stopped by " + std::string(sig == SIGTERM ? "SIGTERM" : "SIGINT") +
                               ": " + std::to_string(complete) + " of " +
                               std::to_string(experiment_runs) + " runs complete"
                         : "");
  if (!quiet) {
    for (size_t k = 0; k < results.size(); ++k) {
      const RunResult& r = results[k];
      const RunSummary& s = r.summary;
      if (std::isnan(s.final_train_loss) && s.iterations > 0)  // a catalog run: time plane only
        std::fprintf(stderr,
                     "%-28s iteration %.4g s  sim %.4f s  ratio %.3f  (time plane only)%s\n",
                     s.name.c_str(), s.sim_time_s / s.iterations, s.sim_time_s, s.mean_ratio,
                     r.complete ? "" : "  (stopped)");
      else
        std::fprintf(stderr, "%-28s acc %.4f  loss %.4f  sim %.4f s  wire %.3g B  ratio %.3f%s\n",
                     s.name.c_str(), s.final_test_accuracy, s.final_train_loss, s.sim_time_s,
                     static_cast<double>(s.bytes_on_wire), s.mean_ratio,
                     r.complete ? "" : "  (stopped)");
      print_seed_stats(r, results[baseline_run(results)],
                       exp.runs[result_index[k]].training.target_accuracy);
      const MpiMeasure& m = measures[result_index[k]];
      if (m.processes > 0)
        std::fprintf(stderr,
                     "%-28s on %d processes: measured compute %.3f s, comm %.3f s, codec %.3f s "
                     "(mean per rank); %llu buckets differ from the simulation\n",
                     "", m.processes, m.mean.compute_s, m.mean.comm_s, m.mean.codec_s,
                     static_cast<unsigned long long>(m.mismatched));
    }
    std::fprintf(stderr, "results in %s (summary.json, series.csv, scenario.json%s%s)\n",
                 folder->final_path().c_str(), charts_note.c_str(),
                 stopped ? "; stopped: see INCOMPLETE" : "");
  }
  if (stopped) return kExitFailed;
  for (const MpiMeasure& m : measures)
    if (m.mismatched > 0) {
      std::fprintf(stderr,
                   "commlab-cli: the real collective received other bytes than the "
                   "simulated data plane (mismatched_buckets in summary.json)\n");
      return kExitFailed;
    }
  return kExitOk;
}

const RegisterCommand reg{Command{
    "run", "run an experiment (all runs of a scenario) and write its results", [](CLI::App& app) {
      auto o = std::make_shared<Options>();
      app.add_option("scenario", o->scenario, "scenario file (JSON)")->required();
      app.add_option("--out", o->out, "output directory (default results/NAME)");
      app.add_option("--emit-trace", o->emit_trace,
                     "also write each trained run's iteration as Chakra traces DIR/RUN.RANK.et");
      app.add_option("--set", o->sets, "override a field: PATH=VALUE (repeatable)");
      app.add_option("--seed", o->seed, "seed for every run (overrides the scenario)");
      app.add_option("--seeds", o->seeds,
                     "repeat every run over N seeds: seed, seed+1, ..., seed+N-1 (overrides the "
                     "scenario's seeds); summary.json gives mean and 95% interval")
          ->check(CLI::Range(1, 100));
      app.add_option("--threads", o->threads,
                     "worker threads, at most 256 (0: one per core; results never depend on it)");
      app.add_option("--jobs", o->jobs,
                     "runs executed at once, at most 256 (default: --threads; results never "
                     "depend on it)");
      app.add_option("--exec", o->exec,
                     "simulated or mpi: how every run executes (overrides the scenario's "
                     "execution); mpi needs mpirun -np <training.ranks>");
      app.add_flag("--quiet", o->quiet, "no progress output");
      app.add_flag("!--no-charts", o->charts, "skip DIR/charts/*.png and *.svg");
      app.add_flag("--reproducible", o->reproducible,
                   "write wall_time_s as null (empty in series.csv): bit-identical files for the "
                   "same scenario and seed, whatever --threads and --jobs");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace commlab::cli
