#pragma once
// A run's test-accuracy curve over seeds, for charts with a confidence band (the GUI's Compare
// page): at every iteration that all replicas evaluated, the mean accuracy and its 95%
// Student-t interval over the replicas (mean_ci95 in seed_stats.h), at the replicas' mean simulated
// time.
#include <vector>

#include "train/trainer.h"

namespace commlab {

struct BandPoint {
  int iteration = 0;
  double sim_time_s = 0;  // mean over the replicas
  double mean = 0;        // test accuracy
  double lo = 0, hi = 0;  // 95% interval of the mean (lo = hi = mean with one replica)
  int n = 0;
};

// `replicas`: each replica's samples (any thinning; unevaluated samples are skipped). Points come
// in iteration order; an iteration missing from some replica is left out.
std::vector<BandPoint> accuracy_band(const std::vector<std::vector<Sample>>& replicas);

}  // namespace commlab
