// commlab-cli run: runs every run of an experiment and writes summary.json, series.csv, the
// scenario as run and the version into --out. Independent runs execute in parallel (--jobs); each
// run's numbers do not depend on it (every run owns its engine; OpenMP reductions use fixed
// chunks). Ctrl-C or SIGTERM stops cleanly and keeps what finished, marked INCOMPLETE; the folder
// is written aside and renamed into place (results_dir_util.h), so it is never half old, half new.
// Under `mpirun -np K` the simulated runs are spread over the K processes and process 0 writes the
// same files; a run with execution "mpi" is trained by all K processes together, one real rank each
// (docs/training.md, "On Open MPI"). The runs themselves are executed by the core experiment
// runner (scenario/run/experiment_runner.h); this file is the command around it.
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "cli/command.h"
#include "cli/util/experiment_files_util.h"
#include "cli/util/flag_parse_util.h"
#include "cli/util/results_dir_util.h"
#include "cli/util/seed_report_util.h"
#include "exec/mpi_runtime.h"
#include "scenario/flag_config.h"
#include "scenario/run/equivalent_runs.h"
#include "scenario/run/experiment_runner.h"
#include "scenario/run/seed_stats.h"
#include "scenario/scenario.h"
#include "workload/chakra_trace.h"
#include "workload/trainer_graph.h"

namespace commlab::cli {
namespace run_command {
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
  std::optional<int64_t> seed;  // --seed: absent means the scenario's
  int seeds = 0;  // > 0: every run over this many seeds (overrides the scenario's `seeds`)
  int threads = 0;
  int jobs = 0;      // 0: as many as threads allow
  std::string exec;  // "", simulated or mpi: overrides every run's execution
  bool quiet = false;
  bool reproducible = false;
  bool charts = true;      // leave wall-clock times out so files are bit-identical
  bool tune_lr = false;    // every training run at its best of lr x {1/2, 1, 2}
  int fork_at = 0;         // > 0: every run but the baseline forks from it at this iteration
  std::string emit_trace;  // DIR: each trained run's iteration as Chakra traces
};

class Progress {
 public:
  explicit Progress(bool quiet) : quiet_(quiet), tty_(isatty(2)) {}
  // A new phase (learning-rate tuning, then the runs): the bar starts again.
  void set_total(int64_t total) {
    std::lock_guard<std::mutex> lock(mutex_);
    total_ = total;
    done_ = 0;
    last_decile_ = -1;
    start_ = clock::now();
  }
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
  int64_t total_ = 0;
  bool quiet_, tty_;
  int last_decile_ = -1;
  int64_t done_ = 0;
  std::mutex mutex_;
  clock::time_point start_ = clock::now();
};

// One process's part of the job: the runtime when under mpirun.
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
  for (const RunConfig& r : exp.runs) wants_mpi |= r.execution == ExecutionMode::kMpi;
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

// The iteration as the trainer ran it (workload/trainer_graph.h), in the wire format's bytes per
// gradient element; DIR/RUN.RANK.et with the run's name made file-safe.
void emit_trace(const RunSession& session, const std::string& dir) {
  if (!session.trainer()) return;
  const RunConfig& config = session.config();
  std::string file = config.name;
  for (char& ch : file)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
  const int wire = static_cast<int>(dtype_size(config.collective.wire));
  workload::write_chakra_trace(workload::trainer_graph(*session.trainer(), wire, config.name), dir,
                               file);
}

// Runs the experiment with SIGINT and SIGTERM stopping it at the next iteration (what finished is
// committed, marked INCOMPLETE), the progress on stderr and the series parts streamed to `out`.
ExperimentOutcome execute(const Options& o, const Experiment& exp, const Job& job,
                          const std::string& out, bool quiet) {
  RunnerOptions ro;
  ro.seeds = o.seeds;
  ro.threads = o.threads;
  ro.jobs = o.jobs;
  ro.reproducible = o.reproducible;
  ro.cancel = &g_stop;
  ro.mpi = job.rt.get();
  ro.series_dir = out;
  ro.tune_lr = o.tune_lr;
  ro.fork_at = o.fork_at;
  Progress progress(quiet);
  RunnerCallbacks cb;
  cb.on_start = [&](int64_t total) { progress.set_total(total); };
  cb.on_sample = [&](int, const std::string& run, const Sample&) { progress.advance(run); };
  cb.on_tuning_start = cb.on_start;
  cb.on_tuning_sample = [&](const std::string& run) { progress.advance("tuning " + run); };
  if (!o.emit_trace.empty())
    cb.on_replica_done = [&](int, const RunSession& s) { emit_trace(s, o.emit_trace); };
  g_stop.store(false);
  g_signal.store(0);
  auto previous = std::signal(SIGINT, on_stop_signal);
  auto previous_term = std::signal(SIGTERM, on_stop_signal);
  struct Restore {  // also when the runner throws
    decltype(previous) sigint, sigterm;
    ~Restore() {
      std::signal(SIGINT, sigint);
      std::signal(SIGTERM, sigterm);
    }
  } restore{previous, previous_term};
  ExperimentOutcome outcome = run_experiment(exp, ro, cb);
  progress.finish();
  return outcome;
}

// stderr: one line per run (and its seed statistics, its measured MPI split), then the folder.
void print_results(const ExperimentOutcome& out, const std::string& path,
                   const std::string& charts_note) {
  const ExperimentSummary& summary = out.summary;
  std::map<size_t, std::string> equal_to;  // "arm X equals arm Y on seed S (identical series)"
  for (const EquivalentRun& same : summary.equivalent_runs)
    equal_to[same.run] = equivalence_text(summary, same);
  for (size_t k = 0; k < summary.runs.size(); ++k) {
    const RunStats& r = summary.runs[k];
    const RunSummary& s = r.summary;
    if (std::isnan(s.final_train_loss) && s.iterations > 0)  // a catalog run: time plane only
      std::fprintf(stderr, "%-28s iteration %.4g s  sim %.4f s  ratio %.3f  (time plane only)%s\n",
                   s.name.c_str(), s.sim_time_s / s.iterations, s.sim_time_s, s.mean_ratio,
                   r.complete ? "" : "  (stopped)");
    else
      std::fprintf(stderr, "%-28s acc %.4f  loss %.4f  sim %.4f s%s  wire %.3g B  ratio %.3f%s\n",
                   s.name.c_str(), s.final_test_accuracy, s.final_train_loss, s.sim_time_s,
                   s.timed_as.empty() ? "" : (" (timed as " + s.timed_as + ")").c_str(),
                   static_cast<double>(s.bytes_on_wire), s.mean_ratio,
                   r.complete ? "" : "  (stopped)");
    if (const auto same = equal_to.find(k); same != equal_to.end()) {
      // The same computation as an earlier run: one experiment, its statistics printed there.
      std::fprintf(stderr, "%-28s %s\n", "", same->second.c_str());
      continue;
    }
    print_seed_stats(r);
    // Holm's adjustment across the experiment's arms (summary.json's p_holm).
    const std::optional<BaselineComparison>& vs = r.tta.vs_baseline;
    if (vs && vs->holm && std::isfinite(vs->holm->p_holm))
      std::fprintf(stderr, "%-28s p = %.3g, Holm-adjusted %.3g over %d arms\n", "",
                   vs->speedup.p_value, vs->holm->p_holm, static_cast<int>(vs->holm->family));
    const MpiMeasure& m = out.measures[out.result_replica[k]];  // measured, also when reproducible
    if (m.processes > 0)
      std::fprintf(stderr,
                   "%-28s on %d processes: measured compute %.3f s, comm %.3f s, codec %.3f s "
                   "(mean per rank); %llu buckets differ from the simulation\n",
                   "", m.processes, m.mean.compute_s, m.mean.comm_s, m.mean.codec_s,
                   static_cast<unsigned long long>(m.mismatched));
  }
  for (const RunTuning& t : summary.lr_tuning.value_or(std::vector<RunTuning>{}))
    std::fprintf(stderr,
                 "%-28s lr %s chosen%s (median time to %.3g over seeds %llu-%llu on the %s: "
                 "%s)\n",
                 t.run.c_str(), format_number("%.4g", t.chosen_lr).c_str(),
                 t.chosen_lr == t.untuned_lr ? ", the untuned value" : "", t.target,
                 static_cast<unsigned long long>(t.first_seed),
                 static_cast<unsigned long long>(t.first_seed + t.seeds - 1),
                 tuning_evaluated_on(t).c_str(), lr_grid_text(t).c_str());
  std::fprintf(stderr, "results in %s (summary.json, series.csv, scenario.json%s%s)\n",
               path.c_str(), charts_note.c_str(), out.stopped ? "; stopped: see INCOMPLETE" : "");
}

int run(const Options& o) {
  check_flags({{"--threads", "threads", o.threads}, {"--jobs", "threads", o.jobs}});
  Experiment exp;
  try {
    exp = load_scenario(o.scenario, o.sets);
  } catch (const ScenarioError& e) {
    for (const std::string& line : e.lines()) std::cerr << line << "\n";
    return kExitInvalid;
  }
  if (o.seed && (*o.seed < 0 || *o.seed > kMaxSeed))
    throw InvalidInput("--seed " + std::to_string(*o.seed) + ": expected an integer in [0, " +
                       std::to_string(kMaxSeed) + "] (the scenario's seed range)");
  apply_run_overrides(exp, o.seed.value_or(-1), o.seeds, o.exec);
  if (o.tune_lr)
    for (const RunConfig& r : exp.runs)
      if (r.execution != ExecutionMode::kSimulated)
        throw InvalidInput(
            "--tune-lr: learning-rate tuning runs in the simulated execution only; "
            "run '" +
            r.name + "' has execution " + enum_name(r.execution));
  Job job = start_job(o, exp);
  const bool quiet = o.quiet || !job.root();
  // Only process 0 writes, into DIR.incomplete renamed to DIR at the end (results_dir_util.h).
  std::optional<ResultsDir> folder;
  const std::string out_dir = o.out.empty() ? "results/" + exp.name : o.out;
  if (job.root()) check_preregistered_seeds(out_dir, exp, o.seeds);  // before anything is replaced
  if (job.root()) folder.emplace(out_dir, "run");
  const ExperimentOutcome out = execute(o, exp, job, job.root() ? folder->path() : "", quiet);
  if (!out.reports) return kExitOk;  // process 0 reports and writes
  if (job.size > 1 && !quiet)
    std::fprintf(stderr, "%zu runs on %d processes: %zu here, %zu gathered\n", out.simulated,
                 job.size, out.here, out.gathered);
  if (out.error) std::rethrow_exception(out.error);  // ~ResultsDir drops DIR.incomplete
  const std::string charts_note = write_experiment_files(folder->path(), exp, out, o.charts);
  const int experiment_runs = static_cast<int>(out.first_replica.size()) - 1;
  const int sig = g_signal.load();
  folder->commit(out.stopped ? "stopped by " + std::string(sig == SIGTERM ? "SIGTERM" : "SIGINT") +
                                   ": " + std::to_string(out.complete_runs()) + " of " +
                                   std::to_string(experiment_runs) + " runs complete"
                             : "");
  if (!quiet) print_results(out, folder->final_path(), charts_note);
  if (out.stopped) return kExitFailed;
  if (out.mismatched()) {
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
          ->check(in_range(1, 100));
      app.add_option("--threads", o->threads,
                     "worker threads, at most 256 (0: one per core; results never depend on it)");
      app.add_option("--jobs", o->jobs,
                     "runs executed at once, at most 256 (default: --threads; results never "
                     "depend on it)");
      app.add_option("--exec", o->exec,
                     "simulated (or sim) or mpi: how every run executes (overrides the scenario's "
                     "execution); mpi needs mpirun -np <training.ranks>");
      app.add_flag("--tune-lr", o->tune_lr,
                   "first train every training run at lr x {1/2, 1, 2} over training.tune_seeds "
                   "seeds from seed+1000 and report it at the learning rate that reaches "
                   "target_accuracy first (runs with training.lr_grid use their grid either way; "
                   "summary.json's lr_tuning)");
      app.add_option("--fork-at", o->fork_at,
                     "every training run but the baseline continues the baseline's training "
                     "(same seed) from iteration K with its own techniques, collective, network "
                     "and learning-rate schedule, as the GUI's live fork does; summary.json's "
                     "forked_from")
          ->check(in_range(1, 10'000'000));
      app.add_flag("--quiet", o->quiet, "no progress output");
      app.add_flag("!--no-charts", o->charts, "skip DIR/charts/*.png and *.svg");
      app.add_flag("--reproducible", o->reproducible,
                   "write wall_time_s as null (empty in series.csv): bit-identical files for the "
                   "same scenario and seed, whatever --threads and --jobs");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace run_command
}  // namespace commlab::cli
