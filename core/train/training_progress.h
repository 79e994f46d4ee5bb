#pragma once
// One data-parallel training step's bookkeeping, written once for both trainers
// (DataParallelTrainer, every rank in one process, and exec::RankTrainer, one rank per MPI
// process), so the two cannot drift apart: the buckets go through the simulated GradientReducer in
// readiness order and their reports fill the sample; the step's compute, communication and codec
// overlap on the simulated clock; the test set is evaluated when the schedule says so; divergence
// is the same distance. What differs between the trainers (where the gradients come from, how the
// optimizer steps) stays in each trainer.
#include <functional>
#include <span>
#include <vector>

#include "train/compute_model.h"
#include "train/eval_schedule.h"
#include "train/model.h"
#include "train/reducer.h"
#include "train/sample.h"
#include "train/trainer_config.h"

namespace commlab {

// The reports of one iteration's buckets: their totals and each bucket's simulated communication
// and codec time (by bucket index), which overlap with the backward pass.
struct StepReports {
  ReduceReport total;
  std::vector<double> comm_s, codec_s;
};

// Fills grads[r] with rank r's gradient of bucket `bucket` (grads has one entry per rank).
using BucketGradients =
    std::function<void(const BucketInfo& bucket, std::vector<std::span<float>>& grads)>;
// Called after a bucket is reduced, with what each rank received.
using AfterReduce =
    std::function<void(const BucketInfo& bucket, const std::vector<std::span<float>>& received)>;

// Reduces every bucket through `reducer` in readiness order (last layer first), as DDP launches
// them, and puts each bucket's report on s.buckets (forward order).
StepReports reduce_buckets(GradientReducer& reducer, int iteration,
                           const std::vector<BucketInfo>& buckets, int ranks,
                           const BucketGradients& gradients_of, Sample& s,
                           const AfterReduce& after = {});

// max over ranks r >= 1 of ||p_r - p_0|| / ||p_0|| from the squared distances
// distance2[r] = ||p_r - p_0||^2 and reference2 = ||p_0||^2 (the plain distance when p_0 = 0).
double relative_divergence(const std::vector<double>& distance2, double reference2);

// Where a run stands: iterations done, the simulated and wall clocks, the evaluation schedule.
class TrainingProgress {
 public:
  TrainingProgress(const TrainerConfig& config, std::vector<LayerCost> layer_costs);

  // Closes an iteration: the overlapped step time of its reports on the simulated clock, the
  // iteration count, and the sample's totals and timing (train/trainer.h finish_sample).
  void close_iteration(Sample& s, const StepReports& reports);
  // Whether the test set is evaluated after the iteration just closed.
  bool evaluation_due() const { return schedule_.due(iteration_); }
  // Puts an evaluation on the sample and records its accuracy with the schedule.
  void record_evaluation(Sample& s, const LossStats& e);
  // Adds a step's wall time and puts the running total on the sample.
  void add_wall_time(Sample& s, double seconds);
  // A fork: the parent's iterations, clocks and evaluations so far.
  void continue_from(const TrainingProgress& parent);

  int iteration() const { return iteration_; }
  const std::vector<LayerCost>& layer_costs() const { return layer_costs_; }

 private:
  std::vector<LayerCost> layer_costs_;
  EvalSchedule schedule_;
  int iteration_ = 0;
  double sim_time_s_ = 0;
  double wall_time_s_ = 0;
};

}  // namespace commlab
