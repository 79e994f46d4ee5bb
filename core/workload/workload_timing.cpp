#include "workload/workload_timing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "collective/algorithms.h"
#include "collective/simulated_executor.h"
#include "io/status.h"
#include "topology/topology.h"
#include "workload/comm_timer.h"

namespace commlab {

namespace {

int rank_of(const Parallelism& p, int d, int s, int t) {
  return (d * p.pp + s) * p.tp + t;
}

// The groups of one message kind, each a list of ranks in ring order.
std::vector<std::vector<int>> groups_of(MessageKind kind, const Parallelism& p) {
  std::vector<std::vector<int>> groups;
  if (kind == MessageKind::kTpAllReduce) {
    for (int d = 0; d < p.dp; ++d)
      for (int s = 0; s < p.pp; ++s) {
        groups.emplace_back();
        for (int t = 0; t < p.tp; ++t) groups.back().push_back(rank_of(p, d, s, t));
      }
  } else {  // DP: same (stage, tp index) across data-parallel replicas
    for (int s = 0; s < p.pp; ++s)
      for (int t = 0; t < p.tp; ++t) {
        groups.emplace_back();
        for (int d = 0; d < p.dp; ++d) groups.back().push_back(rank_of(p, d, s, t));
      }
  }
  return groups;
}

// One collective (reduce-scatter, all-gather or all-reduce) in every group at once.
double time_groups(const std::vector<std::vector<int>>& groups, CollectiveOp op, uint64_t elements,
                   int skip, NetworkBackend& backend) {
  if (groups.empty() || groups[0].size() < 2 || elements == 0) return 0;
  const int n = static_cast<int>(groups[0].size());
  std::vector<StepList> lists;
  for (const auto& g : groups) {
    RingRegion region{g, 0, elements};
    StepList steps;
    if (op != CollectiveOp::kAllGather) steps = ring_reduce_scatter(region, std::min(skip, n - 1));
    if (op != CollectiveOp::kReduceScatter) {
      StepList ag = ring_all_gather(region);
      steps.insert(steps.end(), ag.begin(), ag.end());
    }
    lists.push_back(std::move(steps));
  }
  Plan plan;
  plan.ranks = backend.topology().ranks();
  plan.count = elements;
  append_steps(plan, merge_concurrent(lists), "group collective");
  // Consecutive identical steps (equal chunks) are timed once.
  Plan folded;
  folded.ranks = plan.ranks;
  folded.count = plan.count;
  for (PlanStep& s : plan.steps) {
    bool same = !folded.steps.empty() && folded.steps.back().transfers.size() == s.transfers.size();
    for (size_t i = 0; same && i < s.transfers.size(); ++i) {
      const Transfer &a = folded.steps.back().transfers[i], &b = s.transfers[i];
      same = a.src == b.src && a.dst == b.dst && a.count == b.count && a.reduce == b.reduce;
    }
    if (same)
      ++folded.steps.back().repeat;
    else
      folded.steps.push_back(std::move(s));
  }
  ExecutorOptions options;
  options.backend = &backend;
  return execute_plan(folded, {}, options).time_s;
}

double time_pp(const Parallelism& p, uint64_t bytes, NetworkBackend& backend) {
  if (p.pp < 2) return 0;
  std::vector<Flow> flows;
  for (int d = 0; d < p.dp; ++d)
    for (int s = 0; s + 1 < p.pp; ++s)
      for (int t = 0; t < p.tp; ++t) {
        int a = rank_of(p, d, s, t), b = rank_of(p, d, s + 1, t);
        flows.push_back({a, b, bytes, static_cast<uint64_t>(a) * 65537u + b});
      }
  return backend.time_step(flows).duration_s;
}

bool all_within_servers(const std::vector<std::vector<int>>& groups, const Topology& topology) {
  return std::all_of(groups.begin(), groups.end(), [&](const std::vector<int>& g) {
    return workload::within_one_server(topology, g);
  });
}

// Every PP hand-off (stage s to s + 1 of one replica and TP index) stays inside a server.
bool pp_within_servers(const Parallelism& p, const Topology& topology) {
  for (int d = 0; d < p.dp; ++d)
    for (int s = 0; s + 1 < p.pp; ++s)
      for (int t = 0; t < p.tp; ++t)
        if (!workload::within_one_server(topology, rank_of(p, d, s, t), rank_of(p, d, s + 1, t)))
          return false;
  return true;
}

}  // namespace

WorkloadTiming time_workload(const TransformerSpec& spec, const Parallelism& p,
                             NetworkBackend& backend, const ComputeModel& compute,
                             const WorkloadTechniques& tech) {
  if (backend.topology().ranks() < p.gpus())
    throw bad_input("the cluster has " + std::to_string(backend.topology().ranks()) +
                    " GPUs; dp x tp x pp = " + std::to_string(p.gpus()));
  if (tech.algorithm != "ring")
    throw bad_input("catalog workloads are timed with ring collectives");
  IterationPlan plan = plan_iteration(spec, p);
  WorkloadTiming w;
  w.compute_s = compute_time_s(plan, p, compute);
  for (const Message& m : plan.messages) {
    MessageTiming t{m.kind, m.bytes, m.count, 0};
    const bool tp = m.kind == MessageKind::kTpAllReduce;
    // A codec of the network leaves traffic inside a server alone (scheduler.h, CommTechniques):
    // TP groups within a server, PP hand-offs between stages of one server.
    const bool local = m.kind == MessageKind::kPpSendRecv
                           ? pp_within_servers(p, backend.topology())
                           : all_within_servers(groups_of(m.kind, p), backend.topology());
    const double ratio = local ? 1.0 : tp ? tech.tp_ratio : tech.dp_ratio;
    // Executor time-only plans charge 4 bytes per element: carry the wire bytes as elements.
    const uint64_t elements =
        static_cast<uint64_t>(std::ceil(static_cast<double>(m.bytes) * ratio / 4.0));
    switch (m.kind) {
      case MessageKind::kTpAllReduce:
        t.time_each_s =
            time_groups(groups_of(m.kind, p), CollectiveOp::kAllReduce, elements, 0, backend);
        w.tp_s += t.time_each_s * m.count;
        break;
      case MessageKind::kDpReduceScatter:
        t.time_each_s = time_groups(groups_of(m.kind, p), CollectiveOp::kReduceScatter, elements,
                                    tech.dp_skip, backend);
        w.dp_s += t.time_each_s * m.count;
        break;
      case MessageKind::kDpAllGather:
        t.time_each_s =
            time_groups(groups_of(m.kind, p), CollectiveOp::kAllGather, elements, 0, backend);
        w.dp_s += t.time_each_s * m.count;
        break;
      case MessageKind::kPpSendRecv:
        t.time_each_s = time_pp(p, static_cast<uint64_t>(m.bytes * ratio), backend);
        w.pp_s += t.time_each_s * m.count;
        break;
    }
    // Encode + decode of the payload on every message's critical path (all exposed, as the
    // network time is here).
    if (!local) w.codec_s += tech.codec_s_per_byte * static_cast<double>(m.bytes) * m.count;
    w.messages.push_back(t);
  }
  // TP all-reduces sit inside every layer's forward and backward; DP collectives and PP hand-offs
  // are counted as exposed (no overlap), the conservative reading of the NetZIP study's setting.
  w.iteration_s = w.compute_s + w.tp_s + w.dp_s + w.pp_s + w.codec_s;
  return w;
}

workload::SchedulerOptions graph_options(const ComputeModel& compute,
                                         const WorkloadTechniques& techniques) {
  using workload::CommKind;
  workload::SchedulerOptions o;
  o.algorithm = techniques.algorithm;
  o.compute = compute;
  o.techniques.ratio[static_cast<int>(CommKind::kTp)] = techniques.tp_ratio;
  o.techniques.ratio[static_cast<int>(CommKind::kDp)] = techniques.dp_ratio;
  o.techniques.dp_skip.skip = techniques.dp_skip;
  for (CommKind k : {CommKind::kTp, CommKind::kDp})
    o.techniques.codec_s_per_byte[static_cast<int>(k)] = techniques.codec_s_per_byte;
  o.timeline_ranks = {};
  return o;
}

WorkloadTiming timing_of(const workload::ScheduleResult& r) {
  using workload::CommKind;
  WorkloadTiming t;
  t.iteration_s = r.iteration_s;
  t.compute_s = r.critical_compute_s;
  // Exposed time of a kind, less its codec share (total codec / total of the kind).
  auto exposed = [&](CommKind kind) {
    const int k = static_cast<int>(kind);
    const double share = r.comm_total_s[k] > 0 ? r.codec_total_s[k] / r.comm_total_s[k] : 0.0;
    t.codec_s += r.exposed_s[k] * share;
    return r.exposed_s[k] * (1 - share);
  };
  t.tp_s = exposed(CommKind::kTp);
  t.dp_s = exposed(CommKind::kDp);
  t.pp_s = exposed(CommKind::kPp);
  t.ep_s = exposed(CommKind::kEp);
  t.other_s = exposed(CommKind::kOther);
  t.idle_s = r.critical_idle_s;
  return t;
}

RoutingComparison compare_routing(RoutingMode routing, const RoutedTiming& first,
                                  const std::function<RoutedTiming(RoutingMode)>& time_under) {
  RoutingComparison c;
  c.dp_s = first.dp_s;
  c.load = most_imbalanced_tier(first.tiers);
  c.ecmp_choices = first.ecmp_choices;
  c.other = routing == RoutingMode::kEcmp ? RoutingMode::kIdeal : RoutingMode::kEcmp;
  if (!c.ecmp_choices) return c;
  const RoutedTiming other = time_under(c.other);
  c.other_dp_s = other.dp_s;
  c.other_load = find_tier(other.tiers, c.load.tier);
  const bool ecmp_first = routing == RoutingMode::kEcmp;
  const double ecmp_dp = ecmp_first ? c.dp_s : c.other_dp_s;
  const double ideal_dp = ecmp_first ? c.other_dp_s : c.dp_s;
  c.ecmp_penalty_dp = ideal_dp > 0 ? ecmp_dp / ideal_dp : 0.0;
  return c;
}

}  // namespace commlab
