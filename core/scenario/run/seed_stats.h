#pragma once
// Runs repeated over seeds (RunConfig::seeds, `run --seeds N`): the replicas a run expands into,
// and what summary.json says about them: every seed's value, the mean and a 95% confidence
// interval (Student t), time-to-accuracy in simulated time and iterations, and its ratio to the
// baseline run's (docs/scenario.md, "Seeds and intervals").
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
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

// A run's metric over its seeds against the baseline's: both intervals overlap (within the seed
// noise), or not, or one has no interval; the baseline itself is not compared.
enum class NoiseCheck { kNotCompared, kUnknown, kWithinNoise, kBeyondNoise };

// One metric of a run over its seeds (summary.json's runs[i].seeds.METRIC).
struct SeedMetric {
  std::vector<double> values;  // one per seed, in seed order; NaN where the seed has none
  Interval interval;           // of the finite values (mean_ci95)
  NoiseCheck against_baseline = NoiseCheck::kNotCompared;
};

// A run's values over its seeds (RunResult::per_seed; one seed: its summary), paired with the
// baseline run's by seed.
struct SeedStats {
  std::vector<uint64_t> seeds;
  SeedMetric final_test_accuracy, final_train_loss, sim_time_s;
  // Time-to-accuracy: a seed that never reaches the target is NaN and left out of the mean and
  // interval, which describe the `reached` seeds only.
  SeedMetric time_to_accuracy_s, iterations_to_accuracy;
  int reached = 0;
  std::string baseline;  // the baseline run's name
  // Replica k against the baseline's replica k (same data order and initialisation), over the
  // seeds where both reached the target: ratio = TTA / TTA_baseline, speedup = TTA_baseline / TTA.
  Interval time_to_accuracy_ratio, time_to_accuracy_speedup;
};
// `baseline` may be &run itself (then no metric is compared).
SeedStats seed_stats(const RunResult& run, const RunResult& baseline);

// A run's time to its target accuracy over its seeds, with censoring (tta_stats.h).
struct TimeToAccuracy {
  double target = kNaN;  // training.target_accuracy; NaN: unknown
  // Per seed: the summaries' time_to_accuracy_s and iterations_to_accuracy (the crossing
  // evaluation's iteration), NaN where not reached.
  std::vector<double> per_seed_s, per_seed_iterations;
  CensoredTta seconds, iterations;  // censored_tta of the two
  int window_iterations = 0;        // training.tta_window; 0: over kTtaSmoothingWindow evaluations
};

// Holm's adjustment of a comparison's p-value across the experiment's distinct arms.
struct HolmAdjustment {
  double p_holm = kNaN;  // NaN: the comparison has no p-value
  size_t family = 0;     // how many distinct arms were adjusted together
};

// A run other than the baseline against the baseline, paired by seed.
struct BaselineComparison {
  std::string baseline;                // its name
  PairedSpeedup speedup;               // time to target (paired_log_speedup)
  std::optional<HolmAdjustment> holm;  // set when the whole experiment is summarized
  PairedDelta accuracy_delta;  // final test accuracy, run - baseline (a fraction, not points)
};

// The time-to-accuracy statistics of one run: none for a run without test accuracy (catalog);
// `vs_baseline` for a run other than the baseline (&run != &baseline).
struct TtaStats {
  std::optional<TimeToAccuracy> time_to_accuracy;
  std::optional<BaselineComparison> vs_baseline;
};
TtaStats tta_stats(const RunResult& run, const RunResult& baseline, double target = kNaN);

// summary.json's "seeds" object of one run: {"n", "values" (the seeds), one entry per metric with
// "values", "mean", "ci95" ([lo, hi] or null) and "half_width" (and "within_noise_of_baseline"
// when compared); time_to_accuracy_s/iterations also "reached"; time_to_accuracy_ratio /
// _speedup paired with the baseline by seed}.
nlohmann::json seed_stats_json(const SeedStats& stats);

// The keys summary.json adds to a run's object for its TtaStats (an empty object without them):
//   "time_to_accuracy": {"target", "seeds", "reached", "per_seed_s", "per_seed_iterations" (null
//     where not reached), "estimate_s", "estimate_iterations" (censored median, null when half or
//     more did not reach), "ci95_s", "ci95_iterations" ([lo, hi] order-statistic interval, an end
//     null when unknown or unbounded; null for N < 6), "ci95_coverage", "method", "smoothing"};
//   "speedup_vs_baseline": {"baseline", "estimate", "ci95", "pairs" (= "pairs_run", the seeds run
//     in both), "pairs_run", "censored" (pairs where a run missed), "p_value", "method"
//     ("paired-log-t" without a censored pair, else kCensoredSpeedupMethod), "verdict",
//     "arm_missed", "baseline_missed", "both_missed"} (paired_log_speedup), with "p_holm" and
//     "holm_family" when adjusted;
//   "accuracy_delta_vs_baseline": {"estimate", "ci95", "pairs"} (paired_delta).
nlohmann::json tta_stats_json(const TtaStats& stats);

// The JSON of one paired comparison, as summary.json writes it (unknown numbers null):
// {"estimate", "ci95", "pairs", "pairs_run", "censored", "p_value", "method", "verdict",
// "arm_missed", "baseline_missed", "both_missed"} and {"estimate", "ci95", "pairs"}.
nlohmann::json paired_speedup_json(const PairedSpeedup& sp);
nlohmann::json paired_delta_json(const PairedDelta& d);

}  // namespace commlab
