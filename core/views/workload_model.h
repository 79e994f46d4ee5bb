#pragma once
// What the Workload page draws, computed off the GUI thread: a graph (a catalog workload or a
// Chakra trace) replayed by the graph engine (workload/scheduler.h) on a leaf-spine cluster, cut
// into Gantt lanes, one per (rank, stream) of the ranks shown (rank 0 and the first rank of every
// later pipeline stage). Bars carry the engine's own times; nothing here re-times anything.
#include <memory>
#include <string>
#include <vector>

#include "collective/codec_wire.h"
#include "network/analytical.h"
#include "topology/routing.h"
#include "topology/topology.h"
#include "workload/graph.h"
#include "workload/scheduler.h"
#include "workload/workload_timing.h"

namespace commlab::views {

// The default graph-node budget of the Workload page (WorkloadSettings::max_graph_nodes).
inline constexpr uint64_t kWorkloadMaxGraphNodes = uint64_t{1} << 19;

struct WorkloadSettings {
  enum class Source { kCatalog, kTrace };
  Source source = Source::kCatalog;
  std::string model = "llama3-8b";  // catalog key (workload/catalog/catalog.h)
  std::string trace_prefix;         // DIR/PREFIX of PREFIX.RANK.et files
  int dp = 2, tp = 2, pp = 4;
  int micro_batch = 1, global_batch = 16;
  // The cluster: servers of gpus_per_server GPUs (NVSwitch inside) on a leaf-spine at this NIC
  // rate; TP groups fit in a server, DP and PP cross the network.
  double gbps = 100;
  int gpus_per_server = 8;
  double dp_ratio = 1.0;  // codec: wire bytes / payload bytes on DP communication
  // Where that codec encodes and decodes (collective/codec_wire.h): nic (line rate, free), gpu or
  // cpu, charged per DP payload byte (no codec, ratio 1: nothing).
  CodecPlacement codec_placement = CodecPlacement::kNic;
  int skip = 0;         // SkipReduce s on DP reduce-scatters
  bool overlap = true;  // DP communication overlaps the backward pass
  int max_ranks = 8;    // ranks drawn (lanes = ranks x streams used)
  // Per-flow ECMP (what switches do) or ideal spraying over the equal-cost paths (the bound).
  RoutingMode routing = RoutingMode::kEcmp;
  // Work budget: nodes of a catalog graph, estimated before it is built (the page replays it
  // twice, once per routing mode); a larger graph is refused at once (view workload
  // --max-graph-nodes raises it). A trace is bounded by the trace reader's node budget.
  uint64_t max_graph_nodes = kWorkloadMaxGraphNodes;

  bool operator==(const WorkloadSettings&) const = default;
};

// Bar kinds: compute, then one per CommKind (TP, DP, PP, EP, other).
inline constexpr int kBarCompute = 0;
inline int bar_kind(const workload::Node& node) {
  return node.kind == workload::NodeKind::kCompute ? kBarCompute : 1 + static_cast<int>(node.comm);
}
const char* bar_kind_name(int kind);  // "compute", "TP", "DP", "PP", "EP", "other"

struct GanttBar {
  uint32_t node = 0;   // position in the rank's node list
  double ready_s = 0;  // collectives: reached the rendezvous (start_s - ready_s is waiting)
  double start_s = 0;
  double end_s = 0;
  int kind = kBarCompute;
  bool critical = false;  // on the engine's critical path
};

struct GanttLane {
  int rank = 0;
  int stream = 0;
  double busy_s = 0;  // the engine's stream busy time
  std::vector<GanttBar> bars;
};

struct WorkloadPicture {
  WorkloadSettings settings;
  std::string title;  // "Llama-3 8B, dp 2 x tp 2 x pp 4 = 16 GPUs, 100 Gb/s"
  std::shared_ptr<const workload::Graph> graph;
  workload::ScheduleResult result;
  std::vector<GanttLane> lanes;
  uint64_t critical_nodes_shown = 0;  // critical-path nodes that fall on a drawn lane
  // The leaf-spine ECMP penalty of this replay (compare_routing, as `commlab-cli workload`).
  RoutingComparison routing;
};

// Ranks worth drawing: rank 0, then along the pipeline (each PP send's destination in turn), at
// most `max_ranks`; a graph without pipeline sends shows rank 0 and its next ranks.
std::vector<int> lane_ranks(const workload::Graph& graph, int max_ranks);

// The scheduler's options for these settings: the DP codec ratio and SkipReduce, the ranks
// recorded.
workload::SchedulerOptions replay_options(const WorkloadSettings& s, const std::vector<int>& ranks);

// The cluster for `ranks` GPUs (servers of gpus_per_server at `gbps`).
Topology workload_cluster(const WorkloadSettings& s, int ranks);

// Replays `graph` and cuts the result into lanes (throws what the scheduler throws).
WorkloadPicture replay_graph(std::shared_ptr<const workload::Graph> graph,
                             const WorkloadSettings& s);

// Builds the graph the settings name (catalog generator or trace reader), then replay_graph.
// Throws std::invalid_argument with a one-line message for bad settings or a bad trace.
WorkloadPicture compute_workload_picture(const WorkloadSettings& s);

}  // namespace commlab::views
