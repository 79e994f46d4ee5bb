#include "views/run_figures.h"

#include "scenario/run/tta_stats.h"

namespace commlab::views {

RunFigures run_figures(const std::vector<Sample>& samples, double target, int tta_window) {
  RunFigures f;
  if (samples.empty()) return f;
  std::vector<EvalPoint> evals;
  double wire = 0;
  for (const Sample& s : samples) {
    wire += static_cast<double>(s.bytes_on_wire);
    if (s.evaluated()) {
      evals.push_back({s.iteration, s.sim_time_s, s.test_accuracy});
      f.final_accuracy = s.test_accuracy;
    }
  }
  f.wire_bytes_per_iteration = wire / static_cast<double>(samples.size());
  const Sample& last = samples.back();
  if (last.iteration > 0) f.s_per_iteration = last.sim_time_s / last.iteration;
  const SmoothedCrossing c = tta_crossing(evals, target, tta_window);
  if (c.reached) f.tta_s = c.time_s;
  return f;
}

double tta_speedup(const RunFigures& baseline, const RunFigures& run) {
  if (baseline.tta_s <= 0 || run.tta_s <= 0) return -1;
  return baseline.tta_s / run.tta_s;
}

}  // namespace commlab::views
