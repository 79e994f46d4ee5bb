#include "scenario/run/seed_curves.h"

#include <map>

#include "scenario/run/seed_stats.h"

namespace commlab {

std::vector<BandPoint> accuracy_band(const std::vector<std::vector<Sample>>& replicas) {
  struct Column {
    std::vector<double> accuracy;
    double time_sum = 0;
  };
  std::map<int, Column> by_iteration;
  for (const std::vector<Sample>& samples : replicas)
    for (const Sample& s : samples) {
      if (!s.evaluated()) continue;
      Column& c = by_iteration[s.iteration];
      c.accuracy.push_back(s.test_accuracy);
      c.time_sum += s.sim_time_s;
    }
  std::vector<BandPoint> band;
  for (const auto& [iteration, c] : by_iteration) {
    if (c.accuracy.size() != replicas.size()) continue;
    const Interval iv = mean_ci95(c.accuracy);
    BandPoint p;
    p.iteration = iteration;
    p.n = iv.n;
    p.sim_time_s = c.time_sum / iv.n;
    p.mean = iv.mean;
    p.lo = iv.has_interval() ? iv.lo() : iv.mean;
    p.hi = iv.has_interval() ? iv.hi() : iv.mean;
    band.push_back(p);
  }
  return band;
}

}  // namespace commlab
