#include "collective/nccl/nccl_run.h"

#include "collective/algorithms.h"
#include "collective/executor.h"
#include "collective/nccl/nccl_protocol.h"

namespace commlab {

NcclTimed time_nccl(NetworkBackend& backend, const NcclTuner& tuner, CollectiveOp op,
                    uint64_t bytes, const NcclOverrides& force) {
  NcclTimed out;
  out.setup = nccl_setup(tuner, op, bytes, force);
  ChannelBackend channels(backend, out.setup.channel);
  PlanRequest req;
  req.op = op;
  req.ranks = tuner.inputs().ranks;
  req.count = bytes / sizeof(float);
  req.time_only = true;
  req.pipeline = out.setup.pipeline;
  req.ranks_per_node = tuner.inputs().ranks / tuner.inputs().nodes;
  Plan plan = build_plan(nccl_plan_name(out.setup.choice.algo), req);
  mark_pipelined(plan);  // NCCL pipelines its tree by chunks too
  ExecutorOptions ex;
  ex.backend = &channels;
  out.time_s = execute_plan(plan, {}, ex).time_s + out.setup.base_latency_s;
  return out;
}

}  // namespace commlab
