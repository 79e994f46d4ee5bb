#include "topology/routing.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "numeric/rng.h"

namespace commlab {

namespace {
constexpr uint16_t kFar = 0xffff;

bool is_switch(const Topology& t, int node) {
  return t.nodes()[node].kind == NodeKind::kSwitch;
}
}  // namespace

Router::Router(const Topology& topology) : topo_(topology) {
  const auto& nodes = topo_.nodes();
  const auto& links = topo_.links();
  const int n = static_cast<int>(nodes.size());
  box_of_.assign(n, -1);
  local_.assign(n, -1);
  // Boxes: connected components of non-switch nodes over links in either direction.
  for (int s = 0; s < n; ++s) {
    if (is_switch(topo_, s)) {
      local_[s] = static_cast<int>(switches_.size());
      switches_.push_back(s);
      continue;
    }
    if (box_of_[s] >= 0) continue;
    int box = static_cast<int>(box_nodes_.size());
    box_nodes_.emplace_back();
    std::vector<int> stack{s};
    box_of_[s] = box;
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      local_[v] = static_cast<int>(box_nodes_[box].size());
      box_nodes_[box].push_back(v);
      for (const auto* adj : {&topo_.out_links(v), &topo_.in_links(v)})
        for (int li : *adj) {
          int w = links[li].from == v ? links[li].to : links[li].from;
          if (!is_switch(topo_, w) && box_of_[w] < 0) {
            box_of_[w] = box;
            stack.push_back(w);
          }
        }
    }
  }
  box_exits_.resize(box_nodes_.size());
  for (int li = 0; li < static_cast<int>(links.size()); ++li)
    if (box_of_[links[li].from] >= 0 && is_switch(topo_, links[li].to))
      box_exits_[box_of_[links[li].from]].push_back(li);
  to_switch_.resize(switches_.size());
  in_box_.resize(n);
  entries_.resize(n);
  entries_done_.assign(n, 0);
}

int Router::switch_dist(int from_switch, int to_switch) const {
  std::vector<uint16_t>& dist = to_switch_[to_switch];
  if (dist.empty()) {  // BFS over reversed switch-to-switch links
    dist.assign(switches_.size(), kFar);
    std::vector<int> queue{to_switch};
    dist[to_switch] = 0;
    for (size_t head = 0; head < queue.size(); ++head) {
      int v = queue[head];
      for (int li : topo_.in_links(switches_[v])) {
        int u = topo_.links()[li].from;
        if (!is_switch(topo_, u) || dist[local_[u]] != kFar) continue;
        dist[local_[u]] = static_cast<uint16_t>(dist[v] + 1);
        queue.push_back(local_[u]);
      }
    }
  }
  uint16_t d = dist[from_switch];
  return d == kFar ? kInf : d;
}

int Router::in_box(int v, int d) const {
  if (box_of_[v] != box_of_[d] || box_of_[d] < 0) return kInf;
  std::vector<uint16_t>& dist = in_box_[d];
  if (dist.empty()) {  // BFS over reversed links inside d's box
    dist.assign(box_nodes_[box_of_[d]].size(), kFar);
    std::vector<int> queue{d};
    dist[local_[d]] = 0;
    for (size_t head = 0; head < queue.size(); ++head) {
      int x = queue[head];
      for (int li : topo_.in_links(x)) {
        int u = topo_.links()[li].from;
        if (box_of_[u] != box_of_[d] || dist[local_[u]] != kFar) continue;
        dist[local_[u]] = static_cast<uint16_t>(dist[local_[x]] + 1);
        queue.push_back(u);
      }
    }
  }
  uint16_t h = dist[local_[v]];
  return h == kFar ? kInf : h;
}

const std::vector<Router::Entry>& Router::entries(int d) const {
  if (!entries_done_[d]) {
    entries_done_[d] = 1;
    std::vector<Entry>& out = entries_[d];
    if (box_of_[d] < 0) {
      out.push_back({local_[d], 0});  // a switch is its own entry
    } else {
      for (int b : box_nodes_[box_of_[d]])
        for (int li : topo_.in_links(b)) {
          int s = topo_.links()[li].from;
          if (!is_switch(topo_, s)) continue;
          int h = in_box(b, d);
          if (h >= kInf) continue;
          auto it = std::find_if(out.begin(), out.end(),
                                 [&](const Entry& e) { return e.switch_index == local_[s]; });
          if (it == out.end())
            out.push_back({local_[s], h + 1});
          else
            it->hops = std::min(it->hops, h + 1);
        }
    }
  }
  return entries_[d];
}

int Router::dist(int v, int d) const {
  if (v == d) return 0;
  if (box_of_[v] < 0) {  // a switch: cross switches to an entry of d
    int best = kInf;
    for (const Entry& e : entries(d))
      best = std::min(best, switch_dist(local_[v], e.switch_index) + e.hops);
    return best;
  }
  int best = dist_via_exits(v, d);
  if (box_of_[v] == box_of_[d]) best = std::min(best, in_box(v, d));
  return best;
}

int Router::dist_via_exits(int v, int d) const {
  int best = kInf;
  for (int li : box_exits_[box_of_[v]]) {
    const Link& l = topo_.links()[li];
    int to_exit = in_box(v, l.from);
    if (to_exit >= kInf) continue;
    best = std::min(best, to_exit + 1 + dist(l.to, d));
  }
  return best;
}

int Router::distance(int from_node, int to_node) const {
  std::lock_guard lock(mutex_);
  int h = dist(from_node, to_node);
  return h >= kInf ? -1 : h;
}

std::vector<int> Router::path(int src_rank, int dst_rank, uint64_t flow_id) const {
  std::vector<int> hops;
  append_path(src_rank, dst_rank, flow_id, hops);
  return hops;
}

void Router::append_path(int src_rank, int dst_rank, uint64_t flow_id,
                         std::vector<int>& out) const {
  const int src = topo_.gpus().at(src_rank);
  const int dst = topo_.gpus().at(dst_rank);
  if (src == dst) return;
  std::lock_guard lock(mutex_);
  int remaining = dist(src, dst);
  if (remaining >= kInf)
    throw std::invalid_argument("no route from rank " + std::to_string(src_rank) + " to rank " +
                                std::to_string(dst_rank));
  const int dst_box = box_of_[dst];
  int v = src;
  int candidates[256];
  while (v != dst) {
    int count = 0;
    for (int li : topo_.out_links(v)) {
      int w = topo_.links()[li].to;
      // No transit through a third box: from a switch only into the destination's box; from a
      // box node only within its own box, to a switch, or into the destination's box.
      bool allowed =
          box_of_[w] < 0 || box_of_[w] == dst_box || (box_of_[v] >= 0 && box_of_[w] == box_of_[v]);
      if (allowed && count < 256 && dist(w, dst) == remaining - 1) candidates[count++] = li;
    }
    if (count == 0)  // dist() and the walk disagree: a bug, not a user error
      throw std::logic_error("router: no next hop from node " + std::to_string(v));
    int pick = candidates[count == 1 ? 0 : mix64(flow_id * 0x9e3779b97f4a7c15ull + v) % count];
    out.push_back(pick);
    v = topo_.links()[pick].to;
    --remaining;
  }
}

}  // namespace commlab
