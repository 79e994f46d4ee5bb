#pragma once
// Runs over seeds, as commlab-cli shows them (scenario/run/seed_stats.h): what `run` prints under
// each run's line (the mean and 95% interval of accuracy, loss and simulated time over the seeds,
// the censored median time-to-accuracy and the paired speedup over the baseline run), and the
// helpers `reproduce` builds its seeded rows with (skipreduce_report_util.h uses them too).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/util/reproduce_util.h"
#include "scenario/run/experiment_summary.h"

namespace commlab::cli {

// "0.8470 +- 0.0150" (the 95% half-width), "0.8470 (1 seed)" without an interval, "n/a" without a
// value; `scale` multiplies mean and half-width (1e3: seconds as ms), `unit` follows the numbers
// ("27.7 +- 14.8 ms", "1.11x (1 seed)").
std::string interval_text(const nlohmann::json& metric, int digits, double scale = 1,
                          const std::string& unit = "");

// printf of one number ("%.2f", ...), and " [lo, hi]" of a [lo, hi] JSON array in that format
// (ends multiplied by `scale`; a null low end "?", a null high end "inf": a seed never reached);
// "" when `ci` is not an array.
std::string format_number(const char* format, double v);

// A summary.json number, NaN where it is null (not reached, unknown); an array of them, per seed.
double number_or_nan(const nlohmann::json& v);
std::vector<double> per_seed(const nlohmann::json& values);
std::string ends_text(const nlohmann::json& ci, const char* format, double scale = 1);

// A speedup_vs_baseline object's estimate: "1.24x", "inf x" when it is unbounded (null in
// summary.json, where the runs reached the target on some pair: the baseline's misses rank it
// worst), "" when no run of any pair reached the target.
std::string speedup_estimate_text(const nlohmann::json& sp);

// The pairs a speedup_vs_baseline object (or a PairedSpeedup as JSON) used out of those run:
// "10/10 pairs" or, with censored pairs, "10/10 pairs, 4 censored (misses ranked worst)".
std::string pairs_text(const nlohmann::json& sp);

// Prints to stderr, indented under the run's line; `target` is training.target_accuracy. Over
// N > 1 seeds the mean and interval of accuracy, loss and simulated time; then (training runs)
//   time to 83%: 8/8 reached, median 0.0251 s [0.0230, 0.0270]
//   speedup vs baseline: 1.24x [1.12, 1.37] paired, 8/8 pairs, faster
//   accuracy vs baseline: -0.12 pts [-0.40, +0.16]
// (tta_stats_json: censored median and order-statistic interval, paired speedup (log-t, or
// Hodges-Lehmann with misses ranked worst) with its verdict, paired accuracy difference; the last
// two for runs other than the baseline).
void print_seed_stats(const RunStats& run);

// A tuned run's grid as text: "0.05: 16.7 ms, 0.1: not reached"; of a RunTuning or of one entry
// of summary.json's lr_tuning.runs.
std::string lr_grid_text(const RunTuning& tuning);
std::string lr_grid_text(const nlohmann::json& tuned_run);

// The run a summary's seed statistics compare against; throws when there is none.
const nlohmann::json& baseline_run(const nlohmann::json& summary);

}  // namespace commlab::cli
