#pragma once
// Executes one RunConfig: builds the cluster and backend, the workload (a trained model with its
// data set; or a catalog workload, time plane only: scenario/run/catalog_run.h), the
// data-parallel trainer, and the gradient reducer that runs the configured collective with its
// codec / SkipReduce / trimming on the real gradient bytes. Samples go to the caller one iteration
// at a time, so the CLI writers and the GUI bridge observe the same stream.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scenario/config_problem.h"
#include "scenario/run_config.h"
#include "train/trainer.h"

namespace commlab {

namespace exec {
class MpiRuntime;
}

// A run with execution "mpi": this process's measured wall-clock split (exec/runs/rank_trainer.h).
struct MpiRunStats {
  double compute_s = 0, comm_s = 0, codec_s = 0, wall_s = 0;
  uint64_t mismatched_buckets = 0;  // rank 0: buckets received otherwise than simulated
  uint64_t bytes_sent = 0;          // by this process's collectives, on the wire as sent
};

struct RunSummary {
  std::string name;
  uint64_t seed = 0;     // the run's seed (RunConfig::seed)
  std::string timed_as;  // workload.time_as's display name ("": the trained model's own time)
  int iterations = 0;
  double sim_time_s = 0;
  double wall_time_s = 0;
  double final_train_loss = 0;
  double final_test_accuracy = 0;
  std::vector<double> final_class_accuracy;  // the last evaluation's Sample::class_accuracy
  uint64_t bytes_on_wire = 0;
  double mean_ratio = 1;      // wire bytes / bytes of the uncompressed wire format
  double effective_bits = 0;  // information bits per carried coordinate that reached receivers
  uint64_t trimmed_packets = 0;
  uint64_t skipped_steps = 0;
  // Time-to-accuracy: the first evaluation whose test accuracy, smoothed over the trailing
  // training.tta_window iterations or else kTtaSmoothingWindow evaluations (scenario/run/
  // tta_stats.h, tta_crossing), reaches training.target_accuracy. -1: never reached.
  double time_to_accuracy_s = -1;   // simulated seconds
  int iterations_to_accuracy = -1;  // that evaluation's iteration count
  int tta_window = 0;               // training.tta_window
};

// What a trained run (workload.kind train) is built from, shared with `commlab-cli train`: its data
// set (throws std::invalid_argument naming workload.dataset; read-only and shared between runs that
// load the same one) and the trainer's settings (threads left at 0: the caller's OpenMP default).
// With training.validation_rows V > 0 the training set loses its V validation rows
// (validation_split) and the evaluation set is those rows when training.evaluate_on_validation
// (a learning-rate tuning replica), else the test set.
std::shared_ptr<const TrainTest> load_run_data(const RunConfig& config);
TrainerConfig trainer_config(const RunConfig& config);
// Everything RunSession checks before the first iteration of a run (execution mode, cluster,
// backend, background traffic, data set, model against data, codec and collective): nothing when
// the run can start, else the problem run would fail with (problem_of the exception it throws).
// Builds the training run's parts and drops them (the data set is read); catalog and trace runs get
// their execution checks only (their graphs take seconds to build). `validate` calls it on every
// run.
std::optional<ConfigProblem> check_run_startable(const RunConfig& config);

class RunSession {
 public:
  // Throws std::invalid_argument for a configuration the engine cannot run (with the field named).
  explicit RunSession(const RunConfig& config);
  // execution "mpi" needs the process's runtime (every rank constructs the session and steps it
  // together); other runs ignore it. Without it an "mpi" run throws std::invalid_argument.
  RunSession(const RunConfig& config, const exec::MpiRuntime* mpi);
  // A fork: `config`'s run continuing `parent`'s training from the parent's current iteration (its
  // weights, optimizer state, samples, evaluations and totals so far), so iterations up to the
  // fork point are the parent's and every later one runs with `config`'s settings. Throws
  // std::invalid_argument naming the field when `config` changes what a fork must keep
  // (scenario/run/fork.h: fork_problem) or the parent is not a simulated training run.
  RunSession(const RunConfig& config, const RunSession& parent);
  ~RunSession();
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  const RunConfig& config() const;
  int iteration() const;  // iterations completed
  bool done() const;
  // Runs one iteration and returns its sample (also appended to samples()).
  const Sample& step();
  // Runs to the end or until *cancel becomes true.
  void run(const SampleObserver& observer = {}, const std::atomic<bool>* cancel = nullptr);
  // The samples kept: all of them, unless a budget is set.
  const std::vector<Sample>& samples() const;
  // Keeps at most about `max_kept` samples (0: all, the default; train/sample_store.h: when the
  // store is full, every other one is dropped and from then on only every 2^k-th iteration is
  // kept), so a run of any length holds O(max_kept) samples (for charts); the observer still sees
  // every sample, and summary() does not depend on the budget.
  void set_sample_budget(size_t max_kept);
  RunSummary summary() const;
  // The simulated data-parallel trainer (kind train, execution simulated), else nullptr.
  const DataParallelTrainer* trainer() const;
  // Names of the gradient buckets (layers), in forward order.
  std::vector<std::string> bucket_names() const;
  // execution "mpi": this process's measured split so far (zeros for other runs).
  MpiRunStats mpi_stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace commlab
