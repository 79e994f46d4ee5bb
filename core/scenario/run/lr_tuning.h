#pragma once
// The learning-rate axis of a comparison: each arm at its own tuned learning rate, so that a
// technique that acts as a learning-rate change (SkipReduce's (N-s)/N scaling) is not judged at a
// rate tuned for another arm. A run with training.lr_grid (or every training run under
// `run --tune-lr`, with the grid lr x {1/2, 1, 2}) is first trained at every grid value over
// training.tune_seeds seeds starting at seed + kTuneSeedOffset, disjoint from the seeds it is
// reported on (seeds <= 100); the value chosen is then the run's learning rate for its reported
// seeds (docs/scenario.md, "Tuned learning rates").
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/run_config.h"

namespace commlab {

inline constexpr uint64_t kTuneSeedOffset = 1000;

// One grid value of one run over the tuning seeds.
struct LrTrial {
  double lr = 0;
  std::vector<double> tta_s;  // per tuning seed; NaN where the target was not reached
  std::vector<double> final_accuracy;
  double median_tta_s = 0;  // censored_tta's estimate (NaN: half or more did not reach)
  int reached = 0;
  double mean_final_accuracy = 0;
};

// A trial from its per-seed values (a time NaN, +inf or negative: the target was not reached).
LrTrial make_trial(double lr, const std::vector<double>& tta_s,
                   const std::vector<double>& final_accuracy);

// The trial chosen: the smallest censored median time-to-accuracy; when no trial has one (or on a
// tie), the higher mean final accuracy; then the smaller learning rate (the cautious choice).
// Requires a non-empty list.
size_t choose_trial(const std::vector<LrTrial>& trials);

// A run's tuning: its grid's trials and the learning rate chosen.
struct RunTuning {
  std::string run;
  uint64_t first_seed = 0;
  int seeds = 0;
  double target = 0;
  std::vector<LrTrial> trials;
  double chosen_lr = 0;
  double untuned_lr = 0;    // the run's training.lr as written
  int validation_rows = 0;  // training.validation_rows: > 0, the trials read validation rows
};

// The grid tuned for a run: its training.lr_grid; else, with `tune_all` and a training run, the
// run's lr x {1/2, 1, 2}; else none (the run keeps its lr).
std::vector<double> lr_grid_of(const RunConfig& run, bool tune_all);

// The tuning replicas' configurations: per tuned run (in order) and grid value, the run at that
// learning rate named "RUN@lr=X", seeds first_seed .. first_seed + tune_seeds - 1, no grid;
// with training.validation_rows > 0 evaluated on the validation rows (evaluate_on_validation).
std::vector<RunConfig> tuning_runs(const std::vector<RunConfig>& runs, bool tune_all);

// Where a tuning's trials were scored: "test set", or "validation: V training rows".
std::string tuning_evaluated_on(const RunTuning& tuning);

// summary.json's "lr_tuning": {"method", "seed_offset", "runs": [{"run", "seeds" [first, last],
// "target", "grid": [{"lr", "median_tta_s", "reached", "tta_s", "mean_final_accuracy"}],
// "chosen_lr", "untuned_lr" (training.lr as written), "chose_untuned" (the tuning kept it),
// "evaluated_on" ("test set", or "validation: V training rows" with training.validation_rows)}]}.
nlohmann::json lr_tuning_json(const std::vector<RunTuning>& tunings);
inline constexpr const char* kLrTuningMethod =
    "per run: the grid value with the smallest censored median time-to-accuracy over the tuning "
    "seeds (unreached at +inf); ties and none reached: the higher mean final accuracy, then the "
    "smaller lr";

}  // namespace commlab
