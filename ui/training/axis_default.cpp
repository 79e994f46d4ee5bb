#include "axis_default.h"

#include <algorithm>

namespace commlab::ui {

double recent_s_per_iteration(const std::vector<Sample>& samples) {
  if (samples.empty() || samples.back().iteration <= 0) return 0;
  const Sample& last = samples.back();
  if (samples.size() == 1) return last.sim_time_s / last.iteration;
  const Sample& from = samples[samples.size() - std::min<size_t>(samples.size(), 9)];
  if (last.iteration <= from.iteration) return last.sim_time_s / last.iteration;
  return (last.sim_time_s - from.sim_time_s) / (last.iteration - from.iteration);
}

bool time_per_iteration_differs(const std::vector<const std::vector<Sample>*>& runs,
                                double tolerance) {
  double lo = 0, hi = 0;
  for (const std::vector<Sample>* r : runs) {
    const double t = r ? recent_s_per_iteration(*r) : 0;
    if (t <= 0) continue;
    lo = lo == 0 ? t : std::min(lo, t);
    hi = std::max(hi, t);
  }
  return lo > 0 && hi > lo * (1 + tolerance);
}

}  // namespace commlab::ui
