#pragma once
// Test accuracy by class (Sample::class_accuracy, RunSummary::final_class_accuracy): the worst
// class, and what summary.json says about it over a run's seeds. A bias that starves some classes
// (SkipReduce's naive policy dropping the same ranks' shards under non-iid sharding) lowers the
// worst class long before it shows in the overall accuracy.
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "scenario/run/results_io.h"

namespace commlab {

struct WorstClass {
  int label = -1;  // -1: no class has a value
  double accuracy = std::numeric_limits<double>::quiet_NaN();
};
// The lowest accuracy of the classes that have one (NaN entries, classes without test rows, are
// skipped); the lowest label on a tie.
WorstClass worst_class_accuracy(const std::vector<double>& class_accuracy);

// The key summary.json adds to a training run on a classification set ({} for other runs):
//   "class_accuracy": {"final" (the first seed's per-class accuracy, class order, null where a
//     class had no test row), "worst", "worst_class" (its lowest entry and that class),
//     "seeds": {"n", "worst_values" (each seed's worst-class accuracy), "worst_classes" (each
//     seed's worst class), "worst_mean",
//     "worst_ci95" ([lo, hi] Student t over the seeds, null under 2), "final_mean" (per class, the
//     mean over the seeds)},
//     and for a run other than the baseline "worst_delta_vs_baseline": {"estimate", "ci95",
//     "pairs"}, the worst-class accuracy minus the baseline's, paired by seed (paired_delta)}.
nlohmann::json class_accuracy_json(const RunResult& run, const RunResult& baseline);

}  // namespace commlab
