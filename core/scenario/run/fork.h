#pragma once
// Forks: a run that continues another's training from one of its iterations with new settings, as
// a branch off its curve (the GUI's live edits, `run --fork-at K`). Up to the fork point the
// iterations are the parent's, bit for bit; after it the fork trains with its own settings.
#include <string>

#include "scenario/run_config.h"

namespace commlab {

// What a fork may change: the techniques, the collective, the cluster and packet network, the
// learning-rate schedule (training.lr, momentum, weight_decay, warmup, decay), the iteration
// count and target, and workload.time_as. Everything else (seed, ranks, batch, sharding,
// evaluation, optimizer kind, the model and data) must equal the parent's: it is the same training.
// Neither side may run the packet backend or a compression baseline (top-k, PowerSGD): their
// state (queues and background traffic, error-feedback residuals) is not carried over, so the
// fork would not be the same run continued.
// "" when `child` can fork from `parent`, else a one-line message naming the first field.
std::string fork_problem(const RunConfig& parent, const RunConfig& child);

}  // namespace commlab
