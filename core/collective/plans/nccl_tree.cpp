// NCCL's tree all-reduce (src/graph/trees.cc, src/device/all_reduce.h runTreeUpDown): inside a
// node the GPUs form a chain, and the nodes' first GPUs form a double binary tree. Reduce: up the
// chain (local rank g-1 -> ... -> 0, each adding what it received), then up the node tree; the
// broadcast runs the other way. Its depth is 2 ((g-1) + log2(nodes)) steps, the latency NCCL's
// model charges; unlike the rank-level "tree" plan, only one GPU per node and tree edge crosses
// the network. The time plane pipelines the steps (mark_pipelined); the data plane is exact.
#include <numeric>
#include <stdexcept>

#include "collective/algorithms.h"
#include "io/status.h"

namespace commlab {

Plan build_nccl_tree(const PlanRequest& req) {
  const int n = req.ranks;
  const int g = std::max(1, std::min(req.ranks_per_node, n));
  if (n % g != 0)
    throw bad_input("nccl-tree: " + std::to_string(n) + " ranks are not whole nodes of " +
                    std::to_string(g));
  const int nodes = n / g;
  Plan plan;
  // Up the chain in every node at once: step k moves local g-1-k to g-2-k.
  for (int k = 0; k + 1 < g; ++k) {
    std::vector<Transfer> step;
    for (int node = 0; node < nodes; ++node)
      step.push_back(Transfer{node * g + g - 1 - k, node * g + g - 2 - k, 0, req.count, true});
    plan.steps.push_back(PlanStep{step, 1, "chain-reduce"});
  }
  // The leaders' double binary tree: the rank-level tree over nodes, renamed to local rank 0.
  if (nodes > 1) {
    PlanRequest sub = req;
    sub.ranks = nodes;
    sub.skip = {};
    sub.time_only = false;
    Plan tree = build_tree(sub);
    for (PlanStep& step : tree.steps) {
      for (Transfer& t : step.transfers) {
        t.src *= g;
        t.dst *= g;
      }
      plan.steps.push_back(std::move(step));
    }
  }
  // Down the chain: local k copies the result to k+1.
  for (int k = 0; k + 1 < g; ++k) {
    std::vector<Transfer> step;
    for (int node = 0; node < nodes; ++node)
      step.push_back(Transfer{node * g + k, node * g + k + 1, 0, req.count, false});
    plan.steps.push_back(PlanStep{step, 1, "chain-broadcast"});
  }
  plan.chunk_begin = {0, req.count};
  plan.chunk_owner = {0};
  return plan;
}

}  // namespace commlab
