#include "topology/routing.h"

#include <deque>
#include <stdexcept>

#include "numeric/rng.h"

namespace commlab {

namespace {
constexpr uint16_t kUnreachable = 0xffff;
}

const std::vector<uint16_t>& Router::distances_to(int to_node) const {
  std::lock_guard lock(mutex_);
  auto it = dist_to_.find(to_node);
  if (it != dist_to_.end()) return it->second;
  std::vector<uint16_t> dist(topo_.nodes().size(), kUnreachable);
  std::deque<int> queue{to_node};
  dist[to_node] = 0;
  while (!queue.empty()) {  // BFS over reversed links
    int v = queue.front();
    queue.pop_front();
    for (int li : topo_.in_links(v)) {
      int u = topo_.links()[li].from;
      if (dist[u] == kUnreachable) {
        dist[u] = static_cast<uint16_t>(dist[v] + 1);
        queue.push_back(u);
      }
    }
  }
  return dist_to_.emplace(to_node, std::move(dist)).first->second;
}

int Router::distance(int from_node, int to_node) const {
  uint16_t d = distances_to(to_node)[from_node];
  return d == kUnreachable ? -1 : d;
}

std::vector<int> Router::path(int src_rank, int dst_rank, uint64_t flow_id) const {
  int src = topo_.gpus().at(src_rank);
  int dst = topo_.gpus().at(dst_rank);
  std::vector<int> hops;
  if (src == dst) return hops;
  const std::vector<uint16_t>& dist = distances_to(dst);
  if (dist[src] == kUnreachable)
    throw std::invalid_argument("no route from rank " + std::to_string(src_rank) + " to rank " +
                                std::to_string(dst_rank));
  int v = src;
  int candidates[64];
  while (v != dst) {
    int count = 0;
    for (int li : topo_.out_links(v)) {
      const Link& l = topo_.links()[li];
      if (dist[l.to] + 1 == dist[v] && count < 64) candidates[count++] = li;
    }
    int pick = candidates[count == 1 ? 0 : mix64(flow_id * 0x9e3779b97f4a7c15ull + v) % count];
    hops.push_back(pick);
    v = topo_.links()[pick].to;
  }
  return hops;
}

}  // namespace commlab
