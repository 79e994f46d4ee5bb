// The Workload page's Gantt as JSON (views_json.h): the settings, the title, the replay's totals,
// the ECMP comparison line and every drawn lane with its bars.
#include "collective/codec_wire.h"
#include "scenario/config_enums.h"
#include "views/views_json.h"

namespace commlab::views {

using nlohmann::json;

namespace {

// Per CommKind, by its name ("TP", "DP", ...).
json per_kind(const std::array<double, workload::kCommKinds>& values) {
  json j = json::object();
  for (int k = 0; k < workload::kCommKinds; ++k)
    j[workload::comm_kind_name(static_cast<workload::CommKind>(k))] = values[k];
  return j;
}

json tier_json(const TierImbalance& t) {
  return {{"tier", t.tier},
          {"busiest_link_bytes", t.busiest_bytes},
          {"tier_mean_bytes", t.mean_bytes},
          {"busiest_over_mean", t.ratio()},
          {"busiest_link_busy_s", t.busiest_s}};
}

json routing_json(const WorkloadPicture& p) {
  const RoutingComparison& r = p.routing;
  json j = {{"routing", routing_mode_name(p.settings.routing)},
            {"ecmp_choices", r.ecmp_choices},
            {"dp_s", r.dp_s},
            {"load", tier_json(r.load)}};
  if (r.ecmp_choices) {
    j["other"] = routing_mode_name(r.other);
    j["other_dp_s"] = r.other_dp_s;
    j["ecmp_penalty_dp"] = r.ecmp_penalty_dp;
    j["other_load"] = tier_json(r.other_load);
  }
  return j;
}

// What the bar's tooltip says: the node's name, id, operation (or peer) and bytes.
json bar_json(const workload::Graph& graph, const GanttLane& lane, const GanttBar& b) {
  const workload::Node& n = graph.ranks[lane.rank].nodes[b.node];
  json j = {{"node", b.node},           {"node_id", n.id},
            {"name", graph.name_of(n)}, {"kind", bar_kind_name(b.kind)},
            {"ready_s", b.ready_s},     {"start_s", b.start_s},
            {"end_s", b.end_s},         {"critical", b.critical}};
  if (n.kind == workload::NodeKind::kCollective) j["op"] = workload::comm_op_name(n.op);
  if (n.kind == workload::NodeKind::kSend) j["send_to"] = n.group_or_peer;
  if (n.kind == workload::NodeKind::kRecv) j["recv_from"] = n.group_or_peer;
  if (n.kind != workload::NodeKind::kCompute) j["bytes"] = n.bytes;
  return j;
}

}  // namespace

json to_json(const WorkloadSettings& s) {
  const bool trace = s.source == WorkloadSettings::Source::kTrace;
  json j = {{"source", trace ? "trace" : "catalog"},
            {"dp", s.dp},
            {"tp", s.tp},
            {"pp", s.pp},
            {"micro_batch", s.micro_batch},
            {"global_batch", s.global_batch},
            {"gbps", s.gbps},
            {"gpus_per_server", s.gpus_per_server},
            {"dp_ratio", s.dp_ratio},
            {"codec_placement", enum_name(s.codec_placement)},
            {"skip", s.skip},
            {"overlap", s.overlap},
            {"max_ranks", s.max_ranks},
            {"routing", routing_mode_name(s.routing)}};
  if (trace)
    j["trace"] = s.trace_prefix;
  else
    j["model"] = s.model;
  return j;
}

json to_json(const WorkloadPicture& p) {
  const workload::ScheduleResult& r = p.result;
  json lanes = json::array();
  for (const GanttLane& lane : p.lanes) {
    json bars = json::array();
    for (const GanttBar& b : lane.bars) bars.push_back(bar_json(*p.graph, lane, b));
    lanes.push_back({{"rank", lane.rank},
                     {"stream", lane.stream},
                     {"busy_s", lane.busy_s},
                     {"bars", std::move(bars)}});
  }
  return {{"page", "workload"},
          {"settings", to_json(p.settings)},
          {"title", p.title},
          {"ranks", p.graph ? p.graph->rank_count() : 0},
          {"iteration_s", r.iteration_s},
          {"critical_compute_s", r.critical_compute_s},
          {"critical_idle_s", r.critical_idle_s},
          {"exposed_s", per_kind(r.exposed_s)},
          {"comm_total_s", per_kind(r.comm_total_s)},
          {"codec_total_s", per_kind(r.codec_total_s)},
          {"bytes_on_wire", r.bytes_on_wire},
          {"nodes", r.nodes},
          {"collectives", r.collectives},
          {"p2p", r.p2p},
          {"critical_path_nodes", r.critical_path.size()},
          {"critical_nodes_shown", p.critical_nodes_shown},
          {"routing", routing_json(p)},
          {"lanes", std::move(lanes)}};
}

}  // namespace commlab::views
