#include "train/training_progress.h"

#include <algorithm>
#include <cmath>

#include "train/trainer.h"

namespace commlab {

StepReports reduce_buckets(GradientReducer& reducer, int iteration,
                           const std::vector<BucketInfo>& buckets, int ranks,
                           const BucketGradients& gradients_of, Sample& s,
                           const AfterReduce& after) {
  StepReports out;
  out.comm_s.resize(buckets.size());
  out.codec_s.resize(buckets.size());
  s.buckets.resize(buckets.size());
  std::vector<std::span<float>> grads(ranks);
  for (size_t bi = buckets.size(); bi-- > 0;) {
    const BucketInfo& b = buckets[bi];
    gradients_of(b, grads);
    ReduceReport rep = reducer.reduce(iteration, b, grads);
    if (after) after(b, grads);
    out.comm_s[bi] = rep.comm_time_s;
    out.codec_s[bi] = rep.codec_time_s;
    s.buckets[bi] = bucket_sample(b, rep);
    out.total += rep;
  }
  return out;
}

double relative_divergence(const std::vector<double>& distance2, double reference2) {
  double worst = 0;
  for (size_t r = 1; r < distance2.size(); ++r)
    worst = std::max(
        worst, reference2 > 0 ? std::sqrt(distance2[r] / reference2) : std::sqrt(distance2[r]));
  return worst;
}

TrainingProgress::TrainingProgress(const TrainerConfig& config, std::vector<LayerCost> layer_costs)
    : layer_costs_(std::move(layer_costs)), schedule_(eval_schedule(config)) {}

void TrainingProgress::close_iteration(Sample& s, const StepReports& reports) {
  const StepTiming t = overlap_step(layer_costs_, reports.comm_s, reports.codec_s);
  ++iteration_;
  sim_time_s_ += t.step_s;
  finish_sample(s, reports.total, t, iteration_, sim_time_s_);
}

void TrainingProgress::record_evaluation(Sample& s, const LossStats& e) {
  s.test_loss = e.loss;
  s.test_accuracy = e.count > 0 ? static_cast<double>(e.correct) / e.count : 0.0;
  s.class_accuracy = e.class_accuracy();
  schedule_.record(iteration_, s.test_accuracy);
}

void TrainingProgress::add_wall_time(Sample& s, double seconds) {
  wall_time_s_ += seconds;
  s.wall_time_s = wall_time_s_;
}

void TrainingProgress::continue_from(const TrainingProgress& parent) {
  iteration_ = parent.iteration_;
  schedule_.continue_from(parent.schedule_);
  sim_time_s_ = parent.sim_time_s_;
  wall_time_s_ = parent.wall_time_s_;
}

}  // namespace commlab
