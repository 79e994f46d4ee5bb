#pragma once
// Data-parallel training over N simulated ranks: each rank holds its own replica and optimizer and
// computes gradients on its own micro-batch; per-layer buckets go through a GradientReducer; each
// rank applies what it received, so lossy reducers make replicas drift (reported as divergence).
#include <atomic>
#include <optional>
#include <span>
#include <vector>

#include "train/compute_model.h"
#include "train/data/sampler.h"
#include "train/dataset.h"
#include "train/eval_schedule.h"
#include "train/model.h"
#include "train/optimizer.h"
#include "train/reducer.h"
#include "train/sample.h"
#include "train/trainer_config.h"
#include "train/training_progress.h"

namespace commlab {

// The steps both trainers share (this one and exec::RankTrainer, which trains one rank per MPI
// process), so that the two cannot drift apart.
//
// Throws std::invalid_argument for a config no trainer can run; fills schedule.total_iterations
// when it is 0.
void check_trainer_config(TrainerConfig& config, const Dataset& train);
// The gradient buckets (one per layer with parameters, in forward order, laid out back to back)
// and every layer's simulated compute cost for one rank's micro-batch.
struct TrainingLayout {
  std::vector<BucketInfo> buckets;
  std::vector<LayerCost> layer_costs;
};
TrainingLayout training_layout(const Model& model, const TrainerConfig& config,
                               const Dataset& train);
// One bucket's collective report as its sample (moves the plane entropies out of `rep`).
BucketSample bucket_sample(const BucketInfo& bucket, ReduceReport& rep);
// Puts the iteration's totals over its buckets, its timing and its place in the run on `s`.
void finish_sample(Sample& s, const ReduceReport& total, const StepTiming& t, int iteration,
                   double sim_time_s);
// When the test set is evaluated (both trainers).
EvalSchedule eval_schedule(const TrainerConfig& config);
// L2 norm of the gradients of `model`'s buckets.
double gradient_norm(const Model& model, const std::vector<BucketInfo>& buckets);

// Loss and accuracy of `model` on test rows `rows`, in fixed chunks of 500 (parallel over
// `threads`, 0: OpenMP default) summed in chunk order: the result does not depend on the thread
// count. Both trainers evaluate with it.
LossStats evaluate_rows(const Model& model, const Dataset& test, std::span<const int32_t> rows,
                        int threads);

class DataParallelTrainer {
 public:
  // `train`, `test` and `reducer` must outlive the trainer. `prototype` is initialised from
  // config.seed and copied to every rank. Throws std::invalid_argument for a bad config.
  DataParallelTrainer(Model prototype, const Dataset& train, const Dataset& test,
                      TrainerConfig config, GradientReducer& reducer);

  // One iteration (evaluates when due). Returns its sample.
  Sample step();
  // Runs the remaining iterations, calling observer after each; stops early when *cancel is set.
  // Returns the last sample.
  Sample run(const SampleObserver& observer = {}, const std::atomic<bool>* cancel = nullptr);

  // A fork: carry on `parent`'s training from its current iteration with this trainer's settings
  // (scenario/run/fork.h says which may differ): every replica's weights, the optimizers' state,
  // the iteration count and the simulated and wall time so far. Throws std::invalid_argument when
  // the two do not train the same model shape on the same ranks.
  void continue_from(const DataParallelTrainer& parent);

  LossStats evaluate(int rank = 0);  // on the eval subset (eval_rows), see evaluate_rows
  double divergence() const;
  int iteration() const { return progress_.iteration(); }
  const std::vector<BucketInfo>& buckets() const { return buckets_; }
  Model& replica(int rank) { return replicas_[rank]; }
  const TrainerConfig& config() const { return config_; }
  // Simulated compute cost per layer of one rank's micro-batch.
  const std::vector<LayerCost>& layer_costs() const { return progress_.layer_costs(); }

 private:
  const Dataset& train_;
  const Dataset& test_;
  TrainerConfig config_;
  GradientReducer& reducer_;
  std::vector<Model> replicas_;
  std::vector<Optimizer> optimizers_;
  std::vector<BucketInfo> buckets_;
  std::optional<ShardSampler> sampler_;  // set once the config is checked
  std::vector<int32_t> eval_index_;      // the test rows every evaluation uses
  TrainingProgress progress_;            // iterations, clocks, evaluation schedule
  // Scratch reused across iterations.
  std::vector<int32_t> index_;
  std::vector<Matrix> batch_x_;
  std::vector<std::vector<int32_t>> batch_y_;
};

}  // namespace commlab
