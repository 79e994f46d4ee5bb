// The topology, teaching and throughput pictures as JSON (views_json.h); the workload Gantt is in
// workload_json.cpp.
#include "views/views_json.h"

namespace commlab::views {

using nlohmann::json;

namespace {

const char* aggregation_name(int aggregation) {
  return aggregation == 0 ? "node" : aggregation == 1 ? "server" : "leaf";
}

json load_json(const LinkLoad& l) {
  return {{"bytes", l.bytes},
          {"utilisation", l.utilisation},
          {"queue_bytes", l.queue_bytes},
          {"queue_capacity_bytes", l.queue_capacity_bytes},
          {"trims", l.trims},
          {"drops", l.drops}};
}

json box_json(const TopoBox& b) {
  return {{"label", b.label},
          {"tooltip", b.tooltip},
          {"kind", node_kind_name(b.kind)},
          {"frame", b.frame},
          {"gpus", b.gpus},
          {"x", b.x},
          {"y", b.y},
          {"w", b.w},
          {"h", b.h}};
}

// [0] is a -> b, [1] is b -> a (TopoEdge).
json edge_json(const TopoEdge& e) {
  json directions = json::array();
  for (int d = 0; d < 2; ++d)
    directions.push_back({{"bandwidth_Bps", e.bandwidth_Bps[d]},
                          {"bytes", e.bytes[d]},
                          {"utilisation", e.utilisation[d]},
                          {"queue_bytes", e.queue_bytes[d]},
                          {"queue_capacity_bytes", e.queue_capacity_bytes[d]},
                          {"trims", e.trims[d]},
                          {"drops", e.drops[d]}});
  return {{"a", e.a},
          {"b", e.b},
          {"links", e.links},
          {"latency_s", e.latency_s},
          {"max_link_utilisation", e.max_link_utilisation},
          {"directions", std::move(directions)}};
}

json transfer_json(const TeachingTrace& trace, const Transfer& t) {
  const auto [first, last] = trace.cells_of(t);
  return {{"src", t.src},       {"dst", t.dst},        {"offset", t.offset}, {"count", t.count},
          {"reduce", t.reduce}, {"first_cell", first}, {"last_cell", last}};
}

}  // namespace

json to_json(const TopologySettings& s) {
  return {{"cluster", s.spec},
          {"algorithm", s.algorithm},
          {"message_bytes", s.message_bytes},
          {"step", s.step},
          {"max_endpoints", s.max_endpoints},
          {"max_servers", s.max_servers},
          {"backend", s.backend},
          {"admission", s.admission},
          {"queue_packets", s.queue_packets},
          {"background", s.background}};
}

json to_json(const TopologyPicture& p) {
  json boxes = json::array(), edges = json::array(), links = json::array();
  for (const TopoBox& b : p.boxes) boxes.push_back(box_json(b));
  for (const TopoEdge& e : p.edges) edges.push_back(edge_json(e));
  for (size_t i = 0; i < p.links.size(); ++i) {
    json l = load_json(p.links[i]);
    l["edge"] = i < p.link_edge.size() ? p.link_edge[i] : -1;
    l["direction"] = i < p.link_dir.size() ? p.link_dir[i] : 0;
    links.push_back(std::move(l));
  }
  return {{"page", "topology"},
          {"settings", to_json(p.settings)},
          {"name", p.name},
          {"ranks", p.ranks},
          {"aggregation", aggregation_name(p.aggregation)},
          {"steps", p.steps},
          {"step", p.step},
          {"phase", p.phase},
          {"step_time_s", p.step_time_s},
          {"max_utilisation", p.max_utilisation},
          {"max_queue_bytes", p.max_queue_bytes},
          {"total_trims", p.total_trims},
          {"total_drops", p.total_drops},
          {"width", p.width},
          {"height", p.height},
          {"boxes", std::move(boxes)},
          {"edges", std::move(edges)},
          {"links", std::move(links)}};
}

json to_json(const TeachingSettings& s) {
  return {{"ranks", s.ranks}, {"algorithm", s.algorithm}, {"ranks_per_node", s.ranks_per_node},
          {"skip", s.skip},   {"policy", s.policy},       {"iteration", s.iteration},
          {"seed", s.seed},   {"trim_rate", s.trim_rate}};
}

json to_json(const TeachingTrace& trace) {
  json frames = json::array();
  for (const TeachingFrame& f : trace.frames) {
    json transfers = json::array();
    for (const Transfer& t : f.transfers) transfers.push_back(transfer_json(trace, t));
    json frame = {{"phase", f.phase},
                  {"caption", f.caption},
                  {"transfers", std::move(transfers)},
                  {"masks", f.masks}};
    if (trace.settings.trim_rate > 0) {
      frame["relative_error"] = f.error;
      frame["packets"] = f.packets;
      frame["trimmed_packets"] = f.trimmed;
    }
    frames.push_back(std::move(frame));
  }
  return {{"page", "teaching"},         {"settings", to_json(trace.settings)},
          {"ranks", trace.ranks},       {"elements_per_rank", trace.count},
          {"cells", trace.cells()},     {"cell_begin", trace.cell_begin},
          {"steps", trace.steps()},     {"skipped_steps", trace.skipped_steps},
          {"rotation", trace.rotation}, {"dropped_mask", trace.dropped_mask},
          {"frames", std::move(frames)}};
}

json to_json(const ThroughputSettings& s) {
  json j = {{"mode", s.cluster.empty() ? "flat" : "nccl"},
            {"min_bytes", s.min_bytes},
            {"max_bytes", s.largest_bytes()}};
  if (s.cluster.empty()) {
    j["ranks"] = s.ranks;
    j["bw_gbps"] = s.bw_gbps;
    j["alpha_us"] = s.alpha_us;
    j["slice_bytes"] = s.pipeline.slice_bytes;
    j["chunk_bytes"] = s.pipeline.chunk_bytes;
  } else {
    j["cluster"] = s.cluster;
    j["proto"] = s.proto;
    j["channels"] = s.channels;
  }
  return j;
}

json to_json(const ThroughputSettings& s, const std::vector<BusbwSeries>& series) {
  json curves = json::array();
  for (const BusbwSeries& c : series) {
    json points = json::array();
    for (const BusbwPoint& p : c.points) {
      json point = {{"bytes", p.bytes}, {"busbw_gbps", p.busbw_gbps}};
      if (!p.choice.empty()) point["choice"] = p.choice;
      points.push_back(std::move(point));
    }
    json curve = {{"algorithm", c.algorithm}, {"points", std::move(points)}};
    if (s.cluster.empty()) curve["ceiling_gbps"] = c.ceiling_gbps;  // NCCL mode draws none
    curves.push_back(std::move(curve));
  }
  return {{"page", "throughput"}, {"settings", to_json(s)}, {"series", std::move(curves)}};
}

}  // namespace commlab::views
