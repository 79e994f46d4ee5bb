// Hierarchical all-reduce for clusters of multi-GPU nodes (ranks_per_node consecutive ranks share a
// node): (1) ring reduce-scatter inside each node over NVLink, so local rank l holds slice l of the
// node's sum; (2) ring all-reduce of slice l among the ranks with local index l on every node (the
// only inter-node traffic: S/G per rank); (3) ring all-gather inside each node. This is the
// bandwidth-optimal two-level form; NCCL's reduce-to-leader variant sends G times more inter-node.
#include <stdexcept>

#include "collective/algorithms.h"

namespace commlab {

Plan build_hierarchical(const PlanRequest& req) {
  if (req.op != CollectiveOp::kAllReduce)
    throw std::invalid_argument(std::string("algorithm 'hier' implements allreduce only, not ") +
                                op_name(req.op));
  const int n = req.ranks;
  const int g = req.ranks_per_node;
  if (g < 1 || n % g != 0)
    throw std::invalid_argument("algorithm 'hier': ranks (" + std::to_string(n) +
                                ") must be a multiple of ranks per node (" + std::to_string(g) +
                                ")");
  const int nodes = n / g;
  Plan plan;
  std::vector<StepList> intra_rs, inter, intra_ag;
  for (int node = 0; node < nodes; ++node) {
    RingRegion local{{}, 0, req.count};
    for (int l = 0; l < g; ++l) local.group.push_back(node * g + l);
    intra_rs.push_back(ring_reduce_scatter(local));  // local rank l ends with slice l
    intra_ag.push_back(ring_all_gather(local));
  }
  for (int l = 0; l < g; ++l) {
    RingRegion across{{},
                      chunk_start(req.count, g, l),
                      chunk_start(req.count, g, l + 1) - chunk_start(req.count, g, l)};
    for (int node = 0; node < nodes; ++node) across.group.push_back(node * g + l);
    StepList steps = ring_reduce_scatter(across);
    StepList ag = ring_all_gather(across);
    steps.insert(steps.end(), ag.begin(), ag.end());
    inter.push_back(std::move(steps));
  }
  append_steps(plan, merge_concurrent(intra_rs), "intra-node reduce-scatter");
  append_steps(plan, merge_concurrent(inter), "inter-node all-reduce");
  append_steps(plan, merge_concurrent(intra_ag), "intra-node all-gather");
  for (int c = 0; c <= g; ++c) plan.chunk_begin.push_back(chunk_start(req.count, g, c));
  for (int c = 0; c < g; ++c) plan.chunk_owner.push_back(c);
  return plan;
}

}  // namespace commlab
