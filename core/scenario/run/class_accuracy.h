#pragma once
// Test accuracy by class (Sample::class_accuracy, RunSummary::final_class_accuracy): the worst
// class, and what summary.json says about it over a run's seeds. A bias that starves some classes
// (SkipReduce's naive policy dropping the same ranks' shards under non-iid sharding) lowers the
// worst class long before it shows in the overall accuracy.
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "scenario/run/results_io.h"
#include "scenario/run/seed_stats.h"
#include "scenario/run/tta_stats.h"

namespace commlab {

struct WorstClass {
  int label = -1;  // -1: no class has a value
  double accuracy = std::numeric_limits<double>::quiet_NaN();
};
// The lowest accuracy of the classes that have one (NaN entries, classes without test rows, are
// skipped); the lowest label on a tie.
WorstClass worst_class_accuracy(const std::vector<double>& class_accuracy);

// The worst class over a run's seeds (RunResult::per_seed; one seed: its summary).
struct ClassAccuracySeeds {
  size_t n = 0;                      // seeds
  std::vector<double> worst_values;  // each seed's worst-class accuracy, NaN where it has none
  std::vector<int> worst_classes;    // each seed's worst class, -1 where it has none
  Interval worst;                    // mean_ci95 of the seeds' worst values that are known
  std::vector<double> final_mean;    // per class, the mean over the seeds with a value (NaN: none)
};

// A training run's per-class test accuracy on a classification set.
struct ClassAccuracy {
  std::vector<double> final;  // the first seed's, in class order; NaN where a class had no test row
  WorstClass worst;           // its lowest entry and that class
  ClassAccuracySeeds seeds;
  // A run other than the baseline: its worst-class accuracy minus the baseline's, paired by seed
  // (paired_delta).
  std::optional<PairedDelta> worst_delta_vs_baseline;
};
// None for a run without per-class accuracy (catalog and language-model runs). `baseline` may be
// &run itself (then no worst_delta_vs_baseline).
std::optional<ClassAccuracy> class_accuracy_stats(const RunResult& run, const RunResult& baseline);

// summary.json's "class_accuracy" object of a run: {"final" (null where a class had no test row),
// "worst", "worst_class", "seeds": {"n", "worst_values", "worst_classes", "worst_mean",
// "worst_ci95" ([lo, hi] Student t over the seeds, null under 2), "final_mean"}, and
// "worst_delta_vs_baseline": {"estimate", "ci95", "pairs"} when set}; unknown numbers null.
nlohmann::json class_accuracy_json(const ClassAccuracy& accuracy);

}  // namespace commlab
