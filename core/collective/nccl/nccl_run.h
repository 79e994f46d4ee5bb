#pragma once
// One collective as NCCL would run it, timed on the time plane (no data): the tuner's choice for
// the size (collective/nccl/tuner.h), its plan and pipelining, its channels and protocol
// (collective/nccl/nccl_protocol.h) over `backend`, plus NCCL's base latency. What `collective
// --algo auto`, the Throughput page and the tuner tests time.
#include <cstdint>

#include "collective/algorithms.h"
#include "collective/nccl/tuner.h"
#include "collective/plan.h"
#include "network/backend.h"

namespace commlab {

// The plan NCCL would run for `request` (op, ranks, count, skip, ...): the tuner's algorithm for
// the size, with its pipelining, marked pipelined. Run it over ChannelBackend(backend,
// setup.channel) and add setup.base_latency_s. time_nccl() times it; `collective --algo auto` also
// moves real buffers through it.
struct NcclPlan {
  NcclSetup setup;
  Plan plan;
};

NcclPlan plan_nccl(const NcclTuner& tuner, PlanRequest request, const NcclOverrides& force = {});

struct NcclTimed {
  NcclSetup setup;
  double time_s = 0;
};

NcclTimed time_nccl(NetworkBackend& backend, const NcclTuner& tuner, CollectiveOp op,
                    uint64_t bytes, const NcclOverrides& force = {});

}  // namespace commlab
