#pragma once
// The Training tab's convergence x-axis until the user picks one: simulated time where the runs on
// screen differ in time per iteration (a codec, SkipReduce, trimming, another cluster or
// algorithm), so the accuracy chart shows which run reaches the target first in time, as a race;
// iterations where they do not (a learning rate, a seed), where both axes tell the same story and
// iterations read better.
#include <vector>

#include "train/trainer.h"

namespace commlab::ui {

// Simulated seconds per iteration at the end of `samples` (iteration order): the slope over the
// last 8 sample intervals, so a live fork is measured on its own iterations and not averaged with
// the run it continued; from the start for one sample. 0 when there is no iteration yet.
double recent_s_per_iteration(const std::vector<Sample>& samples);

// Whether the runs' recent times per iteration differ: the largest exceeds the smallest by more
// than `tolerance` (relative). Runs with no iteration yet are left out; fewer than two runs never
// differ.
bool time_per_iteration_differs(const std::vector<const std::vector<Sample>*>& runs,
                                double tolerance = 0.02);

}  // namespace commlab::ui
