#include "collective/algorithms.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <optional>
#include <stdexcept>

#include "collective/collective_settings.h"
#include "io/status.h"

namespace commlab {

namespace {

constexpr CollectiveOp kAllOps[] = {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter,
                                    CollectiveOp::kAllGather, CollectiveOp::kBroadcast};

uint64_t ranks_of(const PlanRequest& r) {
  return static_cast<uint64_t>(r.ranks);
}
uint64_t ceil_log2(uint64_t n) {
  uint64_t log_n = 1;
  while ((1ull << log_n) < n) ++log_n;
  return log_n;
}
int floor_log2(int ranks) {
  return std::bit_width(static_cast<unsigned>(std::max(ranks, 1))) - 1;
}

uint64_t ring_transfers(const PlanRequest& r) {
  const uint64_t n = ranks_of(r);
  return r.time_only && r.count % n == 0 ? 2 * n : 2 * n * n;
}
uint64_t logarithmic_transfers(const PlanRequest& r) {  // tree, hd, nccl-tree
  return 2 * ranks_of(r) * (ceil_log2(ranks_of(r)) + 2);
}
uint64_t hierarchical_transfers(const PlanRequest& r) {
  const uint64_t n = ranks_of(r), g = static_cast<uint64_t>(std::max(r.ranks_per_node, 1));
  return 2 * n * (g + n / g);
}
uint64_t direct_transfers(const PlanRequest& r) {
  return ranks_of(r) * ranks_of(r);
}

SkipLimit ring_skip(int ranks) {
  return {std::max(ranks - 1, 0), "steps (N-1)"};
}
SkipLimit tree_skip(int ranks) {
  return {floor_log2(ranks), "reduce levels (its depth)"};
}
SkipLimit hd_skip(int ranks) {
  return {floor_log2(ranks), "halving rounds (log2 N)"};
}

}  // namespace

bool Algorithm::supports(CollectiveOp op) const {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

const std::vector<Algorithm>& algorithms() {
  const std::vector<CollectiveOp> all(std::begin(kAllOps), std::end(kAllOps));
  const std::vector<CollectiveOp> reducing_and_gather = {
      CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter, CollectiveOp::kAllGather};
  static const std::vector<Algorithm> table = {
      {"ring", "ring reduce-scatter + all-gather, bandwidth-optimal; SkipReduce applies here",
       &build_ring, all, &ring_transfers, &ring_skip},
      {"tree", "double binary tree (NCCL): each tree reduces and broadcasts half the data",
       &build_tree, all, &logarithmic_transfers, &tree_skip, false, RankLayout::kTree},
      {"hd", "recursive halving-doubling (Rabenseifner), 2 log2 N steps", &build_halving_doubling,
       all, &logarithmic_transfers, &hd_skip, false, RankLayout::kGrid},
      {"hier", "hierarchical: intra-node reduce-scatter, inter-node ring, intra-node all-gather",
       &build_hierarchical, reducing_and_gather, &hierarchical_transfers, nullptr, true,
       RankLayout::kNodes},
      {"direct", "one-shot: every rank sends its data straight to every other (small messages)",
       &build_direct, all, &direct_transfers},
      {"nccl-tree",
       "NCCL's tree: a chain inside each node, a double binary tree over the nodes (all-reduce)",
       &build_nccl_tree,
       {CollectiveOp::kAllReduce},
       &logarithmic_transfers,
       nullptr,
       false,
       RankLayout::kTree},
  };
  return table;
}

const Algorithm* lookup_algorithm(const std::string& name) {
  for (const Algorithm& a : algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

const Algorithm& find_algorithm(const std::string& name) {
  if (const Algorithm* a = lookup_algorithm(name)) return *a;
  std::string known;
  for (const Algorithm& a : algorithms()) known += (known.empty() ? "" : ", ") + a.name;
  throw bad_input("unknown algorithm '" + name + "' (expected " + known + ")");
}

std::string skipping_algorithms_text() {
  std::vector<std::string> names;
  for (const Algorithm& a : algorithms())
    if (a.skips()) names.push_back(a.name);
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

void check_plan_sizes(const std::string& algorithm, PlanRequest request, uint64_t min_bytes,
                      uint64_t max_bytes) {
  const Algorithm& a = find_algorithm(algorithm);
  for (uint64_t bytes = min_bytes; bytes <= max_bytes && bytes > 0; bytes *= 2) {
    request.count = std::max<uint64_t>(bytes / sizeof(float), 1);
    if (a.transfers(request) > kMaxPlanTransfers) build_plan(algorithm, request);  // throws
    if (bytes > max_bytes / 2) break;
  }
}

Plan build_plan(const std::string& algorithm, const PlanRequest& request) {
  if (request.ranks < 1) throw bad_input("a collective needs at least one rank");
  const Algorithm& a = find_algorithm(algorithm);
  if (!a.supports(request.op)) {
    std::string ops;
    for (size_t i = 0; i < a.ops.size(); ++i)
      ops += std::string(i == 0 ? "" : i + 1 == a.ops.size() ? " and " : ", ") + op_name(a.ops[i]);
    throw bad_input("algorithm '" + a.name + "' implements " + ops + ", not " +
                    op_name(request.op));
  }
  if (const uint64_t transfers = a.transfers(request); transfers > kMaxPlanTransfers)
    throw bad_input(
        "algorithm '" + a.name + "' on " + std::to_string(request.ranks) + " ranks needs about " +
        std::to_string(transfers) + " transfers, over the limit of " +
        std::to_string(kMaxPlanTransfers) +
        " (fewer ranks; for ring, a size divisible by the ranks with --time-only folds the plan)");
  if (request.skip.rotation < 0 || request.skip.rotation >= std::max(request.ranks, 1))
    throw StatusError("rotation", "expected 0 to ranks - 1 (" + std::to_string(request.ranks - 1) +
                                      "), got " + std::to_string(request.skip.rotation));
  // A skip beyond the algorithm's limit would be clamped: the plan would not be the one asked for.
  if (std::optional<Status> bad = skip_problem(a.name, request.ranks, request.skip.skip))
    throw StatusError(*bad);
  if (request.skip.skip > 0 && !a.skips())
    throw bad_input("SkipReduce skips steps of " + skipping_algorithms_text() + "; algorithm '" +
                    a.name + "' has none to skip");
  if (request.skip.skip > 0 && request.op == CollectiveOp::kBroadcast)
    throw bad_input("SkipReduce does not apply to broadcast");
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
  throw bad_input("unknown operation '" + name +
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
