// Hierarchical collectives for clusters of multi-GPU nodes (ranks_per_node = g consecutive ranks
// share a node). The buffer is cut into g slices; local rank l is responsible for slice l.
//   all-reduce:     (1) ring reduce-scatter inside each node over NVLink, so local rank l holds
//                   slice l of the node's sum; (2) ring all-reduce of slice l among the ranks with
//                   local index l on every node (the only inter-node traffic: about 2S/g per
//                   rank); (3) ring all-gather inside each node. This is the bandwidth-optimal
//                   two-level form; NCCL's reduce-to-leader variant sends g times more inter-node.
//   reduce-scatter: (1), then a ring reduce-scatter of slice l across the nodes: rank
//                   node * g + l ends with sub-chunk `node` of slice l (1/N of the buffer).
//   all-gather:     the mirror image: ring all-gather of slice l across the nodes, then ring
//                   all-gather of the g slices inside each node.
// The rank count must be a multiple of g (checked; docs/collectives.md says why).
#include <stdexcept>

#include "collective/algorithms.h"
#include "io/status.h"

namespace commlab {

Plan build_hierarchical(const PlanRequest& req) {
  const int n = req.ranks;
  const int g = req.ranks_per_node;
  if (g < 1 || n % g != 0)
    throw bad_input("algorithm 'hier': ranks (" + std::to_string(n) +
                    ") must be a multiple of ranks per node (" + std::to_string(g) + ")");
  const int nodes = n / g;
  const bool rs = req.op != CollectiveOp::kAllGather;
  const bool ag = req.op != CollectiveOp::kReduceScatter;
  auto slice_begin = [&](int l) { return chunk_start(req.count, g, l); };
  Plan plan;
  std::vector<StepList> intra_rs, inter_rs, inter_ag, intra_ag;
  for (int node = 0; node < nodes; ++node) {
    RingRegion local{{}, 0, req.count};
    for (int l = 0; l < g; ++l) local.group.push_back(node * g + l);
    intra_rs.push_back(ring_reduce_scatter(local));  // local rank l ends with slice l
    intra_ag.push_back(ring_all_gather(local));
  }
  for (int l = 0; l < g; ++l) {
    RingRegion across{{}, slice_begin(l), slice_begin(l + 1) - slice_begin(l)};
    for (int node = 0; node < nodes; ++node) across.group.push_back(node * g + l);
    inter_rs.push_back(ring_reduce_scatter(across));  // sub-chunk m ends at node m
    inter_ag.push_back(ring_all_gather(across));
  }
  if (rs) append_steps(plan, merge_concurrent(intra_rs), "intra-node reduce-scatter");
  if (rs) append_steps(plan, merge_concurrent(inter_rs), "inter-node reduce-scatter");
  if (ag) append_steps(plan, merge_concurrent(inter_ag), "inter-node all-gather");
  if (ag) append_steps(plan, merge_concurrent(intra_ag), "intra-node all-gather");
  if (req.op == CollectiveOp::kAllReduce) {
    for (int c = 0; c <= g; ++c) plan.chunk_begin.push_back(slice_begin(c));
    for (int c = 0; c < g; ++c) plan.chunk_owner.push_back(c);
    return plan;
  }
  // Reduce-scatter / all-gather: sub-chunk m of slice l belongs to rank m * g + l.
  for (int l = 0; l < g; ++l) {
    const uint64_t size = slice_begin(l + 1) - slice_begin(l);
    for (int m = 0; m < nodes; ++m) {
      plan.chunk_begin.push_back(slice_begin(l) + chunk_start(size, nodes, m));
      plan.chunk_owner.push_back(m * g + l);
    }
  }
  plan.chunk_begin.push_back(req.count);
  return plan;
}

}  // namespace commlab
