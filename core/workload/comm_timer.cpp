#include "workload/comm_timer.h"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "collective/algorithms.h"
#include "collective/simulated_executor.h"
#include "io/status.h"
#include "numeric/rng.h"
#include "topology/topology.h"

namespace commlab::workload {

namespace {
int server_of(const Topology& topology, int rank) {
  return topology.nodes()[topology.gpus().at(rank)].server;
}
}  // namespace

bool within_one_server(const Topology& topology, const std::vector<int>& ranks) {
  if (ranks.empty()) return false;
  const int first = server_of(topology, ranks.front());
  return first >= 0 && std::all_of(ranks.begin(), ranks.end(),
                                   [&](int r) { return server_of(topology, r) == first; });
}

bool within_one_server(const Topology& topology, int a, int b) {
  const int server = server_of(topology, a);
  return server >= 0 && server == server_of(topology, b);
}
namespace {

// The backend as a plan over the class's participants sees it: local rank i is global rank
// ranks[i]. The executor numbers a plan's ranks 0 .. plan.ranks - 1 and judges a step ring-like
// (its pipelined slices share every sender's program order) when every one of them sends: a plan
// numbered over all the cluster's ranks with one group taking part would be timed as independent
// connections, its reduce-scatter and all-gather phases overlapping, below the ring's bandwidth
// bound. Flows are mapped back to global ranks here; the executor's flow ids (the hash of source
// and destination) are recomputed on the global ranks, so ECMP picks the paths it picks for the
// global plan.
class ParticipantBackend final : public NetworkBackend {
 public:
  ParticipantBackend(NetworkBackend& inner, const std::vector<int>& ranks)
      : inner_(inner), ranks_(ranks) {}
  std::string name() const override { return inner_.name(); }
  const Topology& topology() const override { return inner_.topology(); }
  bool stateful() const override { return inner_.stateful(); }
  bool times_flow_graphs() const override { return inner_.times_flow_graphs(); }
  StepResult time_step(std::span<const Flow> flows, const StepOptions& options) override {
    std::vector<Flow> global(flows.begin(), flows.end());
    for (Flow& f : global) f = to_global(f);
    return inner_.time_step(global, options);
  }
  StepResult time_flow_graph(const FlowGraph& graph, const StepOptions& options) override {
    FlowGraph global = graph;
    for (Flow& f : global.flows) f = to_global(f);
    return inner_.time_flow_graph(global, options);
  }

 private:
  Flow to_global(Flow f) const {
    const auto src = static_cast<uint64_t>(f.src), dst = static_cast<uint64_t>(f.dst);
    f.src = ranks_[f.src];
    f.dst = ranks_[f.dst];
    if (f.id == hash_combine(src, dst))
      f.id = hash_combine(static_cast<uint64_t>(f.src), static_cast<uint64_t>(f.dst));
    return f;
  }

  NetworkBackend& inner_;
  const std::vector<int>& ranks_;
};

}  // namespace

CommTimer::CommTimer(NetworkBackend& backend, std::string algorithm, PipelineConfig pipeline)
    : backend_(backend), algorithm_(std::move(algorithm)), pipeline_(pipeline) {
  find_algorithm(algorithm_);  // throws for an unknown name
}

// An all-to-all over n ranks materialises n (n - 1) transfers per group, and a class of concurrent
// groups all of them at once: the same cap as the collective planner's (kMaxPlanTransfers), checked
// before anything is allocated, so 10,000 ranks is a one-line error instead of gigabytes.
void check_all_to_all_transfers(int group_size, size_t groups) {
  const uint64_t n = static_cast<uint64_t>(std::max(group_size, 0));
  const uint64_t transfers = n * (n > 0 ? n - 1 : 0) * static_cast<uint64_t>(groups);
  if (transfers > kMaxPlanTransfers)
    throw bad_input(
        "all-to-all over " + std::to_string(group_size) + " ranks" +
        (groups > 1 ? " in " + std::to_string(groups) + " concurrent groups" : std::string()) +
        " needs " + std::to_string(transfers) + " transfers, over the limit of " +
        std::to_string(kMaxPlanTransfers) + " (fewer ranks in the expert-parallel group)");
}

Plan CommTimer::local_plan(const CollectiveShape& shape) const {
  const int n = shape.group_size;
  if (shape.op == CommOp::kAllToAll) {
    // Every rank sends 1/n of its buffer to every other rank, all at once (one step).
    check_all_to_all_transfers(n, 1);
    Plan plan;
    plan.ranks = n;
    plan.count = shape.elements;
    PlanStep step;
    step.phase = "all-to-all";
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d)
        if (s != d)
          step.transfers.push_back(
              {s, d, chunk_start(shape.elements, n, d),
               chunk_start(shape.elements, n, d + 1) - chunk_start(shape.elements, n, d), false});
    plan.steps.push_back(std::move(step));
    return plan;
  }
  PlanRequest request;
  switch (shape.op) {
    case CommOp::kAllReduce: request.op = CollectiveOp::kAllReduce; break;
    case CommOp::kReduceScatter: request.op = CollectiveOp::kReduceScatter; break;
    case CommOp::kAllGather: request.op = CollectiveOp::kAllGather; break;
    case CommOp::kBroadcast: request.op = CollectiveOp::kBroadcast; break;
    case CommOp::kAllToAll: break;
  }
  request.ranks = n;
  request.count = shape.elements;
  request.time_only = true;
  request.skip = shape.skip;
  request.pipeline = pipeline_;
  request.ranks_per_node = std::max(1, n);
  return build_plan(algorithm_, request);
}

CommTiming CommTimer::time_collectives(const CollectiveShape& shape, const std::vector<int>& groups,
                                       const std::vector<std::vector<int>>& group_ranks) {
  if (shape.group_size < 2 || shape.elements == 0 || groups.empty()) return {};
  const bool cacheable = !backend_.stateful();
  auto key = std::make_pair(shape, groups);
  if (cacheable) {
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      ++hits_;
      return it->second;
    }
  }
  if (shape.op == CommOp::kAllToAll) check_all_to_all_transfers(shape.group_size, groups.size());
  const Plan local = local_plan(shape);
  // The plan runs over the ranks that take part (sorted), numbered 0 .. k - 1.
  std::vector<int> participants;
  for (int g : groups)
    participants.insert(participants.end(), group_ranks[g].begin(), group_ranks[g].end());
  std::sort(participants.begin(), participants.end());
  participants.erase(std::unique(participants.begin(), participants.end()), participants.end());
  std::vector<int> local_of(backend_.topology().ranks(), -1);
  for (size_t i = 0; i < participants.size(); ++i) local_of[participants[i]] = static_cast<int>(i);
  Plan merged;
  merged.op = local.op;
  merged.ranks = static_cast<int>(participants.size());
  merged.count = local.count;
  merged.pipeline = local.pipeline;
  for (const PlanStep& step : local.steps) {
    PlanStep out{{}, step.repeat, step.phase, step.pipelined};
    out.transfers.reserve(step.transfers.size() * groups.size());
    for (int g : groups) {
      const std::vector<int>& members = group_ranks[g];
      for (Transfer t : step.transfers) {
        t.src = local_of[members[t.src]];
        t.dst = local_of[members[t.dst]];
        out.transfers.push_back(t);
      }
    }
    merged.steps.push_back(std::move(out));
  }
  // Every rank in order: the local numbering is the global one.
  const bool identity = participants.size() == local_of.size();
  ParticipantBackend mapped(backend_, participants);
  ExecutorOptions options;
  options.backend = identity ? &backend_ : static_cast<NetworkBackend*>(&mapped);
  CollectiveReport report = execute_plan(merged, {}, options);
  CommTiming timing{report.time_s, report.bytes_on_wire};
  if (cacheable) cache_.emplace(std::move(key), timing);
  return timing;
}

std::vector<double> CommTimer::time_flows(const std::vector<Flow>& flows) {
  std::vector<double> finish(flows.size(), 0);
  if (flows.empty()) return finish;
  StepResult step = backend_.time_step(flows);
  for (size_t i = 0; i < flows.size(); ++i) finish[i] = step.flows[i].finish_s;
  return finish;
}

}  // namespace commlab::workload
