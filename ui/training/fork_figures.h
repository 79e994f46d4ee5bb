#pragma once
// A live fork's samples hold the iterations of the run it continued up to the fork point, then its
// own (TrainingBridge puts the parent's first, as if the fork made them). Its time and bytes per
// iteration in the runs table are those of its own iterations: averaged with the parent's they
// would describe neither run.
#include <vector>

#include "train/trainer.h"

namespace commlab::ui {

struct OwnIterations {
  double s_per_iteration = 0;           // simulated seconds per iteration after the fork point
  double wire_bytes_per_iteration = 0;  // mean bytes on the wire of those iterations
  // The fork point's own sample is among `samples` and some iterations follow it; false (a sample
  // store thinned past it, or no iteration of its own yet): the figures above are 0.
  bool separated = false;
};

// The figures of the iterations after `forked_at` (> 0) in `samples` (iteration order).
OwnIterations own_iterations(const std::vector<Sample>& samples, int forked_at);

}  // namespace commlab::ui
