#include "collective/algorithms.h"

#include <algorithm>
#include <stdexcept>

namespace commlab {

const std::vector<Algorithm>& algorithms() {
  static const std::vector<Algorithm> table = {
      {"ring", "ring reduce-scatter + all-gather, bandwidth-optimal; SkipReduce applies here",
       &build_ring},
      {"tree", "double binary tree (NCCL): each tree reduces and broadcasts half the data",
       &build_tree},
      {"hd", "recursive halving-doubling (Rabenseifner), 2 log2 N steps", &build_halving_doubling},
      {"hier", "hierarchical: intra-node reduce-scatter, inter-node ring, intra-node all-gather",
       &build_hierarchical},
      {"direct", "one-shot: every rank sends its data straight to every other (small messages)",
       &build_direct},
      {"nccl-tree",
       "NCCL's tree: a chain inside each node, a double binary tree over the nodes (all-reduce)",
       &build_nccl_tree},
  };
  return table;
}

const Algorithm& find_algorithm(const std::string& name) {
  std::string known;
  for (const Algorithm& a : algorithms()) {
    if (a.name == name) return a;
    known += (known.empty() ? "" : ", ") + a.name;
  }
  throw std::invalid_argument("unknown algorithm '" + name + "' (expected " + known + ")");
}

// Upper bound of the transfers a plan materialises (time-only rings of equal chunks fold to 2n).
uint64_t estimated_transfers(const std::string& algorithm, const PlanRequest& r) {
  const uint64_t n = static_cast<uint64_t>(r.ranks);
  uint64_t log_n = 1;
  while ((1ull << log_n) < n) ++log_n;
  if (algorithm == "direct") return n * n;
  if (algorithm == "ring") return r.time_only && r.count % n == 0 ? 2 * n : 2 * n * n;
  if (algorithm == "hier") {
    const uint64_t g = static_cast<uint64_t>(std::max(r.ranks_per_node, 1));
    return 2 * n * (g + n / g);
  }
  return 2 * n * (log_n + 2);  // tree, hd
}

Plan build_plan(const std::string& algorithm, const PlanRequest& request) {
  if (request.ranks < 1) throw std::invalid_argument("a collective needs at least one rank");
  const Algorithm& a = find_algorithm(algorithm);
  if (estimated_transfers(a.name, request) > kMaxPlanTransfers)
    throw std::invalid_argument(
        "algorithm '" + a.name + "' on " + std::to_string(request.ranks) + " ranks needs about " +
        std::to_string(estimated_transfers(a.name, request)) + " transfers, over the limit of " +
        std::to_string(kMaxPlanTransfers) +
        " (fewer ranks; for ring, a size divisible by the ranks with --time-only folds the plan)");
  if (request.skip.skip > 0 && (a.name == "hier" || a.name == "direct" || a.name == "nccl-tree"))
    throw std::invalid_argument("SkipReduce skips steps of ring, tree or hd; algorithm '" + a.name +
                                "' has none to skip");
  if (request.skip.skip > 0 && request.op == CollectiveOp::kBroadcast)
    throw std::invalid_argument("SkipReduce does not apply to broadcast");
  Plan plan = a.build(request);
  plan.op = request.op;
  plan.ranks = request.ranks;
  plan.count = request.count;
  plan.pipeline = request.pipeline;
  // Unbiased SkipReduce: each reduced chunk is rescaled by ranks / (ranks whose data it holds).
  const bool reducing =
      request.op == CollectiveOp::kAllReduce || request.op == CollectiveOp::kReduceScatter;
  if (request.unbiased_skip && reducing && !plan.dropped.empty()) {
    std::vector<int> missing(plan.chunk_owner.size(), 0);
    for (const DroppedContribution& d : plan.dropped) ++missing[d.chunk];
    plan.chunk_scale.resize(missing.size());
    for (size_t c = 0; c < missing.size(); ++c)
      plan.chunk_scale[c] = static_cast<double>(request.ranks) / (request.ranks - missing[c]);
  }
  return plan;
}

StepList merge_concurrent(const std::vector<StepList>& lists) {
  StepList merged;
  for (const StepList& list : lists) {
    if (merged.size() < list.size()) merged.resize(list.size());
    for (size_t i = 0; i < list.size(); ++i)
      merged[i].insert(merged[i].end(), list[i].begin(), list[i].end());
  }
  return merged;
}

void append_steps(Plan& plan, const StepList& steps, const std::string& phase) {
  for (const auto& transfers : steps) plan.steps.push_back(PlanStep{transfers, 1, phase});
}

uint64_t Plan::total_steps() const {
  uint64_t n = 0;
  for (const PlanStep& s : steps) n += s.repeat;
  return n;
}

const char* op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce: return "allreduce";
    case CollectiveOp::kReduceScatter: return "reducescatter";
    case CollectiveOp::kAllGather: return "allgather";
    case CollectiveOp::kBroadcast: return "broadcast";
  }
  return "?";
}

CollectiveOp parse_op(const std::string& name) {
  for (CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter,
                          CollectiveOp::kAllGather, CollectiveOp::kBroadcast})
    if (name == op_name(op)) return op;
  throw std::invalid_argument("unknown operation '" + name +
                              "' (expected allreduce, reducescatter, allgather or broadcast)");
}

double busbw_factor(CollectiveOp op, int ranks) {
  double n = ranks;
  switch (op) {
    case CollectiveOp::kAllReduce: return 2.0 * (n - 1) / n;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather: return (n - 1) / n;
    case CollectiveOp::kBroadcast: return 1.0;
  }
  return 1.0;
}

}  // namespace commlab
