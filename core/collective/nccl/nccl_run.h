#pragma once
// One collective as NCCL would run it, timed on the time plane (no data): the tuner's choice for
// the size (collective/nccl/tuner.h), its plan and pipelining, its channels and protocol
// (collective/nccl/nccl_protocol.h) over `backend`, plus NCCL's base latency. What `collective --algo
// auto`, the Throughput page and the tuner tests time.
#include <cstdint>

#include "collective/nccl/tuner.h"
#include "network/backend.h"

namespace commlab {

struct NcclTimed {
  NcclSetup setup;
  double time_s = 0;
};

NcclTimed time_nccl(NetworkBackend& backend, const NcclTuner& tuner, CollectiveOp op,
                    uint64_t bytes, const NcclOverrides& force = {});

}  // namespace commlab
