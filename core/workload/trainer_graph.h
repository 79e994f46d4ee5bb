#pragma once
// What the data-parallel trainer (train/trainer.h) runs in one iteration, as a graph per rank, so
// `train --emit-trace` can write it as a Chakra trace: the forward pass layer by layer, the
// backward pass in reverse, one DP all-reduce per gradient bucket on a communication stream as
// soon as its layer's backward ends (DDP, as compute_model.h's overlap_step times it: buckets in
// readiness order, one at a time), then the optimizer step. Compute nodes carry the trainer's own
// durations, so a replay's compute is the trainer's to the nanosecond.
#include <string>

#include "train/trainer.h"
#include "workload/graph.h"

namespace commlab::workload {

// wire_bytes: bytes per gradient element on the wire (4: FP32, 2: BF16).
Graph trainer_graph(const DataParallelTrainer& trainer, int wire_bytes, const std::string& name);

}  // namespace commlab::workload
