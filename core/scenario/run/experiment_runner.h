#pragma once
// Runs every run of an experiment: expands them over seeds (seed_stats.h), executes the replicas
// on a pool of jobs (each replica owns its engine, so no number depends on --jobs or --threads),
// stops cleanly on a cancel flag, spreads simulated replicas over the processes of an
// `mpirun -np K` job and gathers them to process 0, trains "mpi" replicas with all processes
// together, groups replicas into runs and builds summary.json. `commlab-cli run`, `reproduce` and
// the GUI call it; it writes no file unless asked for series.csv parts (`series_dir`).
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/run/experiment_summary.h"
#include "scenario/run/results_io.h"
#include "scenario/runner.h"
#include "scenario/scenario.h"

namespace commlab {

namespace exec {
class MpiRuntime;
}

struct RunnerOptions {
  int seeds = 0;    // > 0: every run over this many seeds (overrides the runs' `seeds`)
  int threads = 0;  // worker threads in all (0: OpenMP's default)
  int jobs = 0;     // replicas executed at once (0: `threads`); each gets threads / jobs
  // wall_time_s written as null / empty: the same bytes whatever the host, --jobs or --threads.
  bool reproducible = false;
  size_t sample_budget = 4096;  // samples kept per replica (for charts); 0: all
  // Polled between iterations: true stops every replica; what finished is kept.
  const std::atomic<bool>* cancel = nullptr;
  // Under mpirun: this process's runtime (simulated replicas go to process k % size, process 0
  // gathers); needed by "mpi" replicas. nullptr: a single process.
  exec::MpiRuntime* mpi = nullptr;
  // Non-empty: each replica's series.csv rows are streamed to series_part(series_dir, i) on the
  // process that reports them (join_series makes series.csv of them).
  std::string series_dir;
  // Tune every training run's learning rate over lr x {1/2, 1, 2} (`run --tune-lr`); runs with
  // training.lr_grid are tuned over their grid either way (scenario/run/lr_tuning.h).
  bool tune_lr = false;
  // > 0: every training run but the baseline (named "baseline", else the first) is a fork of the
  // baseline's replica with the same seed at this iteration (`run --fork-at K`,
  // scenario/run/fork.h): its first K iterations are the baseline's, the rest its own settings.
  // summary.json gives each such run "forked_from" {"run", "iteration"}. Forks are checked before
  // anything runs: std::invalid_argument naming the field a fork may not change.
  int fork_at = 0;
};

struct RunnerCallbacks {
  // This process's number of iterations to run, before the first one.
  std::function<void(int64_t iterations)> on_start;
  // Every sample of a replica as it comes (from the job's thread: several jobs call at once).
  std::function<void(int replica, const std::string& run, const Sample&)> on_sample;
  // A replica finished (or stopped) without error, on the process that reports it; may throw,
  // which fails the replica.
  std::function<void(int replica, const RunSession&)> on_replica_done;
  // The learning-rate tuning phase before them (lr_tuning.h; runs named RUN@lr=X), when any run
  // is tuned: its iterations on this process, then each of its samples. Unset: it runs silently.
  std::function<void(int64_t iterations)> on_tuning_start;
  std::function<void(const std::string& run)> on_tuning_sample;
};

struct ExperimentOutcome {
  bool reports = true;                 // false: another process holds the results (nothing below)
  std::vector<RunConfig> replicas;     // the runs expanded over seeds, in scenario order
  std::vector<size_t> first_replica;   // per run, its first replica (plus a final end index)
  std::vector<char> started;           // per replica: it ran (here or on another process)
  std::vector<MpiMeasure> measures;    // per replica ("mpi" ones only)
  std::vector<RunResult> results;      // one per run that ran, in scenario order
  std::vector<size_t> result_replica;  // per result, its first replica
  ExperimentSummary summary;           // what the results say (experiment_summary.h)
  std::string summary_json;            // summary.json, as written: summary_text(summary)
  // The first failed replica's exception, in scenario order (std::invalid_argument: invalid
  // input); then results and summary_json are empty.
  std::exception_ptr error;
  bool stopped = false;  // cancelled (here or on another process)
  int processes = 1;
  size_t simulated = 0;           // replicas with execution "simulated"
  size_t here = 0, gathered = 0;  // simulated replicas run here / gathered from the others
  int complete_runs() const;
  bool mismatched() const;  // an "mpi" run received other bytes than simulated
};

// Runs `exp` (its runs are expanded here). A failed replica stops the others and is reported in
// `error` on the reporting process; nothing is thrown for it. Runs with a learning-rate grid are
// tuned first (lr_tuning.h: the tuning replicas run on the same pool and processes, then every
// process continues with the learning rates process 0 chose).
ExperimentOutcome run_experiment(const Experiment& exp, const RunnerOptions& options,
                                 const RunnerCallbacks& callbacks = {});

// series.csv parts: DIR/.series.I.csv per replica; join_series writes DIR/series.csv (the header,
// then the started replicas' rows in scenario order; atomically renamed) and removes the parts.
std::string series_part(const std::string& dir, int replica);
void join_series(const std::string& dir, const std::vector<char>& started);

}  // namespace commlab
