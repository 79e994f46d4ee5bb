#pragma once
// A run's per-seed results with given times to accuracy (seconds, -1: the target was missed), for
// the statistics tests: seed k is 1 + k, its accuracy 0.8 + 0.01 k, its iterations 10 x its time.
#include <string>
#include <vector>

#include "scenario/run/results_io.h"

namespace commlab::testing {

inline RunResult run_with_tta(const std::string& name, const std::vector<double>& tta) {
  RunResult r;
  for (size_t k = 0; k < tta.size(); ++k) {
    RunSummary s;
    s.name = name;
    s.seed = 1 + k;
    s.final_test_accuracy = 0.8 + 0.01 * static_cast<double>(k);
    s.time_to_accuracy_s = tta[k];
    s.iterations_to_accuracy = tta[k] < 0 ? -1 : static_cast<int>(tta[k] * 10);
    r.per_seed.push_back(s);
  }
  r.summary = r.per_seed.front();
  return r;
}

}  // namespace commlab::testing
