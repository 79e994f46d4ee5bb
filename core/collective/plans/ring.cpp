// Ring all-reduce as NCCL runs it: reduce-scatter (n-1 steps) then all-gather (n-1 steps), each
// step moving one chunk of count/n elements from every rank to its successor. SkipReduce runs only
// n-1-s reduce-scatter steps (the SkipReduce paper, docs/papers.md); the same rule applies to a standalone
// reduce-scatter. Beyond the paper, a standalone all-gather with skip s runs n-1-s steps: the s
// ranks just before a chunk's owner never receive it and keep their own copy of that region.
// The ring's steps are marked pipelined: the executor's time plane splits every chunk into NCCL
// slices and loops (docs/collectives.md); the data plane is the same either way.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "collective/algorithms.h"

namespace commlab {

namespace {

uint64_t chunk_size(const RingRegion& r, int c) {
  uint64_t n = r.group.size();
  return chunk_start(r.count, n, c + 1) - chunk_start(r.count, n, c);
}

Transfer chunk_transfer(const RingRegion& r, int from_local, int c, bool reduce) {
  int n = static_cast<int>(r.group.size());
  return Transfer{r.group[from_local], r.group[(from_local + 1) % n],
                  r.begin + chunk_start(r.count, n, c), chunk_size(r, c), reduce};
}

// Time-only plans of equal chunks: every step is the same set of flows, so one step stands for all.
Plan folded_ring(const PlanRequest& req, int skip) {
  Plan plan;
  int n = req.ranks;
  uint64_t chunk = req.count / n;
  std::vector<Transfer> step;
  step.reserve(n);
  for (int r = 0; r < n; ++r) step.push_back(Transfer{r, (r + 1) % n, 0, chunk, true});
  bool rs = req.op == CollectiveOp::kAllReduce || req.op == CollectiveOp::kReduceScatter;
  bool ag = req.op == CollectiveOp::kAllReduce || req.op == CollectiveOp::kAllGather;
  if (rs && n - 1 - skip > 0)
    plan.steps.push_back(PlanStep{step, static_cast<uint32_t>(n - 1 - skip), "reduce-scatter"});
  for (Transfer& t : step) t.reduce = false;
  const int ag_steps = req.op == CollectiveOp::kAllGather ? n - 1 - skip : n - 1;
  if (ag && ag_steps > 0)
    plan.steps.push_back(PlanStep{step, static_cast<uint32_t>(ag_steps), "all-gather"});
  return plan;
}

Plan ring_broadcast(const PlanRequest& req) {
  // Pipelined chain from rank 0: the buffer is cut into n chunks; at step t rank r forwards chunk
  // t - r to r + 1, so the last chunk reaches rank n-1 after 2n - 3 steps.
  Plan plan;
  int n = req.ranks;
  RingRegion region{std::vector<int>(n), 0, req.count};
  std::iota(region.group.begin(), region.group.end(), 0);
  for (int t = 0; t + 1 < 2 * n - 1 && n > 1; ++t) {
    std::vector<Transfer> step;
    for (int r = 0; r + 1 < n; ++r)
      if (t - r >= 0 && t - r < n) step.push_back(chunk_transfer(region, r, t - r, false));
    plan.steps.push_back(PlanStep{step, 1, "broadcast"});
  }
  return plan;
}

}  // namespace

StepList ring_reduce_scatter(const RingRegion& region, int skip, int rotation) {
  int n = static_cast<int>(region.group.size());
  StepList steps;
  for (int k = 0; k < n - 1 - skip; ++k) {
    std::vector<Transfer> step;
    step.reserve(n);
    // Chunk c enters the ring at its owner + skip + 1 and reaches the owner after n-1-skip hops.
    for (int i = 0; i < n; ++i)
      step.push_back(chunk_transfer(region, i, mod(i - skip - 1 - k - rotation, n), true));
    steps.push_back(std::move(step));
  }
  return steps;
}

StepList ring_all_gather(const RingRegion& region, int rotation, int skip) {
  int n = static_cast<int>(region.group.size());
  StepList steps;
  for (int k = 0; k < n - 1 - skip; ++k) {
    std::vector<Transfer> step;
    step.reserve(n);
    for (int i = 0; i < n; ++i)
      step.push_back(chunk_transfer(region, i, mod(i - k - rotation, n), false));
    steps.push_back(std::move(step));
  }
  return steps;
}

Plan build_ring(const PlanRequest& req) {
  const int n = req.ranks;
  const int skip = std::clamp(req.skip.skip, 0, std::max(n - 1, 0));
  const int rotation = mod(req.skip.rotation, n);
  if (req.op == CollectiveOp::kBroadcast) return ring_broadcast(req);
  Plan plan;
  if (req.time_only && req.count % n == 0) {
    plan = folded_ring(req, skip);
  } else {
    RingRegion region{std::vector<int>(n), 0, req.count};
    std::iota(region.group.begin(), region.group.end(), 0);
    if (req.op == CollectiveOp::kAllReduce || req.op == CollectiveOp::kReduceScatter)
      append_steps(plan, ring_reduce_scatter(region, skip, rotation), "reduce-scatter");
    if (req.op == CollectiveOp::kAllReduce)
      append_steps(plan, ring_all_gather(region, rotation), "all-gather");
    if (req.op == CollectiveOp::kAllGather)
      append_steps(plan, ring_all_gather(region, rotation, skip), "all-gather");
  }
  for (PlanStep& step : plan.steps) step.pipelined = true;
  for (int c = 0; c <= n; ++c) plan.chunk_begin.push_back(chunk_start(req.count, n, c));
  for (int c = 0; c < n; ++c) plan.chunk_owner.push_back((c + rotation) % n);
  // Reduce: the s ring-successors of the owner are missing from its sum. All-gather: the s ranks
  // before the owner never receive the chunk.
  const int sign = req.op == CollectiveOp::kAllGather ? -1 : 1;
  for (int c = 0; c < n; ++c)
    for (int j = 1; j <= skip; ++j)
      plan.dropped.push_back({c, mod(plan.chunk_owner[c] + sign * j, n)});
  return plan;
}

}  // namespace commlab
