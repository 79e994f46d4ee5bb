#pragma once
// Runs repeated over seeds (RunConfig::seeds, `run --seeds N`): the replicas a run expands into,
// and what summary.json says about them: every seed's value, the mean and a 95% confidence
// interval (Student t), time-to-accuracy in simulated time and iterations, and its ratio to the
// baseline run's (docs/scenario.md, "Seeds and intervals").
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/run/results_io.h"
#include "scenario/run/tta_stats.h"
#include "scenario/run_config.h"

namespace commlab {

// "No value" in these statistics: a seed that never reached the target, an interval of fewer than
// two pairs. JSON writes it as null (number_or_null).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

nlohmann::json number_or_null(double v);

// The two-sided 95% quantile of Student's t with `df` degrees of freedom, t_{0.975, df}
// (df >= 1; NaN below). Tabulated to df = 30, then the Cornish-Fisher expansion in 1/df.
double t_quantile_975(int df);

// Mean and 95% interval of values treated as independent draws: mean +- half_width, where
//   half_width = t_{0.975, n-1} * s / sqrt(n),  s^2 = sum (x_i - mean)^2 / (n - 1).
// n = 0: mean NaN; n = 1: no interval (half_width NaN).
struct Interval {
  int n = 0;
  double mean = 0;
  double half_width = 0;
  bool has_interval() const;
  double lo() const { return mean - half_width; }
  double hi() const { return mean + half_width; }
  // Both intervals exist and [lo, hi] overlap: the difference is within the seed noise.
  bool overlaps(const Interval& other) const;
};
Interval mean_ci95(const std::vector<double>& values);

// Every run with seeds = N becomes N replicas with seeds seed, seed+1, ..., seed+N-1, in place
// and in order (run 0's replicas first). `seeds_override` > 0 sets N for every run. The first
// replica keeps the run's name; replica k > 0 is named "NAME@seed=S" (series.csv's run column).
// `first` receives, per run, the index of its first replica (plus a final end index).
std::vector<RunConfig> expand_seeds(const std::vector<RunConfig>& runs, int seeds_override,
                                    std::vector<size_t>* first);
std::string replica_name(const std::string& run, uint64_t seed, int k);

// Joins the replicas' results (expand_seeds order; started[i] false: replica i never ran) into one
// RunResult per run that ran: the first replica's summary and samples, every started replica's
// summary in per_seed (when the run has more than one seed), complete when all were.
// `first_of` receives the index of each result's first replica.
std::vector<RunResult> group_replicas(std::vector<RunResult> replicas,
                                      const std::vector<char>& started,
                                      const std::vector<size_t>& first,
                                      std::vector<size_t>* first_of);

// The run time-to-accuracy is compared with: the run named "baseline", else the first run.
size_t baseline_run(const std::vector<RunResult>& runs);

// summary.json's "seeds" object of one run (per_seed in RunResult; `baseline` the baseline run's
// result, may be &run itself): {"n", "values" (the seeds), one entry per metric with "values",
// "mean", "ci95" ([lo, hi] or null) and "half_width"; time_to_accuracy_s/iterations also
// "reached"; time_to_accuracy_ratio / _speedup paired with the baseline by seed}.
nlohmann::json seed_stats_json(const RunResult& run, const RunResult& baseline);

// The time-to-accuracy statistics of one run over its seeds (scenario/run/tta_stats.h), the keys
// summary.json adds to the run's object; an empty object for a run without test accuracy (catalog):
//   "time_to_accuracy": {"target", "seeds", "reached", "per_seed_s", "per_seed_iterations" (null
//     where not reached), "estimate_s", "estimate_iterations" (censored median, null when half or
//     more did not reach), "ci95_s", "ci95_iterations" ([lo, hi] order-statistic interval, an end
//     null when unknown or unbounded; null for N < 6), "ci95_coverage", "method"};
//   and for a run other than the baseline (&run != &baseline):
//   "speedup_vs_baseline": {"baseline", "estimate", "ci95", "pairs" (= "pairs_run", the seeds run
//     in both), "pairs_run", "censored" (pairs where a run missed), "p_value", "method"
//     ("paired-log-t" without a censored pair, else kCensoredSpeedupMethod), "verdict",
//     "arm_missed", "baseline_missed", "both_missed"} (paired_log_speedup);
//   "accuracy_delta_vs_baseline": {"estimate", "ci95", "pairs"}: final test accuracy minus the
//     baseline's, paired by seed (paired_delta; a fraction, not points).
// `target` is training.target_accuracy ("target"; NaN: null). per_seed_iterations are the
// summaries' iterations_to_accuracy (the crossing evaluation's iteration).
nlohmann::json tta_stats_json(const RunResult& run, const RunResult& baseline,
                              double target = std::numeric_limits<double>::quiet_NaN());

// The JSON of one paired comparison, as summary.json writes it (unknown numbers null):
// {"estimate", "ci95", "pairs", "pairs_run", "censored", "p_value", "method", "verdict",
// "arm_missed", "baseline_missed", "both_missed"} and {"estimate", "ci95", "pairs"}. `reproduce`
// uses them for comparisons summary.json does not hold (one arm against another).
nlohmann::json paired_speedup_json(const PairedSpeedup& sp);
nlohmann::json paired_delta_json(const PairedDelta& d);

}  // namespace commlab
