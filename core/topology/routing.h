#pragma once
// Shortest-path routing with deterministic ECMP: among the equal-cost next hops a flow picks one by
// hashing (flow id, node), so a flow always takes the same path and different flows spread out.
// spread() is the ideal alternative (RoutingMode::kIdeal): a flow's bytes split evenly over all of
// its equal-cost paths, i.e. perfect load balance or packet spraying.
//
// Scale: the graph splits into network switches (NodeKind::kSwitch) and "boxes", the connected
// groups of other nodes (a server's GPUs, NVSwitch, PCIe, NICs; a lone host). Boxes are not
// transit: a path leaves its source box, crosses switches only, and enters the destination box.
// Distances then decompose as
//   dist(v, d) = min over the box exits (b'->s') and entries (s->b) of
//                in_box(v, b') + 1 + switches(s', s) + 1 + in_box(b, d)
// so the router keeps hop counts between switches (per entry switch) and inside boxes (per node)
// instead of one vector over all nodes per destination GPU: a few MB at 16,384 GPUs, not GBs.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "topology/topology.h"

namespace commlab {

// How a flow uses the equal-cost paths between its endpoints: kEcmp puts all of it on the one path
// its id hashes to (per-flow ECMP, what switches do); kIdeal splits it evenly over all of them.
enum class RoutingMode { kEcmp, kIdeal };
const char* routing_mode_name(RoutingMode mode);
// "ecmp" or "ideal"; throws std::invalid_argument naming the value and the choices otherwise.
RoutingMode parse_routing_mode(const std::string& name);

class Router {
 public:
  explicit Router(const Topology& topology);

  // Link ids from GPU src_rank to GPU dst_rank (empty when src == dst). Thread-safe.
  std::vector<int> path(int src_rank, int dst_rank, uint64_t flow_id) const;
  // Same, appending to `out` (no allocation when it has capacity).
  void append_path(int src_rank, int dst_rank, uint64_t flow_id, std::vector<int>& out) const;
  // Every link on any shortest path from src_rank to dst_rank, once, with the fraction of the
  // flow's bytes it carries when they split evenly over all equal-cost paths: (paths from src
  // through the link's tail) x (paths from its head to dst) / (all paths). The fractions of the
  // links leaving src sum to 1. Appends to both vectors (nothing when src == dst). Thread-safe.
  void append_spread(int src_rank, int dst_rank, std::vector<int>& links,
                     std::vector<double>& fractions) const;
  // How many distinct shortest paths lead from src_rank to dst_rank (1 when src == dst), capped
  // at 2^32 - 1: the paths path() can return for some flow id. Cached per pair. Thread-safe.
  uint32_t equal_cost_paths(int src_rank, int dst_rank) const;
  // True once a path or spread routed so far had two or more equal-cost next hops somewhere:
  // without that, per-flow ECMP and ideal routing time every flow the same.
  bool had_choice() const { return had_choice_.load(std::memory_order_relaxed); }
  // Hop count between two nodes (node ids) under the no-transit rule, or -1 when unreachable.
  int distance(int from_node, int to_node) const;

 private:
  static constexpr int kInf = 1 << 28;
  struct Entry {
    int switch_index;  // entry switch
    int hops;          // from that switch into the box and on to the destination
  };

  // A destination's distance tables for walks toward it (the first 8 entries as flat arrays).
  struct Target {
    int node = -1, box = -1;
    const std::vector<Entry>* entries = nullptr;
    const std::vector<std::pair<int, int>>* entry_links = nullptr;
    const uint16_t* entry_dist[8] = {};
    int num_fast = 0;
  };
  static constexpr int kMaxNextHops = 512;

  // The equal-cost paths from src to dst as a DAG in layers of equal distance to dst: every
  // edge once, with the paths from src to each DAG node and from each DAG node to dst.
  struct PathDag {
    struct Edge {
      int from, link, to;  // DAG node indices and the topology link
    };
    std::vector<Edge> edges;
    std::vector<double> from_src, to_dst;  // to_dst[0]: all the paths (DAG node 0 is src)
  };

  // All helpers below expect mutex_ held; they fill the caches on first use.
  Target target(int dst_node) const;
  int switch_to_target(const Target& t, int w_local) const;
  // Writes the links out of v that start a shortest path to t (`remaining` hops from v); returns
  // how many (at most kMaxNextHops). Throws std::logic_error when there are none.
  int next_hops(const Target& t, int v, int remaining, int* candidates) const;
  // One step of a walk toward GPU dst_rank standing at v, `remaining` hops from it (-1 at the
  // walk's source: the route length). Returns the offset in next_hop_pool_ of [remaining, count,
  // candidate links...], valid until the next call. The candidates and their order do not
  // depend on the flow, and a walk meets the same (node, destination) pairs again and again
  // (millions of tiny flows on a small cluster), so they are cached; `t` is built on a miss.
  size_t walk_step(std::optional<Target>& t, int src_rank, int dst_rank, int v,
                   int remaining) const;
  // The cache slot of (destination node, node, whether the node is the walk's source): offset
  // in next_hop_pool_ plus one, 0 when empty.
  uint32_t& next_hop_slot(int dst, int v, bool first) const;
  PathDag path_dag(int src_rank, int dst_rank, int src, int dst) const;
  // dist() from rank src to rank dst, throwing std::invalid_argument when unreachable.
  int route_length(int src_rank, int dst_rank, int src, int dst) const;
  int dist(int v, int d) const;
  // The best of `bound` and the paths that leave v's box.
  int dist_via_exits(int v, int d, int bound) const;
  int switch_dist(int from_switch, int to_switch) const;
  const std::vector<uint16_t>& to_switch(int target_switch) const;
  int in_box(int v, int d) const;
  const std::vector<Entry>& entries(int d) const;
  // Links from a switch into d's box, with the hops from that link's head to d.
  const std::vector<std::pair<int, int>>& entry_links(int d) const;

  const Topology& topo_;
  std::vector<char> is_switch_;
  std::vector<int> box_of_;  // node -> box id, -1 for switches
  std::vector<int> local_;   // node -> index inside its box / among switches
  std::vector<std::vector<int>> box_nodes_;
  std::vector<std::vector<int>> box_exits_;  // per box: links box node -> switch
  std::vector<int> switches_;                // switch index -> node id
  // Switch-to-switch links as CSR over switch indices (the walk's and the BFS's inner loops).
  std::vector<int> sw_in_begin_, sw_in_;                     // predecessors
  std::vector<int> sw_out_begin_, sw_out_link_, sw_out_to_;  // successors and their link ids

  mutable std::mutex mutex_;
  mutable std::atomic<bool> had_choice_{false};
  mutable std::vector<std::vector<uint16_t>> to_switch_;  // [target switch][from switch]
  mutable std::vector<std::vector<uint16_t>> in_box_;     // [target node][local index in its box]
  mutable std::vector<std::vector<Entry>> entries_;       // [destination node]
  mutable std::vector<std::vector<std::pair<int, int>>> entry_links_;
  mutable std::vector<char> entries_done_;
  // The next-hop cache (walk_step): slots in a flat [dst][first][v] table on clusters of at most
  // kFlatCacheNodes nodes (32 MB; a k=16 fat tree's 1,344 take 14 MB), else in a hash map;
  // entries in the pool, cleared when it reaches kMaxCachedHopInts (32 MB: a k=16 all-to-all's
  // ~5 M fit), so memory stays bounded on any cluster.
  static constexpr size_t kFlatCacheNodes = 2048;
  static constexpr size_t kMaxCachedHopInts = size_t{1} << 23;
  mutable std::vector<uint32_t> next_hop_flat_;
  mutable std::unordered_map<uint64_t, uint32_t> next_hop_index_;
  mutable std::vector<int> next_hop_pool_;
  // equal_cost_paths() per (src rank, dst rank); cleared at kMaxCachedPathCounts entries.
  static constexpr size_t kMaxCachedPathCounts = size_t{1} << 20;
  mutable std::unordered_map<uint64_t, uint32_t> path_counts_;
};

}  // namespace commlab
