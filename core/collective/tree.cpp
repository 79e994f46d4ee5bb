// Double binary tree (NCCL): two complete binary trees over the ranks, the second the mirror image
// of the first (position i is rank i in tree 0 and rank n-1-i in tree 1), so most ranks that are
// interior in one tree are leaves in the other. Each tree reduces half of the buffer up to its
// root, level by level, then broadcasts it back down. Per rank traffic is about 2S, latency O(log
// n). Like NCCL's tree, it implements all-reduce and broadcast only.
#include <bit>
#include <stdexcept>

#include "collective/algorithms.h"

namespace commlab {

namespace {
int depth_of(int position) {
  return std::bit_width(static_cast<unsigned>(position + 1)) - 1;
}
}  // namespace

Plan build_tree(const PlanRequest& req) {
  if (req.op != CollectiveOp::kAllReduce && req.op != CollectiveOp::kBroadcast)
    throw std::invalid_argument(std::string("algorithm 'tree' implements allreduce and broadcast "
                                            "only (as NCCL's tree), not ") +
                                op_name(req.op));
  Plan plan;
  const int n = req.ranks;
  if (n < 2) return plan;
  const int max_depth = depth_of(n - 1);
  const uint64_t half = req.count / 2;
  // tree t covers [begin[t], begin[t] + size[t]) and maps position i to rank(t, i).
  const bool broadcast = req.op == CollectiveOp::kBroadcast;
  const int trees = broadcast ? 1 : 2;
  const uint64_t begin[2] = {0, half};
  const uint64_t size[2] = {broadcast ? req.count : half, req.count - half};
  auto rank = [&](int t, int i) { return t == 0 ? i : n - 1 - i; };
  plan.chunk_begin = {0, half, req.count};
  plan.chunk_owner = {rank(0, 0), rank(1, 0)};

  if (!broadcast) {
    for (int level = max_depth; level >= 1; --level) {
      std::vector<Transfer> step;
      for (int t = 0; t < trees; ++t)
        for (int i = 0; i < n; ++i)
          if (depth_of(i) == level && size[t] > 0)
            step.push_back({rank(t, i), rank(t, (i - 1) / 2), begin[t], size[t], true});
      plan.steps.push_back(PlanStep{step, 1, "tree-reduce"});
    }
  }
  for (int level = 1; level <= max_depth; ++level) {
    std::vector<Transfer> step;
    for (int t = 0; t < trees; ++t)
      for (int i = 0; i < n; ++i)
        if (depth_of(i) == level && size[t] > 0)
          step.push_back({rank(t, (i - 1) / 2), rank(t, i), begin[t], size[t], false});
    plan.steps.push_back(PlanStep{step, 1, "tree-broadcast"});
  }
  return plan;
}

}  // namespace commlab
