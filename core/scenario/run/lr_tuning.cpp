#include "scenario/run/lr_tuning.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "scenario/run/seed_stats.h"
#include "scenario/run/tta_stats.h"

namespace commlab {

namespace {

// "0.05", "0.1", "0.025": as short as the value allows, so run names stay readable.
std::string lr_text(double lr) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", lr);
  return buf;
}

}  // namespace

size_t choose_trial(const std::vector<LrTrial>& trials) {
  auto better = [](const LrTrial& a, const LrTrial& b) {
    const bool a_has = std::isfinite(a.median_tta_s), b_has = std::isfinite(b.median_tta_s);
    if (a_has != b_has) return a_has;
    if (a_has && a.median_tta_s != b.median_tta_s) return a.median_tta_s < b.median_tta_s;
    if (a.mean_final_accuracy != b.mean_final_accuracy)
      return a.mean_final_accuracy > b.mean_final_accuracy;
    return a.lr < b.lr;
  };
  size_t best = 0;
  for (size_t i = 1; i < trials.size(); ++i)
    if (better(trials[i], trials[best])) best = i;
  return best;
}

std::vector<double> lr_grid_of(const RunConfig& run, bool tune_all) {
  if (!run.training.lr_grid.empty()) return run.training.lr_grid;
  if (!tune_all || run.workload.kind != WorkloadKind::kTrain ||
      run.execution != ExecutionMode::kSimulated)
    return {};
  const double lr = run.training.lr;
  return {lr / 2, lr, lr * 2};
}

std::vector<RunConfig> tuning_runs(const std::vector<RunConfig>& runs, bool tune_all) {
  std::vector<RunConfig> out;
  for (const RunConfig& run : runs)
    for (double lr : lr_grid_of(run, tune_all)) {
      RunConfig c = run;
      c.name = run.name + "@lr=" + lr_text(lr);
      c.seed = run.seed + kTuneSeedOffset;
      c.seeds = run.training.tune_seeds;
      c.training.lr = lr;
      c.training.lr_grid.clear();
      // With a validation split the choice reads the validation rows, never the test set.
      c.training.evaluate_on_validation = run.training.validation_rows > 0;
      out.push_back(std::move(c));
    }
  return out;
}

LrTrial make_trial(double lr, const std::vector<double>& tta_s,
                   const std::vector<double>& final_accuracy) {
  LrTrial t;
  t.lr = lr;
  t.tta_s = tta_s;
  t.final_accuracy = final_accuracy;
  const CensoredTta c = censored_tta(tta_s);
  t.median_tta_s = c.estimate;
  t.reached = c.reached;
  t.mean_final_accuracy = final_accuracy.empty()
                              ? kNaN
                              : std::accumulate(final_accuracy.begin(), final_accuracy.end(), 0.0) /
                                    static_cast<double>(final_accuracy.size());
  return t;
}

std::string tuning_evaluated_on(const RunTuning& tuning) {
  return tuning.validation_rows > 0
             ? "validation: " + std::to_string(tuning.validation_rows) + " training rows"
             : std::string("test set");
}

nlohmann::json lr_tuning_json(const std::vector<RunTuning>& tunings) {
  nlohmann::json runs = nlohmann::json::array();
  for (const RunTuning& r : tunings) {
    nlohmann::json grid = nlohmann::json::array();
    for (const LrTrial& t : r.trials) {
      nlohmann::json tta = nlohmann::json::array();
      for (double v : t.tta_s) tta.push_back(number_or_null(v));
      grid.push_back({{"lr", t.lr},
                      {"median_tta_s", number_or_null(t.median_tta_s)},
                      {"reached", t.reached},
                      {"tta_s", tta},
                      {"mean_final_accuracy", number_or_null(t.mean_final_accuracy)}});
    }
    runs.push_back({{"run", r.run},
                    {"seeds", {r.first_seed, r.first_seed + static_cast<uint64_t>(r.seeds) - 1}},
                    {"target", r.target},
                    {"grid", grid},
                    {"chosen_lr", r.chosen_lr},
                    {"untuned_lr", r.untuned_lr},
                    {"chose_untuned", r.chosen_lr == r.untuned_lr},
                    {"evaluated_on", tuning_evaluated_on(r)}});
  }
  return {{"method", kLrTuningMethod}, {"seed_offset", kTuneSeedOffset}, {"runs", runs}};
}

}  // namespace commlab
