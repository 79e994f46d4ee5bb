#pragma once
// A chain of pipelined plan steps as a flow graph (network/backend.h, FlowGraph), for backends
// that time flows themselves (the packet backend): every transfer is cut into the slices the
// closed form uses (executor.h, pipeline_time), and slice k of a step starts when slice k of the
// latest earlier step that delivered to its sender has arrived and settled (been reduced), and
// when the previous slice on its connection has left the sender. A loop starts when the previous
// loop's last slice has arrived, as in pipeline_time.
#include <cstdint>
#include <span>
#include <vector>

#include "network/backend.h"

namespace commlab {

struct PipelinedStep {
  std::vector<Flow> flows;  // whole transfers (all slices of all loops)
  uint32_t repeat = 1;
  double settle_s = 0;  // per slice at its receiver: reduction and codec time
  // Connections: (sender, receiver) when every rank sends (a ring's steps follow each other on
  // the same connection), else (sender, receiver, phase), as pipeline_time numbers them.
  bool every_rank_sends = true;
  uint64_t phase = 0;
};

// The graph of loop `loop` (of `loops`, each of `slices` slices): slice p = loop * slices + k of
// a transfer of B bytes carries [B p / m, B (p+1) / m) with m = loops * slices. Flows are ordered
// by step (repetitions expanded), then slice, then transfer.
FlowGraph pipeline_graph(std::span<const PipelinedStep> steps, int ranks, uint64_t loop,
                         uint64_t loops, uint64_t slices);

struct PipelineGraphTime {
  double time_s = 0;  // the loops one after the other: each its latest arrival plus settle
  uint64_t trimmed = 0;
  uint64_t dropped = 0;
};

// Times every loop's graph on `backend` (which must time flow graphs).
PipelineGraphTime time_pipeline_graph(NetworkBackend& backend, std::span<const PipelinedStep> steps,
                                      int ranks, uint64_t loops, uint64_t slices);

}  // namespace commlab
