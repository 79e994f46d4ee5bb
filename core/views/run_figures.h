#pragma once
// The runs table's numbers for one run (Training tab, beside the charts), from the samples the
// run produced: final test accuracy, simulated time per iteration, time to the target accuracy
// (the same smoothed crossing as summary.json, scenario/run/tta_stats.h), and bytes on the wire.
// One seed: the Compare tab gives intervals over seeds. From a thinned sample store (the GUI keeps
// at most 4,096 samples a run) the figures are those of the samples kept.
#include <cstdint>
#include <vector>

#include "train/trainer.h"

namespace commlab::views {

struct RunFigures {
  double final_accuracy = -1;           // the last evaluation's test accuracy; -1: none yet
  double s_per_iteration = 0;           // simulated seconds per iteration so far
  double tta_s = -1;                    // simulated seconds to `target`; -1: not reached
  double wire_bytes_per_iteration = 0;  // mean over the samples given
};

RunFigures run_figures(const std::vector<Sample>& samples, double target, int tta_window);

// Time-to-accuracy speedup of `run` over `baseline` (baseline TTA / run TTA); -1 when either
// did not reach the target.
double tta_speedup(const RunFigures& baseline, const RunFigures& run);

}  // namespace commlab::views
