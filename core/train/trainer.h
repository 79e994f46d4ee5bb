#pragma once
// Data-parallel training over N simulated ranks: each rank holds its own replica and optimizer and
// computes gradients on its own micro-batch; per-layer buckets go through a GradientReducer; each
// rank applies what it received, so lossy reducers make replicas drift (reported as divergence).
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
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

namespace commlab {

struct TrainerConfig {
  int ranks = 1;
  int iterations = 100;
  int global_batch = 64;  // split evenly: each rank gets global_batch / ranks rows
  int eval_every = 50;    // test loss/accuracy every k iterations and after the last (0: last only)
  // The adaptive cadence (train/eval_schedule.h): > 0 evaluates every eval_every_far iterations
  // outside the band from eval_fine_from to the settled smoothed crossing of eval_fine_until
  // (smoothing window eval_window iterations); 0: eval_every throughout.
  int eval_every_far = 0;
  double eval_fine_from = 0;
  double eval_fine_until = 1;
  int eval_window = 0;
  int eval_rows = 0;  // 0: the whole test set; else a seeded random subset (eval_subset)
  uint64_t seed = 1;  // init (same for all replicas), data order, shards, eval subset
  int threads = 0;    // OpenMP threads for the ranks; 0: OpenMP default. Never changes results.
  OptimizerConfig optimizer;
  ScheduleConfig schedule;
  ComputeModel compute;
  Sharding sharding;  // which rows each rank sees (train/data/sampler.h)
};

// One gradient bucket (layer) of one iteration, as its collective reported it.
struct BucketSample {
  std::string name;
  uint64_t elements = 0;
  double ratio = 1;           // wire bytes / bytes of the uncompressed wire format (FP32 or BF16)
  double effective_bits = 0;  // information bits per carried coordinate that reached receivers
  uint64_t dropped_contributions = 0;  // SkipReduce (chunk, rank) pairs left out
  uint64_t trimmed_packets = 0;
  double nmse = 0;                    // worst rank
  std::vector<double> plane_entropy;  // bits per byte of each wire byte plane (reducer.h)
};

// The network over one sample interval of the packet backend, aggregated over its ports.
struct NetworkPoint {
  double t_s = 0;  // end of the interval, on the network's clock
  double max_queue_bytes = 0;
  double mean_utilisation = 0;  // busy fraction, mean over ports
  double max_utilisation = 0;
  uint32_t trims = 0, drops = 0;
};

struct Sample {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  int iteration = 0;        // 1-based: iterations completed
  double sim_time_s = 0;    // cumulative simulated time
  double wall_time_s = 0;   // cumulative wall time of the data plane
  double train_loss = 0;    // mean over the global batch (average of the ranks' micro-batch losses)
  double test_loss = kNaN;  // NaN unless evaluated at this iteration (rank 0's replica)
  double test_accuracy = kNaN;
  double grad_norm = 0;  // L2 norm of the gradient rank 0 applied
  double lr = 0;
  uint64_t bytes_on_wire = 0;                                    // this iteration
  double compute_time_s = 0, comm_time_s = 0, codec_time_s = 0;  // this iteration, exposed parts
  double comm_total_s = 0, codec_total_s = 0;                    // before overlap
  uint64_t skipped_contributions = 0, trimmed_packets = 0;
  double nmse = 0;        // worst bucket of this iteration
  double divergence = 0;  // max over ranks of ||p_r - p_0|| / ||p_0||
  double ratio = 1;  // wire bytes / uncompressed wire-format bytes, all buckets, this iteration
  double effective_bits = 0;  // information bits per carried coordinate (32 = FP32, no loss)
  std::vector<BucketSample> buckets;  // forward (layer) order
  std::vector<NetworkPoint> network;  // packet backend: the intervals this iteration covered
  bool evaluated() const { return test_accuracy == test_accuracy; }
};

// Puts a step's simulated split on its sample: compute, exposed and total communication and codec
// (sim_time_s, the running total, is the caller's).
void set_step_timing(Sample& s, const StepTiming& t);

using SampleObserver = std::function<void(const Sample&)>;

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
  int iteration() const { return iteration_; }
  const std::vector<BucketInfo>& buckets() const { return buckets_; }
  Model& replica(int rank) { return replicas_[rank]; }
  const TrainerConfig& config() const { return config_; }
  // Simulated compute cost per layer of one rank's micro-batch.
  const std::vector<LayerCost>& layer_costs() const { return layer_costs_; }

 private:
  const Dataset& train_;
  const Dataset& test_;
  TrainerConfig config_;
  GradientReducer& reducer_;
  std::vector<Model> replicas_;
  std::vector<Optimizer> optimizers_;
  std::vector<BucketInfo> buckets_;
  std::vector<LayerCost> layer_costs_;
  std::optional<ShardSampler> sampler_;  // set once the config is checked
  std::vector<int32_t> eval_index_;      // the test rows every evaluation uses
  EvalSchedule eval_schedule_;
  int iteration_ = 0;
  double sim_time_s_ = 0;
  double wall_time_s_ = 0;
  // Scratch reused across iterations.
  std::vector<int32_t> index_;
  std::vector<Matrix> batch_x_;
  std::vector<std::vector<int32_t>> batch_y_;
};

}  // namespace commlab
