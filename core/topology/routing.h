#pragma once
// Shortest-path routing with deterministic ECMP: among the equal-cost next hops a flow picks one by
// hashing (flow id, node), so a flow always takes the same path and different flows spread out.
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "topology/topology.h"

namespace commlab {

class Router {
 public:
  explicit Router(const Topology& topology) : topo_(topology) {}

  // Link ids from GPU src_rank to GPU dst_rank (empty when src == dst). Thread-safe.
  std::vector<int> path(int src_rank, int dst_rank, uint64_t flow_id) const;
  // Hop count between two nodes (node ids), or -1 when unreachable.
  int distance(int from_node, int to_node) const;

 private:
  // Hops from every node to `to_node` over directed links, computed once per destination.
  const std::vector<uint16_t>& distances_to(int to_node) const;

  const Topology& topo_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<int, std::vector<uint16_t>> dist_to_;
};

}  // namespace commlab
