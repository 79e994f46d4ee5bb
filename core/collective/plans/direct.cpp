// Direct (one-shot) collectives for small messages: one step, every rank talks to every other.
// All-reduce: each rank receives every other rank's whole buffer and adds it (n(n-1) transfers of
// S, latency 1 alpha); reduce-scatter / all-gather: chunk c goes straight to / from its owner c.
#include "collective/algorithms.h"

namespace commlab {

Plan build_direct(const PlanRequest& req) {
  Plan plan;
  const int n = req.ranks;
  for (int c = 0; c <= n; ++c) plan.chunk_begin.push_back(chunk_start(req.count, n, c));
  for (int c = 0; c < n; ++c) plan.chunk_owner.push_back(c);
  auto chunk = [&](int c) { return plan.chunk_begin[c + 1] - plan.chunk_begin[c]; };
  std::vector<Transfer> step;
  for (int src = 0; src < n; ++src) {
    for (int dst = 0; dst < n; ++dst) {
      if (src == dst) continue;
      switch (req.op) {
        case CollectiveOp::kAllReduce: step.push_back({src, dst, 0, req.count, true}); break;
        case CollectiveOp::kReduceScatter:
          step.push_back({src, dst, plan.chunk_begin[dst], chunk(dst), true});
          break;
        case CollectiveOp::kAllGather:
          step.push_back({src, dst, plan.chunk_begin[src], chunk(src), false});
          break;
        case CollectiveOp::kBroadcast:
          if (src == 0) step.push_back({0, dst, 0, req.count, false});
          break;
      }
    }
  }
  if (n > 1) plan.steps.push_back(PlanStep{std::move(step), 1, "direct"});
  return plan;
}

}  // namespace commlab
