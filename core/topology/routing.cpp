#include "topology/routing.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "io/status.h"
#include "numeric/rng.h"

namespace commlab {

namespace {
constexpr uint16_t kFar = 0xffff;
}  // namespace

const char* routing_mode_name(RoutingMode mode) {
  return mode == RoutingMode::kIdeal ? "ideal" : "ecmp";
}

RoutingMode parse_routing_mode(const std::string& name) {
  if (name == "ecmp") return RoutingMode::kEcmp;
  if (name == "ideal") return RoutingMode::kIdeal;
  throw bad_input(
      "routing: expected ecmp (per-flow, hashed onto one path) or ideal "
      "(split evenly over all equal-cost paths), got '" +
      name + "'");
}

Router::Router(const Topology& topology) : topo_(topology) {
  const auto& links = topo_.links();
  const int n = static_cast<int>(topo_.nodes().size());
  is_switch_.resize(n);
  for (int v = 0; v < n; ++v) is_switch_[v] = topo_.nodes()[v].kind == NodeKind::kSwitch;
  box_of_.assign(n, -1);
  local_.assign(n, -1);
  // Boxes: connected components of non-switch nodes over links in either direction.
  std::vector<int> stack;
  for (int s = 0; s < n; ++s) {
    if (is_switch_[s]) {
      local_[s] = static_cast<int>(switches_.size());
      switches_.push_back(s);
      continue;
    }
    if (box_of_[s] >= 0) continue;
    const int box = static_cast<int>(box_nodes_.size());
    box_nodes_.emplace_back();
    stack.assign(1, s);
    box_of_[s] = box;
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      local_[v] = static_cast<int>(box_nodes_[box].size());
      box_nodes_[box].push_back(v);
      for (int li : topo_.out_links(v))
        if (int w = links[li].to; !is_switch_[w] && box_of_[w] < 0)
          box_of_[w] = box, stack.push_back(w);
      for (int li : topo_.in_links(v))
        if (int w = links[li].from; !is_switch_[w] && box_of_[w] < 0)
          box_of_[w] = box, stack.push_back(w);
    }
  }
  box_exits_.resize(box_nodes_.size());
  const int num_sw = static_cast<int>(switches_.size());
  sw_in_begin_.assign(num_sw + 1, 0);
  sw_out_begin_.assign(num_sw + 1, 0);
  for (int li = 0; li < static_cast<int>(links.size()); ++li) {
    const Link& l = links[li];
    if (!is_switch_[l.from] && is_switch_[l.to]) box_exits_[box_of_[l.from]].push_back(li);
    if (is_switch_[l.from] && is_switch_[l.to]) {
      ++sw_in_begin_[local_[l.to] + 1];
      ++sw_out_begin_[local_[l.from] + 1];
    }
  }
  for (int i = 0; i < num_sw; ++i) {
    sw_in_begin_[i + 1] += sw_in_begin_[i];
    sw_out_begin_[i + 1] += sw_out_begin_[i];
  }
  sw_in_.resize(sw_in_begin_.back());
  sw_out_link_.resize(sw_out_begin_.back());
  sw_out_to_.resize(sw_out_begin_.back());
  std::vector<int> in_fill(sw_in_begin_.begin(), sw_in_begin_.end() - 1);
  std::vector<int> out_fill(sw_out_begin_.begin(), sw_out_begin_.end() - 1);
  for (int li = 0; li < static_cast<int>(links.size()); ++li) {
    const Link& l = links[li];
    if (!is_switch_[l.from] || !is_switch_[l.to]) continue;
    sw_in_[in_fill[local_[l.to]]++] = local_[l.from];
    int k = out_fill[local_[l.from]]++;
    sw_out_link_[k] = li;
    sw_out_to_[k] = local_[l.to];
  }
  to_switch_.resize(num_sw);
  in_box_.resize(n);
  entries_.resize(n);
  entry_links_.resize(n);
  entries_done_.assign(n, 0);
}

const std::vector<uint16_t>& Router::to_switch(int target) const {
  if (!to_switch_[target].empty()) return to_switch_[target];
  // Bit-parallel BFS for the 64 switches of target's block at once: reach[u] holds which of them
  // u has reached; one sweep over the switch links per hop count serves all 64 (collectives need
  // most entry switches, which builders number consecutively).
  const int num_sw = static_cast<int>(switches_.size());
  const int first = target / 64 * 64, count = std::min(64, num_sw - first);
  std::vector<uint64_t> reach(num_sw, 0), next(num_sw, 0);
  for (int i = 0; i < count; ++i) {
    to_switch_[first + i].assign(num_sw, kFar);
    to_switch_[first + i][first + i] = 0;
    reach[first + i] = uint64_t{1} << i;
  }
  for (uint16_t hops = 1;; ++hops) {
    bool changed = false;
    for (int u = 0; u < num_sw; ++u) {
      uint64_t r = reach[u];
      for (int k = sw_out_begin_[u]; k < sw_out_begin_[u + 1]; ++k) r |= reach[sw_out_to_[k]];
      next[u] = r;
      for (uint64_t fresh = r & ~reach[u]; fresh; fresh &= fresh - 1) {
        to_switch_[first + __builtin_ctzll(fresh)][u] = hops;
        changed = true;
      }
    }
    reach.swap(next);
    if (!changed || hops == kFar - 1) break;
  }
  return to_switch_[target];
}

int Router::switch_dist(int from_switch, int to_switch_index) const {
  uint16_t d = to_switch(to_switch_index)[from_switch];
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
          if (!is_switch_[s]) continue;
          int h = in_box(b, d);
          if (h >= kInf) continue;
          entry_links_[d].emplace_back(li, h);
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

const std::vector<std::pair<int, int>>& Router::entry_links(int d) const {
  entries(d);
  return entry_links_[d];
}

int Router::dist(int v, int d) const {
  if (v == d) return 0;
  if (is_switch_[v]) {  // cross switches to an entry of d
    int best = kInf;
    for (const Entry& e : entries(d))
      best = std::min(best, switch_dist(local_[v], e.switch_index) + e.hops);
    return best;
  }
  int best = box_of_[v] == box_of_[d] ? in_box(v, d) : kInf;
  return dist_via_exits(v, d, best);
}

int Router::dist_via_exits(int v, int d, int bound) const {
  int best = bound;
  for (int li : box_exits_[box_of_[v]]) {
    const Link& l = topo_.links()[li];
    int to_exit = in_box(v, l.from);
    // Leaving costs the exit link plus at least one more hop: skip exits that cannot beat `best`
    // (inside a server the NVSwitch path usually wins outright).
    if (to_exit >= kInf || to_exit + 2 >= best) continue;
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

int Router::route_length(int src_rank, int dst_rank, int src, int dst) const {
  int remaining = dist(src, dst);
  if (remaining >= kInf)
    throw bad_input("no route from rank " + std::to_string(src_rank) + " to rank " +
                    std::to_string(dst_rank) +
                    " (servers do not forward others' traffic: every path between "
                    "them crosses a third server)");
  return remaining;
}

Router::Target Router::target(int dst) const {
  Target t;
  t.node = dst;
  t.box = box_of_[dst];
  // Switch-side distances to dst as flat arrays: min over entries e of to_switch(e)[w] + hops.
  t.entries = &entries(dst);
  t.entry_links = &entry_links(dst);
  t.num_fast = std::min<int>(static_cast<int>(t.entries->size()), 8);
  for (int e = 0; e < t.num_fast; ++e)
    t.entry_dist[e] = to_switch((*t.entries)[e].switch_index).data();
  return t;
}

// Inlined: the walk's inner loop calls it once per candidate switch.
[[gnu::always_inline]] inline int Router::switch_to_target(const Target& t, int w_local) const {
  if (t.num_fast < static_cast<int>(t.entries->size())) return dist(switches_[w_local], t.node);
  int best = kInf;
  for (int e = 0; e < t.num_fast; ++e)
    if (t.entry_dist[e][w_local] != kFar)
      best = std::min(best, t.entry_dist[e][w_local] + (*t.entries)[e].hops);
  return best;
}

int Router::next_hops(const Target& t, int v, int remaining, int* candidates) const {
  int count = 0;
  if (is_switch_[v]) {
    // Onward through switches, or into dst's box: never through a third box (not transit).
    const int lv = local_[v];
    for (int k = sw_out_begin_[lv]; k < sw_out_begin_[lv + 1] && count < kMaxNextHops; ++k)
      if (switch_to_target(t, sw_out_to_[k]) == remaining - 1)
        candidates[count++] = sw_out_link_[k];
    for (const auto& [li, h] : *t.entry_links)
      if (topo_.links()[li].from == v && h == remaining - 1 && count < kMaxNextHops)
        candidates[count++] = li;
  } else {
    // Within the own box, to a switch, or straight into dst's box.
    for (int li : topo_.out_links(v)) {
      int w = topo_.links()[li].to;
      bool allowed = is_switch_[w] || box_of_[w] == t.box || box_of_[w] == box_of_[v];
      if (allowed && count < kMaxNextHops && dist(w, t.node) == remaining - 1)
        candidates[count++] = li;
    }
  }
  if (count == 0)  // dist() and the walk disagree: a bug, not a user error
    throw std::logic_error("router: no next hop from node " + std::to_string(v));
  if (count > 1 && !had_choice_.load(std::memory_order_relaxed))
    had_choice_.store(true, std::memory_order_relaxed);
  return count;
}

uint32_t& Router::next_hop_slot(int dst, int v, bool first) const {
  const size_t n = topo_.nodes().size();
  if (n <= kFlatCacheNodes) {
    if (next_hop_flat_.empty()) next_hop_flat_.assign(2 * n * n, 0);
    return next_hop_flat_[(static_cast<size_t>(dst) * 2 + first) * n + v];
  }
  return next_hop_index_[static_cast<uint64_t>(dst) << 33 | static_cast<uint64_t>(first) << 32 |
                         static_cast<uint32_t>(v)];
}

size_t Router::walk_step(std::optional<Target>& t, int src_rank, int dst_rank, int v,
                         int remaining) const {
  const int dst = topo_.gpus()[dst_rank];
  const bool first = remaining < 0;
  // A walk usually stands dist(v, dst) hops from dst, but an entry link into dst's box counts
  // hops inside the box only: an entry made for another `remaining` is recomputed, not trusted.
  if (const uint32_t slot = next_hop_slot(dst, v, first);
      slot > 0 && (first || next_hop_pool_[slot - 1] == remaining))
    return slot - 1;
  if (first) remaining = route_length(src_rank, dst_rank, v, dst);
  if (!t) t = target(dst);
  int candidates[kMaxNextHops];
  const int count = next_hops(*t, v, remaining, candidates);
  if (next_hop_pool_.size() + count + 2 > kMaxCachedHopInts) {
    std::fill(next_hop_flat_.begin(), next_hop_flat_.end(), 0);
    next_hop_index_.clear();
    next_hop_pool_.clear();
  }
  const size_t at = next_hop_pool_.size();
  next_hop_pool_.push_back(remaining);
  next_hop_pool_.push_back(count);
  next_hop_pool_.insert(next_hop_pool_.end(), candidates, candidates + count);
  next_hop_slot(dst, v, first) = static_cast<uint32_t>(at + 1);
  return at;
}

void Router::append_path(int src_rank, int dst_rank, uint64_t flow_id,
                         std::vector<int>& out) const {
  const int src = topo_.gpus().at(src_rank);
  const int dst = topo_.gpus().at(dst_rank);
  if (src == dst) return;
  std::lock_guard lock(mutex_);
  std::optional<Target> t;  // built on the first cache miss only
  int v = src, remaining = -1;
  while (v != dst) {
    const size_t at = walk_step(t, src_rank, dst_rank, v, remaining);
    remaining = next_hop_pool_[at];
    const int count = next_hop_pool_[at + 1];
    const int* candidates = next_hop_pool_.data() + at + 2;
    int pick = candidates[count == 1 ? 0 : mix64(flow_id * 0x9e3779b97f4a7c15ull + v) % count];
    out.push_back(pick);
    v = topo_.links()[pick].to;
    --remaining;
  }
}

Router::PathDag Router::path_dag(int src_rank, int dst_rank, int src, int dst) const {
  const int length = route_length(src_rank, dst_rank, src, dst);
  const Target t = target(dst);
  // Forward: paths from src to each node; every edge of the DAG is recorded once, layer by layer.
  PathDag dag;
  std::vector<int> node_of{src};  // DAG index -> topology node
  std::unordered_map<int, int> index{{src, 0}};
  dag.from_src.assign(1, 1.0);
  std::vector<int> layer{0}, next;
  int candidates[kMaxNextHops];
  for (int remaining = length; remaining > 0; --remaining) {
    next.clear();
    for (int a : layer) {
      const int count = next_hops(t, node_of[a], remaining, candidates);
      for (int k = 0; k < count; ++k) {
        const int w = topo_.links()[candidates[k]].to;
        auto [it, fresh] = index.emplace(w, static_cast<int>(node_of.size()));
        if (fresh) {
          node_of.push_back(w);
          dag.from_src.push_back(0.0);
          next.push_back(it->second);
        }
        dag.from_src[it->second] += dag.from_src[a];
        dag.edges.push_back({a, candidates[k], it->second});
      }
    }
    layer.swap(next);
  }
  // Backward: paths from each node to dst, visiting edges latest layer first.
  dag.to_dst.assign(node_of.size(), 0.0);
  dag.to_dst[index.at(dst)] = 1.0;
  for (auto e = dag.edges.rbegin(); e != dag.edges.rend(); ++e)
    dag.to_dst[e->from] += dag.to_dst[e->to];
  return dag;
}

void Router::append_spread(int src_rank, int dst_rank, std::vector<int>& links,
                           std::vector<double>& fractions) const {
  const int src = topo_.gpus().at(src_rank);
  const int dst = topo_.gpus().at(dst_rank);
  if (src == dst) return;
  std::lock_guard lock(mutex_);
  const PathDag dag = path_dag(src_rank, dst_rank, src, dst);
  const double paths = dag.to_dst[0];
  for (const PathDag::Edge& e : dag.edges) {
    links.push_back(e.link);
    fractions.push_back(dag.from_src[e.from] * dag.to_dst[e.to] / paths);
  }
}

uint32_t Router::equal_cost_paths(int src_rank, int dst_rank) const {
  const int src = topo_.gpus().at(src_rank);
  const int dst = topo_.gpus().at(dst_rank);
  if (src == dst) return 1;
  std::lock_guard lock(mutex_);
  const uint64_t key = static_cast<uint64_t>(src_rank) << 32 | static_cast<uint32_t>(dst_rank);
  if (auto it = path_counts_.find(key); it != path_counts_.end()) return it->second;
  const double paths = path_dag(src_rank, dst_rank, src, dst).to_dst[0];
  if (path_counts_.size() >= kMaxCachedPathCounts) path_counts_.clear();
  const double cap = static_cast<double>(UINT32_MAX);
  return path_counts_[key] = static_cast<uint32_t>(std::min(paths, cap));
}

}  // namespace commlab
