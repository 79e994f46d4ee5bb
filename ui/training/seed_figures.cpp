#include "seed_figures.h"

#include <cmath>

#include "scenario/run/tta_stats.h"
#include "scenario/schema.h"

namespace commlab::ui {

namespace {

QString milliseconds(double s) {
  return std::isfinite(s) ? QString::number(s * 1e3, 'g', 4) : QString("unbounded");
}

// " (6 pairs)", or with pairs where a run missed " (6 pairs, 2 censored: misses ranked worst)".
QString pairs_text(const PairedSpeedup& sp) {
  const QString censored =
      sp.censored > 0 ? QString(", %1 censored: misses ranked worst").arg(sp.censored) : "";
  return QString(" (%1 pair%2%3)").arg(sp.pairs).arg(sp.pairs == 1 ? "" : "s").arg(censored);
}

}  // namespace

std::string settings_key(const RunConfig& config) {
  RunConfig c = config;
  c.name.clear();
  c.seeds = 1;
  return to_json(c).dump();
}

std::map<std::string, SeedTimes> seed_times_from_summary(const ExperimentSummary& summary,
                                                         const std::vector<RunConfig>& compared) {
  std::map<std::string, SeedTimes> out;
  std::map<std::string, std::string> key_of;  // run name -> settings key
  for (const RunConfig& c : compared) key_of[c.name] = settings_key(c);
  for (const RunStats& run : summary.runs) {
    const auto key = key_of.find(run.name());
    if (key == key_of.end() || !run.tta.time_to_accuracy) continue;
    SeedTimes times{run.tta.time_to_accuracy->per_seed_s};
    if (times.seeds() >= 2) out[key->second] = std::move(times);
  }
  return out;
}

SeedCell tta_over_seeds(const SeedTimes* run) {
  if (!run || run->seeds() < 2)
    return {"1 seed", "1 seed: run the runs over seeds for the interval."};
  const CensoredTta ct = censored_tta(run->tta_s);
  const QString reached = QString("%1/%2").arg(ct.reached).arg(ct.seeds);
  QString full = reached + " reached";
  if (std::isnan(ct.estimate)) return {reached + ": not reached", full + ", median not reached"};
  const QString median = milliseconds(ct.estimate);
  full += ", median " + median + " ms";
  if (!ct.has_interval())
    return {reached + ": " + median + ", no CI", full + ", no interval under 6 seeds"};
  const QString ci = " [" + milliseconds(ct.lo) + ", " + milliseconds(ct.hi) + "]";
  // Shown, an unbounded end is "inf" (the tooltip says "unbounded").
  const QString shown_hi = std::isfinite(ct.hi) ? milliseconds(ct.hi) : QString("inf");
  return {reached + ": " + median + " [" + milliseconds(ct.lo) + ", " + shown_hi + "]", full + ci};
}

SeedCell speedup_over_seeds(const SeedTimes* baseline, const SeedTimes* run, bool is_baseline) {
  if (is_baseline) return {"baseline", "baseline: the other rows' speedups are against this run."};
  if (!baseline || !run || baseline->seeds() < 2 || run->seeds() < 2)
    return {"1 seed", "1 seed: run the runs over seeds for the interval."};
  const PairedSpeedup sp = paired_log_speedup(baseline->tta_s, run->tta_s);
  if (std::isnan(sp.estimate)) return {"-", "-: no run of a seed pair reached the target."};
  QString text = QString::number(sp.estimate, 'f', 2) + "x";
  if (sp.has_interval())
    text += " [" + QString::number(sp.lo, 'f', 2) + ", " + QString::number(sp.hi, 'f', 2) + "]";
  text += " " + QString::fromStdString(sp.verdict);
  return {text, text + pairs_text(sp)};
}

}  // namespace commlab::ui
