#include "collective/nccl/nccl_run.h"

#include "collective/algorithms.h"
#include "collective/nccl/nccl_protocol.h"
#include "collective/simulated_executor.h"

namespace commlab {

NcclPlan plan_nccl(const NcclTuner& tuner, PlanRequest request, const NcclOverrides& force) {
  NcclPlan out;
  out.setup = nccl_setup(tuner, request.op, request.count * sizeof(float), force);
  request.pipeline = out.setup.pipeline;
  out.plan = build_plan(nccl_plan_name(out.setup.choice.algo), request);
  mark_pipelined(out.plan);  // NCCL pipelines its tree by chunks too
  return out;
}

NcclTimed time_nccl(NetworkBackend& backend, const NcclTuner& tuner, CollectiveOp op,
                    uint64_t bytes, const NcclOverrides& force) {
  PlanRequest req;
  req.op = op;
  req.ranks = tuner.inputs().ranks;
  req.count = bytes / sizeof(float);
  req.time_only = true;
  req.ranks_per_node = tuner.inputs().ranks / tuner.inputs().nodes;
  const NcclPlan nccl = plan_nccl(tuner, req, force);
  ChannelBackend channels(backend, nccl.setup.channel);
  ExecutorOptions ex;
  ex.backend = &channels;
  return {nccl.setup, execute_plan(nccl.plan, {}, ex).time_s + nccl.setup.base_latency_s};
}

}  // namespace commlab
