#pragma once
// The data behind the topology view, Qt-free so tests can check it: boxes laid out by tier (GPUs,
// NVSwitch / PCIe and NICs inside their server's frame at the bottom, switch tiers above), and
// links coloured by how busy one step of a collective keeps them (topology_loads.h): on the
// analytical backend bytes / (bandwidth x step time); on the packet backend the measured busy
// fraction, plus each port's deepest queue and its trims and drops in the step.
// Beyond a few hundred GPUs the picture aggregates: one box per server, then one per leaf.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "topology/topology.h"

namespace commlab::views {

// The Topology page's default work budgets (TopologySettings::max_links, ...).
inline constexpr uint64_t kTopologyMaxLinks = uint64_t{1} << 17;
inline constexpr uint64_t kTopologyMaxTransfers = uint64_t{1} << 22;
inline constexpr uint64_t kTopologyMaxFlows = uint64_t{1} << 14;

struct TopologySettings {
  std::string spec = "fattree:k=4";  // topology/presets.h cluster spec
  std::string algorithm = "ring";
  uint64_t message_bytes = 64ull << 20;  // all-reduce size per rank
  int step = 1;                          // 1-based step of the collective to time
  int max_endpoints = 256;               // more GPUs: one box per server
  int max_servers = 64;                  // more servers: one box per leaf
  // Work budgets, each refused before the work it bounds, naming the flag that raises it (view
  // topology --max-links, --max-transfers, --max-flows). Links of the cluster (directed): every
  // link's load is computed and reported (fattree:k=64, 393,216 links: 9 s, 945 MB, 163 MB of
  // JSON). Transfers of the collective's plan, all materialised (a ring on 2,000 ranks whose
  // chunks do not fold: 8 M transfers, 4 s, 400 MB). Flows of the timed step, whose max-min
  // fair sharing grows faster than their count (direct on 128 ranks, 16,256 flows: 2 s; on 432
  // ranks: 160 s).
  uint64_t max_links = kTopologyMaxLinks;
  uint64_t max_transfers = kTopologyMaxTransfers;
  uint64_t max_flows = kTopologyMaxFlows;
  std::string backend = "analytical";  // analytical | packet
  // Packet backend only (network/packet_config.h):
  std::string admission = "trim";   // a full switch port: tail-drop | ecn | trim
  int queue_packets = 8;            // data queue per switch port, full packets (0: link buffer)
  std::string background = "none";  // none | perm | incast:K | alltoall | onoff:LOAD
  bool operator==(const TopologySettings&) const = default;
};

// What the timed step did to one directed topology link.
struct LinkLoad {
  double bytes = 0;                 // payload bytes of the step's flows routed over it
  double utilisation = 0;           // busy fraction of the step
  double queue_bytes = 0;           // packet: deepest sampled queue at the sending port
  double queue_capacity_bytes = 0;  // packet: the port's data queue (0: lossless host-side port)
  uint64_t trims = 0;               // packet: data packets trimmed at the sending port
  uint64_t drops = 0;               // packet: packets dropped there
};

struct TopoBox {
  std::string label;
  std::string tooltip;
  NodeKind kind = NodeKind::kGpu;
  bool frame = false;  // a server's outline, drawn behind its parts
  int gpus = 0;        // GPUs this box stands for
  double x = 0, y = 0, w = 0, h = 0;
};

// One undirected line between two boxes; [0] is a -> b, [1] is b -> a, each summed over the
// member links when boxes are aggregated.
struct TopoEdge {
  int a = 0, b = 0;
  int links = 0;  // directed links folded into this edge
  double bandwidth_Bps[2] = {0, 0};
  double bytes[2] = {0, 0};
  double latency_s = 0;
  double utilisation[2] = {0, 0};  // sum(utilisation x bandwidth) / sum(bandwidth) of members
  double queue_bytes[2] = {0, 0};  // deepest member queue
  double queue_capacity_bytes[2] = {0, 0};  // largest member data queue (0: unbounded)
  uint64_t trims[2] = {0, 0};               // summed over members
  uint64_t drops[2] = {0, 0};
  double max_link_utilisation = 0;  // busiest member link
  double peak() const { return std::max(utilisation[0], utilisation[1]); }
};

struct TopologyPicture {
  TopologySettings settings;
  std::string name;
  int ranks = 0;
  int aggregation = 0;  // 0: every node, 1: per server, 2: per leaf
  int steps = 0;        // steps of the collective
  int step = 0;         // the step timed (1-based)
  std::string phase;
  double step_time_s = 0;
  double max_utilisation = 0;
  // Over every link, drawn or folded inside a box; queues only at switch ports (the host side
  // holds the transport's window, not congestion).
  double max_queue_bytes = 0;
  uint64_t total_trims = 0, total_drops = 0;
  double compute_s = 0;         // wall-clock time compute_topology_picture took
  std::vector<LinkLoad> links;  // per topology link
  // Per topology link: the edge it is folded into (-1: inside one box) and its direction there.
  std::vector<int> link_edge, link_dir;
  std::vector<TopoBox> boxes;
  std::vector<TopoEdge> edges;
  double width = 0, height = 0;
};

// Throws std::invalid_argument for a bad spec or algorithm, and for work over one of the
// settings' budgets (naming the count, the budget and the flag that raises it).
TopologyPicture compute_topology_picture(const TopologySettings& settings);

// "fattree:k=4", ... : a small, readable default spec for each catalog entry.
std::vector<std::pair<std::string, std::string>> topology_presets();

}  // namespace commlab::views
