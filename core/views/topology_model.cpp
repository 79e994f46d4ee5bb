#include "views/topology_model.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <stdexcept>

#include "io/status.h"
#include "topology/presets.h"
#include "views/topology_loads.h"
#include "views/view_settings.h"

namespace commlab::views {

namespace {

constexpr double kGpuW = 34, kGpuH = 24, kNicH = 20, kMidH = 20, kGap = 4, kPad = 6, kTitleH = 14;
constexpr double kServerGap = 14, kTierGap = 120, kSwitchW = 70, kSwitchH = 26, kUnitW = 72,
                 kUnitH = 38;

struct Builder {
  const Topology& topo;
  TopologyPicture& pic;
  std::vector<int> box_of;  // node -> box (-1: not drawn)
  std::vector<int> rank_of;

  int add_box(TopoBox box) {
    pic.boxes.push_back(std::move(box));
    return static_cast<int>(pic.boxes.size()) - 1;
  }

  std::string gpu_tooltip(int node) const {
    const Node& n = topo.nodes()[node];
    return n.name + " (rank " + std::to_string(rank_of[node]) + ")" +
           (n.server >= 0 ? ", server " + std::to_string(n.server) : "");
  }

  // One server drawn with its parts: NICs on top, NVSwitch / PCIe in the middle, GPUs below.
  double place_server(const std::vector<int>& members, int server, double x) {
    std::vector<int> gpus, mids, nics;
    for (int v : members) {
      NodeKind k = topo.nodes()[v].kind;
      (k == NodeKind::kGpu ? gpus : k == NodeKind::kNic ? nics : mids).push_back(v);
    }
    const bool framed = members.size() > 1;
    auto row_w = [](size_t count, double w) {
      return count == 0 ? 0.0 : count * (w + kGap) - kGap;
    };
    const double gpu_row = row_w(gpus.size(), kGpuW);
    const double mid_w = mids.size() == 1 ? std::max(gpu_row, 60.0) : 60.0;
    const double inner =
        std::max({gpu_row, row_w(nics.size(), kGpuW), row_w(mids.size(), mid_w), 40.0});
    const double pad = framed ? kPad : 0;
    double y = framed ? kPad + kTitleH : 0;
    if (framed) {
      TopoBox frame{"server " + std::to_string(server), "", NodeKind::kGpu, true,
                    static_cast<int>(gpus.size())};
      frame.x = x;
      frame.w = inner + 2 * pad;
      pic.boxes.push_back(frame);
    }
    const int frame_index = static_cast<int>(pic.boxes.size()) - 1;
    auto place_row = [&](const std::vector<int>& row, double w, double h) {
      if (row.empty()) return;
      double rx = x + pad + (inner - row_w(row.size(), w)) / 2;
      for (int v : row) {
        const Node& n = topo.nodes()[v];
        TopoBox b;
        b.kind = n.kind;
        b.x = rx;
        b.y = y;
        b.w = w;
        b.h = h;
        if (n.kind == NodeKind::kGpu) {
          b.label = std::to_string(rank_of[v]);
          b.tooltip = gpu_tooltip(v);
          b.gpus = 1;
        } else {
          b.label = n.kind == NodeKind::kNic        ? "NIC"
                    : n.kind == NodeKind::kNvSwitch ? "NVSwitch"
                                                    : "PCIe";
          b.tooltip = n.name + " (" + node_kind_name(n.kind) + ")";
        }
        box_of[v] = add_box(b);
        rx += w + kGap;
      }
      y += h + kGap * 2;
    };
    place_row(nics, kGpuW, kNicH);
    place_row(mids, mid_w, kMidH);
    place_row(gpus, kGpuW, kGpuH);
    if (framed) pic.boxes[frame_index].h = y - kGap * 2 + pad;
    return inner + 2 * pad;
  }
};

// Every link's load in the timed step, and the picture's totals over them.
void add_step_loads(TopologyPicture& pic, const Topology& topo, const TopologySettings& s) {
  StepLoads loads = time_step_loads(topo, s);
  pic.step_time_s = loads.duration_s;
  pic.steps = loads.steps;
  pic.step = loads.step;
  pic.phase = loads.phase;
  pic.links = std::move(loads.links);
  for (const LinkLoad& l : pic.links) {
    if (l.queue_capacity_bytes > 0)
      pic.max_queue_bytes = std::max(pic.max_queue_bytes, l.queue_bytes);
    pic.total_trims += l.trims;
    pic.total_drops += l.drops;
  }
}

using Units = std::vector<std::pair<int, std::vector<int>>>;  // (key, member nodes)

// Bottom row units: servers (or, aggregated, leaves' server groups), in server order. Sets the
// picture's aggregation level from the settings' budgets.
Units bottom_units(const Topology& topo, TopologyPicture& pic, const TopologySettings& s) {
  const auto& nodes = topo.nodes();
  std::map<int, std::vector<int>> servers;
  int lone = -1;
  for (int v = 0; v < static_cast<int>(nodes.size()); ++v)
    if (nodes[v].kind != NodeKind::kSwitch)
      servers[nodes[v].server >= 0 ? nodes[v].server : lone--].push_back(v);
  if (pic.ranks > s.max_endpoints) pic.aggregation = 1;
  if (pic.aggregation == 1 && static_cast<int>(servers.size()) > s.max_servers) pic.aggregation = 2;
  Units units;
  if (pic.aggregation < 2) {
    for (auto& [server, members] : servers) units.push_back({server, members});
    return units;
  }
  // Group servers by the first switch any of their nodes connects to (their leaf).
  std::map<int, std::vector<int>> by_leaf;
  for (auto& [server, members] : servers) {
    int leaf = -1;
    for (int v : members)
      for (int l : topo.out_links(v))
        if (nodes[topo.links()[l].to].kind == NodeKind::kSwitch &&
            (leaf < 0 || topo.links()[l].to < leaf))
          leaf = topo.links()[l].to;
    auto& list = by_leaf[leaf];
    list.insert(list.end(), members.begin(), members.end());
  }
  for (auto& [leaf, members] : by_leaf) units.push_back({leaf, members});
  return units;
}

// One unit of the bottom row: its boxes [first, end) of the picture, its left edge and width.
struct UnitSpan {
  size_t first = 0, end = 0;
  double x = 0, w = 0;
};

// Places the bottom row left to right: whole servers, or one box per aggregated unit. Returns the
// units' spans.
std::vector<UnitSpan> place_units(Builder& b, const Units& units) {
  const auto& nodes = b.topo.nodes();
  TopologyPicture& pic = b.pic;
  std::vector<UnitSpan> spans;
  double x = 0;
  for (const auto& [key, members] : units) {
    UnitSpan span{pic.boxes.size(), 0, x, 0};
    if (pic.aggregation == 0) {
      span.w = b.place_server(members, key, x);
      span.end = pic.boxes.size();
      spans.push_back(span);
      x += span.w + kServerGap;
      continue;
    }
    int gpus = 0, lo = 1 << 30, hi = -1;
    for (int v : members)
      if (nodes[v].kind == NodeKind::kGpu) {
        ++gpus;
        lo = std::min(lo, b.rank_of[v]);
        hi = std::max(hi, b.rank_of[v]);
      }
    TopoBox box;
    box.gpus = gpus;
    box.label = std::to_string(gpus) + " GPUs";
    box.tooltip = (pic.aggregation == 1 ? "server " + std::to_string(key)
                                        : "servers under " + nodes[key].name) +
                  ": " + std::to_string(gpus) + " GPUs, ranks " + std::to_string(lo) + "-" +
                  std::to_string(hi);
    box.x = x;
    box.w = kUnitW;
    box.h = kUnitH;
    int index = b.add_box(box);
    for (int v : members) b.box_of[v] = index;
    spans.push_back({static_cast<size_t>(index), static_cast<size_t>(index) + 1, x, kUnitW});
    x += kUnitW + kServerGap;
  }
  return spans;
}

// The bottom row is wrapped into rows of equal count when, in one row, the picture would be more
// than kMaxAspect times as wide as tall: 64 server boxes of a 512-GPU pod under two switch tiers
// made a 5,500 x 300 px strip that the page shrank to 12-px boxes. It takes the fewest rows that
// bring the bottom rows and tiers to kWrapAspect or below (a page is about 1.3 times as wide as
// tall), each row centred, kRowGap apart for the links that pass between them. Returns the bottom's
// width.
constexpr double kMaxAspect = 4, kWrapAspect = 1.5, kRowGap = 36;

double wrap_units(TopologyPicture& pic, const std::vector<UnitSpan>& units, int max_tier) {
  const size_t n = units.size();
  double unit_h = 0;
  for (const UnitSpan& u : units)
    for (size_t i = u.first; i < u.end; ++i)
      unit_h = std::max(unit_h, pic.boxes[i].y + pic.boxes[i].h);
  const double tiers_h = max_tier * kTierGap + kSwitchH / 2;
  // Width of each row when rows hold `cols` units.
  auto row_widths = [&](size_t cols) {
    std::vector<double> widths((n + cols - 1) / cols, -kServerGap);
    for (size_t i = 0; i < n; ++i) widths[i / cols] += units[i].w + kServerGap;
    return widths;
  };
  auto aspect = [&](size_t rows) {
    const std::vector<double> widths = row_widths((n + rows - 1) / rows);
    const double h = tiers_h + widths.size() * (unit_h + kRowGap) - kRowGap;
    return *std::max_element(widths.begin(), widths.end()) / std::max(h, 1.0);
  };
  if (n == 0) return kSwitchW;
  size_t rows = 1;
  if (aspect(1) > kMaxAspect)
    while (rows < n && aspect(rows) > kWrapAspect) ++rows;
  const size_t cols = (n + rows - 1) / rows;
  const std::vector<double> widths = row_widths(cols);
  const double width = *std::max_element(widths.begin(), widths.end());
  double x = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i % cols == 0) x = (width - widths[i / cols]) / 2;
    const double dx = x - units[i].x, dy = static_cast<double>(i / cols) * (unit_h + kRowGap);
    for (size_t k = units[i].first; k < units[i].end; ++k) {
      pic.boxes[k].x += dx;
      pic.boxes[k].y += dy;
    }
    x += units[i].w + kServerGap;
  }
  return std::max(width, kSwitchW);
}

// Switch tiers above the bottom row, each ordered by the mean position of what it connects to
// below.
void place_switch_tiers(Builder& b, double bottom_w) {
  const auto& nodes = b.topo.nodes();
  const Topology& topo = b.topo;
  TopologyPicture& pic = b.pic;
  int max_tier = 0;
  for (const Node& n : nodes) max_tier = std::max(max_tier, n.tier);
  for (int tier = 1; tier <= max_tier; ++tier) {
    std::vector<std::pair<double, int>> row;
    for (int v = 0; v < static_cast<int>(nodes.size()); ++v) {
      if (nodes[v].kind != NodeKind::kSwitch || nodes[v].tier != tier) continue;
      double sum = 0;
      int count = 0;
      for (int l : topo.out_links(v)) {
        int to = b.box_of[topo.links()[l].to];
        if (to < 0) continue;
        sum += pic.boxes[to].x + pic.boxes[to].w / 2;
        ++count;
      }
      row.push_back({count ? sum / count : 0, v});
    }
    std::stable_sort(row.begin(), row.end());
    if (row.empty()) continue;
    // A crowded tier (e.g. 32 spines over 4 servers) narrows its boxes instead of stretching the
    // picture far beyond the servers below.
    const double natural = row.size() * (kSwitchW + 12.0);
    // Never below a 24-px box and a 6-px gap per switch, though: narrower, the boxes overlapped
    // and hid each other's names (dgx-h100-pod's 32 spines over 4 boxes of 256 GPUs).
    const double span =
        std::max(natural <= bottom_w * 1.25 ? std::max(bottom_w, natural) : bottom_w * 1.25,
                 static_cast<double>(row.size()) * (24.0 + 6.0));
    const double box_w = std::clamp(span / row.size() - 6, 24.0, kSwitchW);
    const double left = (bottom_w - span) / 2;
    for (size_t i = 0; i < row.size(); ++i) {
      const Node& n = nodes[row[i].second];
      TopoBox box;
      box.kind = NodeKind::kSwitch;
      box.label = n.name;
      box.tooltip = n.name + " (switch, tier " + std::to_string(tier) + ")";
      box.w = box_w;
      box.h = kSwitchH;
      box.x = left + (i + 0.5) * span / row.size() - box_w / 2;
      box.y = -tier * kTierGap - kSwitchH / 2;
      b.box_of[row[i].second] = b.add_box(box);
    }
  }
}

// Edges between distinct boxes, both directions folded into one line.
void fold_edges(Builder& b) {
  const Topology& topo = b.topo;
  TopologyPicture& pic = b.pic;
  // Per direction d:
  //   utilisation = sum(u_l x bw_l) / sum(bw_l) over member links l (analytical: bytes / (bw x t)),
  //   queue_bytes = max(q_l), trims = sum(trims_l), drops = sum(drops_l).
  std::map<std::pair<int, int>, int> edge_index;
  pic.link_edge.assign(topo.links().size(), -1);
  pic.link_dir.assign(topo.links().size(), 0);
  std::vector<double> carried;  // per edge direction: sum(u_l x bw_l)
  for (size_t l = 0; l < topo.links().size(); ++l) {
    const Link& link = topo.links()[l];
    const LinkLoad& load = pic.links[l];
    int a = b.box_of[link.from], c = b.box_of[link.to];
    if (a < 0 || c < 0 || a == c) continue;
    auto key = std::minmax(a, c);
    auto [it, fresh] = edge_index.try_emplace({key.first, key.second}, pic.edges.size());
    if (fresh) {
      pic.edges.push_back(TopoEdge{key.first, key.second});
      carried.resize(2 * pic.edges.size(), 0);
    }
    TopoEdge& e = pic.edges[it->second];
    const int dir = a < c ? 0 : 1;
    pic.link_edge[l] = it->second;
    pic.link_dir[l] = dir;
    e.links += 1;
    e.bandwidth_Bps[dir] += link.bandwidth_Bps;
    e.bytes[dir] += load.bytes;
    e.latency_s = std::max(e.latency_s, link.latency_s);
    carried[2 * it->second + dir] += load.utilisation * link.bandwidth_Bps;
    e.queue_bytes[dir] = std::max(e.queue_bytes[dir], load.queue_bytes);
    e.queue_capacity_bytes[dir] = std::max(e.queue_capacity_bytes[dir], load.queue_capacity_bytes);
    e.trims[dir] += load.trims;
    e.drops[dir] += load.drops;
    e.max_link_utilisation = std::max(e.max_link_utilisation, load.utilisation);
  }
  for (size_t i = 0; i < pic.edges.size(); ++i) {
    TopoEdge& e = pic.edges[i];
    for (int d = 0; d < 2; ++d) {
      e.utilisation[d] = e.bandwidth_Bps[d] > 0 ? carried[2 * i + d] / e.bandwidth_Bps[d] : 0;
      pic.max_utilisation = std::max(pic.max_utilisation, e.utilisation[d]);
    }
  }
}

// Shifts everything to positive coordinates with a margin; sets the picture's size.
void fit_to_margin(TopologyPicture& pic) {
  double min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  for (const TopoBox& box : pic.boxes) {
    min_x = std::min(min_x, box.x);
    min_y = std::min(min_y, box.y);
    max_x = std::max(max_x, box.x + box.w);
    max_y = std::max(max_y, box.y + box.h);
  }
  constexpr double kMargin = 20;
  for (TopoBox& box : pic.boxes) {
    box.x += kMargin - min_x;
    box.y += kMargin - min_y;
  }
  pic.width = max_x - min_x + 2 * kMargin;
  pic.height = max_y - min_y + 2 * kMargin;
}

}  // namespace

TopologyPicture compute_topology_picture(const TopologySettings& s) {
  const auto started = std::chrono::steady_clock::now();
  if (StatusOr<TopologySettings> checked = check_topology(s); !checked)
    throw StatusError(checked.status());
  const Topology topo = cluster_from_spec(s.spec);
  if (topo.links().size() > s.max_links)
    throw bad_input("cluster " + s.spec + ": " + std::to_string(topo.links().size()) +
                    " links, over the budget of " + std::to_string(s.max_links) +
                    " links of the topology picture (view topology --max-links "
                    "raises it)");
  // Its plan and timed step are checked against their budgets in time_step_loads.
  TopologyPicture pic;
  pic.settings = s;
  pic.name = topo.name();
  pic.ranks = topo.ranks();
  add_step_loads(pic, topo, s);
  const auto& nodes = topo.nodes();
  Builder b{topo, pic, std::vector<int>(nodes.size(), -1), std::vector<int>(nodes.size(), -1)};
  for (int r = 0; r < topo.ranks(); ++r) b.rank_of[topo.gpus()[r]] = r;
  int max_tier = 0;
  for (const Node& n : nodes) max_tier = std::max(max_tier, n.tier);
  const double bottom_w = wrap_units(pic, place_units(b, bottom_units(topo, pic, s)), max_tier);
  place_switch_tiers(b, bottom_w);
  fold_edges(b);
  fit_to_margin(pic);
  pic.compute_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return pic;
}

std::vector<std::pair<std::string, std::string>> topology_presets() {
  std::map<std::string, std::string> about;
  for (const auto& [name, what] : cluster_catalog()) about[name] = what;
  const std::pair<const char*, const char*> specs[] = {
      {"fattree:k=4", "fattree"},
      {"leafspine:servers=8,gpus_per_server=4", "leafspine"},
      {"rail:servers=4,gpus_per_server=8", "rail"},
      {"dgx-h100", "dgx-h100"},
      {"node:gpus=8,fabric=pcie", "node"},
      {"dgx-h100-pod:nodes=4", "dgx-h100-pod"},
      {"dgx-b200-pod:nodes=2", "dgx-b200-pod"},
      {"flat:8", "flat"},
      {"torus:dims=4x4", "torus"},
      {"fattree:k=8", "fattree"},
      {"netzip-512", "netzip-512"},
      {"dgx-h100-pod:nodes=64", "dgx-h100-pod"},
  };
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [spec, name] : specs) out.push_back({spec, about[name]});
  return out;
}

}  // namespace commlab::views
