#include "train/eval_schedule.h"

#include <algorithm>

namespace commlab {

EvalSchedule::EvalSchedule(EvalCadence cadence, int iterations)
    : cadence_(cadence), iterations_(iterations) {}

bool EvalSchedule::due(int iterations_done) const {
  if (iterations_done == iterations_) return true;
  const bool adaptive = cadence_.far_every > 0;
  const int every = adaptive && phase_ != Phase::kFine ? cadence_.far_every : cadence_.every;
  return every > 0 && iterations_done % every == 0;
}

void EvalSchedule::record(int iterations_done, double accuracy) {
  evals_.emplace_back(iterations_done, accuracy);
  advance(iterations_done, accuracy);
}

void EvalSchedule::continue_from(const EvalSchedule& parent) {
  phase_ = Phase::kFar;
  fine_start_ = 0;
  evals_ = parent.evals_;
  for (const auto& [iteration, accuracy] : evals_) advance(iteration, accuracy);
}

void EvalSchedule::advance(int iterations_done, double accuracy) {
  if (cadence_.far_every <= 0) return;
  if (phase_ == Phase::kFar) {
    if (accuracy >= cadence_.fine_from) phase_ = Phase::kFine, fine_start_ = iterations_done;
    return;
  }
  if (phase_ != Phase::kFine) return;
  // The mean over [t - W/2, t + W/2] of the newest evaluation t with t + W/2 <= now, the window
  // wholly in the fine phase: with evaluations every W/2-dividing cadence it is [now - W, now],
  // the trailing smoothed accuracy of the newest evaluation as tta_stats computes it.
  const double half = std::max(0, cadence_.window) / 2.0;
  auto centre = std::find_if(evals_.rbegin(), evals_.rend(),
                             [&](const auto& e) { return e.first + half <= iterations_done; });
  if (centre == evals_.rend() || centre->first - half < fine_start_) return;
  const double t = centre->first;
  double sum = 0;
  int count = 0;
  for (const auto& [iteration, value] : evals_)
    if (iteration >= t - half && iteration <= t + half) sum += value, ++count;
  if (sum / count >= cadence_.fine_until) phase_ = Phase::kSettled;
}

}  // namespace commlab
