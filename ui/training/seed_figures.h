#pragma once
// The runs table's figures over seeds: per run, its time to the target over N seeds
// (censored median and order-statistic interval) and its speedup over the baseline row with the
// 95% paired interval and verdict. The per-seed times come from a seeds comparison's summary
// (the Compare tab's, what `commlab-cli run --seeds N` writes as summary.json: "time_to_accuracy"
// -> "per_seed_s"); the statistics are the engine's own (scenario/run/tta_stats.h: censored_tta and
// paired_log_speedup), so against the summary's baseline the cells equal its
// "speedup_vs_baseline" and "time_to_accuracy" figures, and any other row can be the baseline.
#include <QString>
#include <map>
#include <string>
#include <vector>

#include "scenario/run/experiment_summary.h"
#include "scenario/run_config.h"

namespace commlab::ui {

// One run's times to the target over its seeds, seed order; NaN where a seed did not reach it.
struct SeedTimes {
  std::vector<double> tta_s;
  int seeds() const { return static_cast<int>(tta_s.size()); }
};

// What identifies a run's settings across the tabs: its configuration as JSON without its name and
// seed count (a renamed or differently named run with the same settings trains the same seeds).
std::string settings_key(const RunConfig& config);

// Settings key -> the run's seeds' times, from a comparison's summary (its runs matched to
// `compared` by name). Runs with one seed or without a time to accuracy (catalog runs) are left
// out; NaN where a seed did not reach the target.
std::map<std::string, SeedTimes> seed_times_from_summary(const ExperimentSummary& summary,
                                                         const std::vector<RunConfig>& compared);

// A cell over seeds: what the runs table shows (compact, so every column fits at 1280x800) and the
// full sentence of its tooltip.
struct SeedCell {
  QString shown, full;
};

// "k/N reached, median X ms [lo, hi]" (the interval's upper end "unbounded" when a non-reaching
// seed bounds it; "no interval under 6 seeds" for N < 6); "1 seed" when `run` is null.
// Shown: "k/N: X [lo, hi]" (ms; an unbounded hi is "inf"), "k/N: X, no CI" or "k/N: not
// reached".
SeedCell tta_over_seeds(const SeedTimes* run);

// "1.23x [1.05, 1.44] faster (3 pairs)"; "baseline" for the baseline row itself; "1 seed" when
// either run has no seeds; "-" when no seed pair reached the target. Shown without the pairs.
SeedCell speedup_over_seeds(const SeedTimes* baseline, const SeedTimes* run, bool is_baseline);

}  // namespace commlab::ui
