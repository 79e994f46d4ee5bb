#include "views/workload_model.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "collective/codec_wire.h"
#include "io/status.h"
#include "network/analytical.h"
#include "topology/builders.h"
#include "views/view_settings.h"
#include "workload/catalog/catalog.h"
#include "workload/catalog/catalog_graph.h"
#include "workload/chakra_trace.h"
#include "workload/workload_timing.h"

namespace commlab::views {

using workload::Graph;
using workload::Node;
using workload::NodeKind;

const char* bar_kind_name(int kind) {
  if (kind == kBarCompute) return "compute";
  return workload::comm_kind_name(static_cast<workload::CommKind>(kind - 1));
}

std::vector<int> lane_ranks(const Graph& graph, int max_ranks) {
  std::vector<int> ranks;
  if (graph.rank_count() == 0 || max_ranks < 1) return ranks;
  std::set<int> seen;
  // Follow the pipeline: a stage's first PP send names the next stage's rank.
  for (int r = 0; r >= 0 && static_cast<int>(ranks.size()) < max_ranks && seen.insert(r).second;) {
    ranks.push_back(r);
    int next = -1;
    for (const Node& n : graph.ranks[r].nodes) {
      if (n.kind == NodeKind::kSend && n.comm == workload::CommKind::kPp &&
          !seen.count(n.group_or_peer)) {
        next = n.group_or_peer;
        break;
      }
    }
    r = next;
  }
  // No pipeline: rank 0's neighbours, so a DP or TP run still shows a few peers side by side.
  for (int r = 1; ranks.size() == 1 && r < graph.rank_count() && r < max_ranks && r < 4; ++r)
    ranks.push_back(r);
  return ranks;
}

workload::SchedulerOptions replay_options(const WorkloadSettings& s,
                                          const std::vector<int>& ranks) {
  workload::SchedulerOptions o;
  o.techniques.ratio[static_cast<int>(workload::CommKind::kDp)] = s.dp_ratio;
  PlacementModel placement;
  placement.placement = s.codec_placement;
  o.techniques.codec_s_per_byte[static_cast<int>(workload::CommKind::kDp)] =
      s.dp_ratio < 1.0 ? codec_seconds_per_byte(placement) : 0.0;
  o.techniques.dp_skip.skip = s.skip;
  o.timeline_ranks = ranks;
  o.want_critical_path = true;
  return o;
}

Topology workload_cluster(const WorkloadSettings& s, int ranks) {
  if (s.gbps <= 0)
    throw bad_input("bandwidth: expected a positive Gb/s, got " + std::to_string(s.gbps));
  LeafSpineParams p;
  p.gpus_per_server = std::max(1, std::min(s.gpus_per_server, ranks));
  p.servers = std::max(1, (ranks + p.gpus_per_server - 1) / p.gpus_per_server);
  p.nic_gbps = s.gbps;
  // Enough leaf ports that every size the page offers fits a two-tier fabric.
  while (p.radix * p.radix / 2 < p.servers * p.gpus_per_server) p.radix *= 2;
  return make_leaf_spine(p);
}

namespace {

// The penalty as `commlab-cli workload` computes it (compare_routing): DP time from timing_of,
// link loads from tier_loads, the other mode replayed only when some flow had a choice of paths.
RoutedTiming routed(const AnalyticalBackend& backend, const workload::ScheduleResult& result) {
  return {timing_of(result).dp_s, tier_loads(backend.topology(), backend.link_bytes()),
          backend.router().had_choice()};
}

}  // namespace

WorkloadPicture replay_graph(std::shared_ptr<const Graph> graph, const WorkloadSettings& s) {
  WorkloadPicture pic;
  pic.settings = s;
  pic.graph = graph;
  const std::vector<int> ranks = lane_ranks(*graph, s.max_ranks);
  AnalyticalBackend backend(workload_cluster(s, graph->rank_count()));
  backend.set_routing(s.routing);
  backend.set_link_accounting(true);
  pic.result = workload::schedule(*graph, backend, replay_options(s, ranks));
  pic.routing = compare_routing(s.routing, routed(backend, pic.result), [&](RoutingMode mode) {
    AnalyticalBackend other(backend.topology());
    other.set_routing(mode);
    other.set_link_accounting(true);
    return routed(other, workload::schedule(*graph, other, replay_options(s, {})));
  });
  const workload::ScheduleResult& r = pic.result;

  std::set<std::pair<int, uint32_t>> critical;
  for (const workload::CriticalStep& c : r.critical_path) critical.insert({c.rank, c.node});
  for (size_t i = 0; i < r.timeline_ranks.size(); ++i) {
    const int rank = r.timeline_ranks[i];
    const workload::RankGraph& rg = graph->ranks[rank];
    std::map<int, GanttLane> by_stream;  // streams in order, only those the rank uses
    for (const workload::TimelineEntry& e : r.timelines[i]) {
      GanttLane& lane = by_stream[e.stream];
      lane.rank = rank;
      lane.stream = e.stream;
      GanttBar bar;
      bar.node = e.node;
      bar.ready_s = e.ready_s;
      bar.start_s = e.start_s;
      bar.end_s = e.end_s;
      bar.kind = bar_kind(rg.nodes[e.node]);
      bar.critical = critical.count({rank, e.node}) > 0;
      pic.critical_nodes_shown += bar.critical;
      lane.bars.push_back(bar);
    }
    for (auto& [stream, lane] : by_stream) {
      if (rank < static_cast<int>(r.stream_busy.size()) &&
          stream < static_cast<int>(r.stream_busy[rank].size()))
        lane.busy_s = r.stream_busy[rank][stream].busy_s;
      pic.lanes.push_back(std::move(lane));
    }
  }
  pic.title = graph->name.empty() ? "workload" : graph->name;
  pic.title += ", " + std::to_string(graph->rank_count()) + " GPUs";
  return pic;
}

namespace {

std::shared_ptr<const Graph> build_graph(const WorkloadSettings& s, std::string* title) {
  if (s.source == WorkloadSettings::Source::kTrace) {
    Graph g = workload::read_chakra_trace(s.trace_prefix);
    if (g.name.empty()) g.name = s.trace_prefix;
    // The trace's name, not where it lies: the prefix's last component ("1f1b" of
    // /tmp/x/1f1b.RANK.et); the Trace field shows the whole path.
    *title = "trace " + std::filesystem::path(s.trace_prefix).filename().string();
    return std::make_shared<const Graph>(std::move(g));
  }
  const TransformerSpec& spec = find_workload(s.model);
  workload::CatalogGraphOptions o;
  o.parallel.dp = s.dp;
  o.parallel.tp = s.tp;
  o.parallel.pp = s.pp;
  o.parallel.micro_batch = s.micro_batch;
  o.parallel.global_batch = s.global_batch;
  o.overlap = s.overlap;
  char t[128];
  std::snprintf(t, sizeof t, "%s, dp %d x tp %d x pp %d", spec.display.c_str(), s.dp, s.tp, s.pp);
  *title = t;
  const double nodes = workload::catalog_graph_node_estimate(spec, o);
  if (nodes > static_cast<double>(s.max_graph_nodes))
    throw bad_input(
        spec.name + ": the graph would have about " + std::to_string(static_cast<int64_t>(nodes)) +
        " nodes, over the budget of " + std::to_string(s.max_graph_nodes) +
        " graph nodes of the workload picture (view workload --max-graph-nodes raises it)");
  return std::make_shared<const Graph>(workload::catalog_graph(spec, o));
}

}  // namespace

WorkloadPicture compute_workload_picture(const WorkloadSettings& s) {
  if (StatusOr<WorkloadSettings> checked = check_workload(s); !checked)
    throw StatusError(checked.status());
  std::string title;
  std::shared_ptr<const Graph> graph = build_graph(s, &title);
  WorkloadPicture pic = replay_graph(graph, s);
  char net[64];
  std::snprintf(net, sizeof net, ", %g Gb/s", s.gbps);
  pic.title = title + ", " + std::to_string(graph->rank_count()) + " GPUs" + net;
  return pic;
}

}  // namespace commlab::views
