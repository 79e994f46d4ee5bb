#pragma once
// Runs over seeds, as commlab-cli shows them (scenario/run/seed_stats.h): what `run` prints under
// each run's line (the mean and 95% interval of accuracy, loss and simulated time over the seeds,
// the censored median time-to-accuracy and the paired speedup over the baseline run), and the
// texts `reproduce` builds its seeded rows with (skipreduce_report_util.h uses them too), all read
// from the typed summary (ExperimentSummary).
#include <string>

#include "scenario/run/experiment_summary.h"

namespace commlab::cli {

// printf of one number ("%.2f", ...).
std::string format_number(const char* format, double v);

// `v` when it is finite, else NaN: a number summary.json writes, NaN where it writes null.
double finite_or_nan(double v);

// " [lo, hi]" in `format` with the ends multiplied by `scale`; an end that is not finite is "?"
// (low) or "inf" (high): a seed never reached, or the end is unknown. "" without an interval.
std::string ends_text(bool has_interval, double lo, double hi, const char* format,
                      double scale = 1);

// "0.8470 +- 0.0150" (the 95% half-width), "0.8470 (1 seed)" without an interval, "n/a" without a
// finite mean; `scale` multiplies mean and half-width (1e3: seconds as ms), `unit` follows the
// numbers ("27.7 +- 14.8 ms", "1.11x (1 seed)").
std::string interval_text(const Interval& iv, int digits, double scale = 1,
                          const std::string& unit = "");

// A paired speedup's estimate: "1.24x", "inf x" when it is unbounded (the runs reached the target
// on some pair: the baseline's misses rank it worst), "" when no run of any pair reached it.
std::string speedup_estimate_text(const PairedSpeedup& sp);

// "1.24x [1.12, 1.37], faster": the estimate, its interval and the verdict; "target not reached
// in any pair" when no run of any pair reached the target.
std::string speedup_text(const PairedSpeedup& sp);

// "; Holm-adjusted p = 0.012 over 7 arms" ("over 1 arm"); "" when `p_holm` is not a number.
std::string holm_text(double p_holm, size_t family);

// The pairs a paired speedup used out of those run: "10/10 pairs" or, with censored pairs,
// "10/10 pairs, 4 censored (misses ranked worst)".
std::string pairs_text(const PairedSpeedup& sp);

// "-0.12 pts [-0.40, +0.16]" from a paired difference of accuracies (fractions); "n/a" without an
// estimate.
std::string delta_text(const PairedDelta& d);

// A run's time to its target; throws std::runtime_error for a run without one (no test
// accuracy: a catalog run).
const TimeToAccuracy& time_to_accuracy_of(const RunStats& run);

// "10/10 reached, median 25.1 ms [23.0, 27.0]" (censored median and its order-statistic interval),
// ", median not reached" when half or more seeds missed.
std::string tta_text(const TimeToAccuracy& t);

// Prints to stderr, indented under the run's line. Over N > 1 seeds the mean and interval of
// accuracy, loss and simulated time; then (training runs)
//   time to 83%: 8/8 reached, median 0.0251 s [0.0230, 0.0270]
//   speedup vs baseline: 1.24x [1.12, 1.37] paired, 8/8 pairs, faster
//   accuracy vs baseline: -0.12 pts [-0.40, +0.16]
// (censored median and order-statistic interval, paired speedup (log-t, or Hodges-Lehmann with
// misses ranked worst) with its verdict, paired accuracy difference; the last two for runs other
// than the baseline).
void print_seed_stats(const RunStats& run);

// A tuned run's grid as text: "0.05: 16.7 ms, 0.1: not reached".
std::string lr_grid_text(const RunTuning& tuning);

}  // namespace commlab::cli
