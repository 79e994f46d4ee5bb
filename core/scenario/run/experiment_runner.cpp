#include "scenario/run/experiment_runner.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "exec/mpi_runtime.h"
#include "exec/runs/mpi_batch.h"
#include "io/json_input.h"
#include "io/status.h"
#include "scenario/config_problem.h"
#include "scenario/run/fork.h"
#include "scenario/run/lr_tuning.h"
#include "scenario/run/run_batch.h"
#include "scenario/run/seed_stats.h"

namespace commlab {

int ExperimentOutcome::complete_runs() const {
  int n = 0;
  for (const RunResult& r : results) n += r.complete ? 1 : 0;
  return n;
}

bool ExperimentOutcome::mismatched() const {
  for (const MpiMeasure& m : measures)
    if (m.mismatched > 0) return true;
  return false;
}

std::string series_part(const std::string& dir, int replica) {
  return dir + "/.series." + std::to_string(replica) + ".csv";
}

void join_series(const std::string& dir, const std::vector<char>& started) {
  const std::string path = dir + "/series.csv", tmp = path + ".tmp";
  check_simulated_write_failure(path);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << series_header();
    for (size_t i = 0; i < started.size(); ++i) {
      if (!started[i]) continue;
      std::ifstream part(series_part(dir, static_cast<int>(i)), std::ios::binary);
      if (part.peek() != std::ifstream::traits_type::eof()) f << part.rdbuf();
    }
    if (!f.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
  for (size_t i = 0; i < started.size(); ++i)
    std::filesystem::remove(series_part(dir, static_cast<int>(i)));
}

namespace {

// One experiment on this process: the replicas it executes, their results and errors.
class Execution {
 public:
  Execution(const Experiment& exp, const RunnerOptions& o, const RunnerCallbacks& cb)
      : o_(o), cb_(cb) {
    out_.replicas = expand_seeds(exp.runs, o.seeds, &out_.first_replica);
    plan_forks(exp);
    if (o.mpi) rank_ = o.mpi->rank(), size_ = o.mpi->size();
    out_.processes = size_;
    const int n = static_cast<int>(out_.replicas.size());
    slots_.resize(n);
    out_.started.assign(n, 0);
    errors_.resize(n);
    out_.measures.resize(n);
    // Simulated replicas are spread over the processes (the k-th goes to process k % size);
    // each "mpi" replica is trained by all processes together, one rank each.
    for (int i = 0, k = 0; i < n; ++i) {
      if (out_.replicas[i].execution == ExecutionMode::kMpi)
        together_.push_back(i);
      else if (exec::owns_item(k++, rank_, size_))
        mine_.push_back(i);
    }
    out_.here = mine_.size();
    out_.simulated = static_cast<size_t>(n) - together_.size();
    // Only process 0 writes series parts into series_dir; the others keep theirs aside for the
    // gather.
    parts_dir_ =
        root()
            ? o.series_dir
            : (std::filesystem::temp_directory_path() / ("commlab-run-" + std::to_string(getpid())))
                  .string();
    if (!parts_dir_.empty()) std::filesystem::create_directories(parts_dir_);
  }

  ExperimentOutcome run(const std::string& name) {
    if (cb_.on_start) {
      int64_t total = 0;
      for (int i : mine_) total += out_.replicas[i].training.iterations;
      for (int i : together_) total += out_.replicas[i].training.iterations;
      cb_.on_start(total);
    }
    run_pool();
    // "mpi" replicas: every process is one rank, on its main thread (MPI is called from it only).
    for (int i : together_) {
      if (errors_[i] || stop_requested()) break;
      execute(i, o_.mpi);
    }
    if (size_ > 1) gather();
    if (!root()) {
      out_.reports = false;
      return std::move(out_);
    }
    finish(name);
    return std::move(out_);
  }

 private:
  bool root() const { return rank_ == 0; }

  // fork_at: each replica's parent replica (-1: none), checked before anything runs.
  void plan_forks(const Experiment& exp) {
    parent_.assign(out_.replicas.size(), -1);
    if (o_.fork_at <= 0) return;
    const size_t runs = out_.first_replica.size() - 1;
    size_t base = 0;
    for (size_t r = 0; r < runs; ++r)
      if (exp.runs[r].name == "baseline") base = r;
    fork_base_ = exp.runs[base].name;
    const RunConfig& baseline = out_.replicas[out_.first_replica[base]];
    if (o_.fork_at >= baseline.training.iterations)
      throw bad_input("--fork-at " + std::to_string(o_.fork_at) + ": the baseline '" + fork_base_ +
                      "' runs " + std::to_string(baseline.training.iterations) +
                      " iterations; a fork point must come before its last");
    for (size_t r = 0; r < runs; ++r) {
      if (r == base) continue;
      for (size_t i = out_.first_replica[r], k = 0; i < out_.first_replica[r + 1]; ++i, ++k) {
        const size_t p = out_.first_replica[base] + k;
        if (p >= out_.first_replica[base + 1])
          throw bad_input("--fork-at: run '" + out_.replicas[i].name + "' has more " +
                          "seeds than the baseline it forks from");
        const std::string problem = fork_problem(out_.replicas[p], out_.replicas[i]);
        if (!problem.empty()) throw bad_input("--fork-at: " + problem);
        parent_[i] = static_cast<int>(p);
      }
    }
  }
  bool stop_requested() {
    if (o_.cancel && o_.cancel->load()) halt_.store(true);
    return halt_.load();
  }

  void run_pool() {
    const int threads = o_.threads > 0 ? o_.threads : std::max(1, omp_get_max_threads());
    const int jobs =
        std::clamp(o_.jobs > 0 ? o_.jobs : threads, 1, std::max(static_cast<int>(mine_.size()), 1));
    const int per_job = std::max(1, threads / jobs);
    auto worker = [&] {
      omp_set_num_threads(per_job);
      for (size_t k = next_++; k < mine_.size() && !stop_requested(); k = next_++)
        execute(mine_[k], nullptr);
    };
    std::vector<std::thread> pool;
    for (int j = 1; j < jobs; ++j) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
    omp_set_num_threads(threads);
  }

  void execute(int i, const exec::MpiRuntime* rt) {
    const RunConfig& config = out_.replicas[i];
    out_.started[i] = 1;
    try {
      // Every sample goes to this replica's series part as it comes; the session keeps a
      // bounded, thinned copy for the charts, so memory does not grow with the iterations.
      const bool reports = rt == nullptr || root();
      const bool writes = reports && !parts_dir_.empty();
      std::ofstream rows;
      if (writes) rows.open(series_part(parts_dir_, i), std::ios::binary | std::ios::trunc);
      MpiMeasure& m = out_.measures[i];
      const SampleObserver observe = [&](const Sample& s) {
        m.predicted_compute_s += s.compute_time_s;
        m.predicted_comm_s += s.comm_time_s;
        m.predicted_codec_s += s.codec_time_s;
        m.predicted_comm_total_s += s.comm_total_s;
        m.predicted_codec_total_s += s.codec_total_s;
        if (writes) write_row(rows, config.name, s);
        if (cb_.on_sample) cb_.on_sample(i, config.name, s);
        stop_requested();  // copies the caller's cancel into halt_, which the session polls
      };
      std::unique_ptr<RunSession> session;
      if (parent_[i] >= 0) {  // the baseline's first fork_at iterations, in this run's series
        RunSession parent(out_.replicas[parent_[i]], rt);
        parent.set_sample_budget(o_.sample_budget);
        while (parent.iteration() < o_.fork_at && !stop_requested()) observe(parent.step());
        session = std::make_unique<RunSession>(config, parent);
      } else {
        session = std::make_unique<RunSession>(config, rt);
      }
      session->set_sample_budget(o_.sample_budget);
      // All ranks of an mpi run must stop at the same iteration: they get no cancel flag.
      session->run(observe, rt ? nullptr : &halt_);
      if (writes && !rows.flush())
        throw std::runtime_error("cannot write " + series_part(parts_dir_, i));
      if (reports && cb_.on_replica_done) cb_.on_replica_done(i, *session);
      if (rt) measure(*rt, session->mpi_stats(), m);
      slots_[i] = {session->summary(), session->samples(), session->done(), {}};
    } catch (...) {  // rethrown in scenario order, so the exit code keeps its kind
      errors_[i] = std::current_exception();
      halt_.store(true);
    }
  }

  void write_row(std::ofstream& rows, const std::string& run, const Sample& s) const {
    if (!o_.reproducible) {
      rows << series_row(run, s);
      return;
    }
    Sample copy = s;
    copy.wall_time_s = Sample::kNaN;
    rows << series_row(run, copy);
  }

  // Every rank: the measured split, mean and max over the processes.
  static void measure(const exec::MpiRuntime& rt, const MpiRunStats& mine, MpiMeasure& m) {
    m.processes = rt.size();
    m.mean.compute_s = rt.sum(mine.compute_s) / rt.size();
    m.mean.comm_s = rt.sum(mine.comm_s) / rt.size();
    m.mean.codec_s = rt.sum(mine.codec_s) / rt.size();
    m.mean.wall_s = rt.sum(mine.wall_s) / rt.size();
    m.max.compute_s = rt.max(mine.compute_s);
    m.max.comm_s = rt.max(mine.comm_s);
    m.max.codec_s = rt.max(mine.codec_s);
    m.max.wall_s = rt.max(mine.wall_s);
    m.mismatched = mine.mismatched_buckets;
    // A double holds the byte counts exactly up to 2^53 (9 PB).
    m.bytes_sent = static_cast<uint64_t>(rt.sum(static_cast<double>(mine.bytes_sent)));
  }

  std::vector<BatchItem> my_items();
  void gather();
  void finish(const std::string& name);

  const RunnerOptions& o_;
  const RunnerCallbacks& cb_;
  ExperimentOutcome out_;
  int rank_ = 0, size_ = 1;
  std::vector<int> mine_, together_;
  std::string parts_dir_;
  std::vector<RunResult> slots_;
  std::vector<std::exception_ptr> errors_;
  std::vector<int> parent_;  // fork_at: each replica's parent replica, -1 for none
  std::string fork_base_;    // fork_at: the run every other run forks from
  std::atomic<bool> halt_{false};
  std::atomic<size_t> next_{0};
};

// A process other than 0: its simulated replicas as process 0 will write them.
std::vector<BatchItem> Execution::my_items() {
  std::vector<BatchItem> items;
  for (int i : mine_) {
    BatchItem it;
    it.index = i;
    it.status = errors_[i] ? 2 : out_.started[i] ? 1 : 0;
    if (errors_[i]) {
      try {
        std::rethrow_exception(errors_[i]);
      } catch (const std::exception& e) {
        it.error = problem_of(e);
      }
    } else if (out_.started[i]) {
      it.result = std::move(slots_[i]);
      std::ifstream part(series_part(parts_dir_, i), std::ios::binary);
      it.series_rows.assign(std::istreambuf_iterator<char>(part), {});
    }
    items.push_back(std::move(it));
  }
  std::filesystem::remove_all(parts_dir_);
  return items;
}

// Process 0 gathers the other processes' simulated replicas (their results and series rows).
void Execution::gather() {
  std::vector<BatchItem> items;
  if (!root()) items = my_items();
  o_.mpi->set_timeout_s(exec::kBatchGatherTimeout_s);
  const std::vector<std::string> all = o_.mpi->gather_strings(encode_batch(items, halt_.load()));
  if (!root()) return;
  for (size_t p = 1; p < all.size(); ++p) {
    bool stopped = false;
    for (BatchItem& it : decode_batch(all[p], &stopped)) {
      const int i = it.index;
      if (stopped) halt_.store(true);
      if (it.status == 0) continue;
      out_.started[i] = 1;
      if (it.status == 2) {
        errors_[i] = exception_of(it.error);
        continue;
      }
      slots_[i] = std::move(it.result);
      if (!parts_dir_.empty())
        std::ofstream(series_part(parts_dir_, i), std::ios::binary | std::ios::trunc)
            << it.series_rows;
      ++out_.gathered;
    }
  }
}

// Process 0: the first error, else the replicas grouped into runs and summary.json.
void Execution::finish(const std::string& name) {
  const int n = static_cast<int>(out_.replicas.size());
  for (int i = 0; i < n; ++i)
    if (errors_[i]) {
      out_.error = errors_[i];
      return;
    }
  out_.stopped = stop_requested();
  if (o_.reproducible)  // wall-clock time varies by host
    for (int i = 0; i < n; ++i) slots_[i].summary.wall_time_s = Sample::kNaN;
  out_.results =
      group_replicas(std::move(slots_), out_.started, out_.first_replica, &out_.result_replica);
  std::vector<double> targets;  // time_to_accuracy's "target": each run's training.target_accuracy
  for (size_t k = 0; k < out_.results.size(); ++k) {
    const RunConfig& c = out_.replicas[out_.result_replica[k]];
    targets.push_back(c.workload.kind == WorkloadKind::kTrain ? c.training.target_accuracy
                                                              : Sample::kNaN);
  }
  out_.summary = summarize_experiment(name, out_.results, targets);
  for (size_t k = 0; k < out_.results.size(); ++k) {
    const size_t i = out_.result_replica[k];
    if (out_.replicas[i].execution == ExecutionMode::kMpi) {
      MpiMeasure& m = out_.summary.runs[k].mpi.emplace(out_.measures[i]);
      if (o_.reproducible)  // wall-clock time varies by host
        for (MpiRunStats* split : {&m.mean, &m.max})
          split->compute_s = split->comm_s = split->codec_s = split->wall_s = Sample::kNaN;
    }
    if (parent_[i] >= 0) out_.summary.runs[k].forked_from = ForkOrigin{fork_base_, o_.fork_at};
  }
  out_.summary_json = summary_text(out_.summary);
}

}  // namespace

namespace {

// The tuning experiment's results as one RunTuning per tuned run (results in tuning_runs order).
std::vector<RunTuning> tunings_of(const Experiment& exp, bool tune_all,
                                  const std::vector<RunResult>& results) {
  std::vector<RunTuning> out;
  size_t k = 0;
  for (const RunConfig& run : exp.runs) {
    const std::vector<double> grid = lr_grid_of(run, tune_all);
    if (grid.empty()) continue;
    RunTuning t{run.name,
                run.seed + kTuneSeedOffset,
                run.training.tune_seeds,
                run.training.target_accuracy,
                {},
                0,
                run.training.lr,
                run.training.validation_rows};
    for (double lr : grid) {
      const RunResult& r = results.at(k++);
      std::vector<double> tta, accuracy;
      const std::vector<RunSummary> one{r.summary};
      for (const RunSummary& s : r.per_seed.empty() ? one : r.per_seed) {
        tta.push_back(s.time_to_accuracy_s);
        accuracy.push_back(s.final_test_accuracy);
      }
      t.trials.push_back(make_trial(lr, tta, accuracy));
    }
    t.chosen_lr = t.trials[choose_trial(t.trials)].lr;
    out.push_back(std::move(t));
  }
  return out;
}

// Process 0 chooses, every process learns the choice: the chosen learning rates in run order, or
// the tuning's failure ("error" / "stopped"), as one JSON broadcast.
nlohmann::json share_choice(const ExperimentOutcome& t, const Experiment& exp, bool tune_all,
                            exec::MpiRuntime* mpi, std::vector<RunTuning>* tunings) {
  nlohmann::json choice;
  if (t.reports) {
    if (t.error || t.stopped) {
      choice = {{"failed", true}};
    } else {
      *tunings = tunings_of(exp, tune_all, t.results);
      for (const RunTuning& r : *tunings) choice["lr"][r.run] = r.chosen_lr;
    }
  }
  if (mpi && mpi->size() > 1) choice = nlohmann::json::parse(mpi->broadcast(choice.dump()));
  return choice;
}

}  // namespace

ExperimentOutcome run_experiment(const Experiment& exp, const RunnerOptions& options,
                                 const RunnerCallbacks& callbacks) {
  Experiment tuning = exp;
  tuning.runs = tuning_runs(exp.runs, options.tune_lr);
  if (tuning.runs.empty()) return Execution(exp, options, callbacks).run(exp.name);

  RunnerOptions quiet = options;  // the tuning replicas write no series and keep few samples
  quiet.seeds = 0;
  quiet.series_dir.clear();
  quiet.sample_budget = 64;
  quiet.fork_at = 0;  // each arm is tuned on its own, from the start
  RunnerCallbacks progress;
  progress.on_start = callbacks.on_tuning_start;
  if (callbacks.on_tuning_sample)
    progress.on_sample = [&](int, const std::string& run, const Sample&) {
      callbacks.on_tuning_sample(run);
    };
  ExperimentOutcome tuned = Execution(tuning, quiet, progress).run(tuning.name);
  std::vector<RunTuning> tunings;
  const nlohmann::json choice = share_choice(tuned, exp, options.tune_lr, options.mpi, &tunings);
  if (choice.contains("failed")) return tuned;  // its error or stop is the outcome's

  Experiment chosen = exp;
  for (RunConfig& run : chosen.runs)
    if (choice.contains("lr") && choice["lr"].contains(run.name))
      run.training.lr = choice["lr"][run.name].get<double>();
  ExperimentOutcome out = Execution(chosen, options, callbacks).run(exp.name);
  if (!out.reports || out.summary_json.empty()) return out;
  out.summary.lr_tuning = std::move(tunings);
  out.summary_json = summary_text(out.summary);
  return out;
}

}  // namespace commlab
