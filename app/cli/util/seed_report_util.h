#pragma once
// Runs over seeds, as commlab-cli shows them (scenario/run/seed_stats.h): what `run` prints under
// each run's line (the mean and 95% interval of accuracy, loss and simulated time over the seeds,
// and the time-to-accuracy with its speedup over the baseline run), and the `reproduce` rows of
// SkipReduce's time-to-accuracy for every skip count and policy, each with N and its interval,
// next to the paper's 1.58x, "within noise" when the interval overlaps the baseline's.
#include <nlohmann/json.hpp>
#include <string>

#include "cli/util/reproduce_util.h"
#include "scenario/run/results_io.h"

namespace commlab::cli {

// "0.8470 +- 0.0150" (the 95% half-width), "0.8470 (1 seed)" without an interval, "n/a" without a
// value; `scale` multiplies mean and half-width (1e3: seconds as ms), `unit` follows the numbers
// ("27.7 +- 14.8 ms", "1.11x (1 seed)").
std::string interval_text(const nlohmann::json& metric, int digits, double scale = 1,
                          const std::string& unit = "");

// Prints to stderr, indented under the run's line; `target` is training.target_accuracy.
void print_seed_stats(const RunResult& run, const RunResult& baseline, double target);

// The last row's value: a seed metric's mean and 95% interval (seed_stats_json's keys).
void value_of(Report& r, const nlohmann::json& metric);

// The run a summary's seed statistics compare against; throws when there is none.
const nlohmann::json& baseline_run(const nlohmann::json& summary);

// One row per run of a seeded sample: final accuracy (and time to the target) with N and the 95%
// interval, "within noise" against the baseline run. Quantity = `quantity` + the run's name.
struct SeededRows {
  std::string quantity, paper, theory, command, note;
  bool with_tta = false;
};
void seeded_accuracy_rows(Report& r, const nlohmann::json& summary, const SeededRows& spec);

// `summary` is skipreduce_tta's summary.json (runs "baseline" and POLICY-sK), `command` the run
// command for the rows, `ranks` the ring's N, `target` training.target_accuracy as run.
void skipreduce_tta_rows(Report& r, const nlohmann::json& summary, const std::string& command,
                         int ranks, double target);

}  // namespace commlab::cli
