#include "network/analytical/analytical_maxmin.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace commlab {

StepPattern build_step_pattern(const Topology& topo, std::span<const Flow> flows,
                               const PathOf& path_of, std::vector<int>& scratch) {
  const size_t n = flows.size();
  StepPattern p;
  p.key.assign(flows.begin(), flows.end());
  for (Flow& f : p.key) f.bytes = 0;
  p.latency.assign(n, 0.0);
  p.solo_rate.assign(n, 0.0);
  p.routed.assign(n, 0);
  // Paths over step-local link ids; `scratch` maps a topology link to its local id.
  std::vector<uint32_t> begin(n + 1, 0), links;
  std::vector<int> global;           // local id -> topology link
  std::vector<uint32_t> first_user;  // local id -> first flow on it
  std::vector<uint32_t> parent(n);   // union-find over flows sharing a link
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<int> path;
  std::vector<double> fraction, fractions;  // fractions: parallel to `links`
  for (size_t i = 0; i < n; ++i) {
    path.clear();
    fraction.clear();
    path_of(flows[i], path, fraction);
    p.routed[i] = !path.empty();
    double bottleneck = std::numeric_limits<double>::infinity();
    for (size_t k = 0; k < path.size(); ++k) {
      const int li = path[k];
      const Link& l = topo.links()[li];
      p.latency[i] += fraction[k] * l.latency_s;
      bottleneck = std::min(bottleneck,
                            fraction[k] == 1.0 ? l.bandwidth_Bps : l.bandwidth_Bps / fraction[k]);
      if (scratch[li] < 0) {
        scratch[li] = static_cast<int>(global.size());
        global.push_back(li);
        first_user.push_back(static_cast<uint32_t>(i));
      } else {
        uint32_t a = find(first_user[scratch[li]]), b = find(static_cast<uint32_t>(i));
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
      }
      links.push_back(static_cast<uint32_t>(scratch[li]));
      fractions.push_back(fraction[k]);
    }
    begin[i + 1] = static_cast<uint32_t>(links.size());
    p.solo_rate[i] = path.empty() ? 0.0 : bottleneck;
  }
  for (int li : global) scratch[li] = -1;

  // Group flows by component root; singletons keep their solo rate.
  std::vector<uint32_t> size(n, 0);
  for (size_t i = 0; i < n; ++i) ++size[find(static_cast<uint32_t>(i))];
  std::vector<int> comp_of_root(n, -1);
  std::vector<int> comp_local(global.size(), -1);
  for (size_t i = 0; i < n; ++i) {
    uint32_t r = find(static_cast<uint32_t>(i));
    if (size[r] < 2) continue;
    p.solo_rate[i] = 0.0;
    if (comp_of_root[r] < 0) {
      comp_of_root[r] = static_cast<int>(p.components.size());
      p.components.emplace_back();
      p.components.back().flow_begin.push_back(0);
    }
    StepPattern::Component& c = p.components[comp_of_root[r]];
    c.flows.push_back(static_cast<uint32_t>(i));
    for (uint32_t k = begin[i]; k < begin[i + 1]; ++k) {
      uint32_t g = links[k];
      if (comp_local[g] < 0) {
        comp_local[g] = static_cast<int>(c.capacity.size());
        c.capacity.push_back(topo.links()[global[g]].bandwidth_Bps);
      }
      c.flow_links.push_back(static_cast<uint32_t>(comp_local[g]));
      c.flow_fractions.push_back(fractions[k]);
    }
    c.flow_begin.push_back(static_cast<uint32_t>(c.flow_links.size()));
  }
  for (StepPattern::Component& c : p.components) {  // transpose flow -> links into link -> flows
    c.link_begin.assign(c.capacity.size() + 1, 0);
    for (uint32_t l : c.flow_links) ++c.link_begin[l + 1];
    std::partial_sum(c.link_begin.begin(), c.link_begin.end(), c.link_begin.begin());
    c.link_flows.resize(c.flow_links.size());
    std::vector<uint32_t> fill(c.link_begin.begin(), c.link_begin.end() - 1);
    for (uint32_t f = 0; f < c.flows.size(); ++f)
      for (uint32_t k = c.flow_begin[f]; k < c.flow_begin[f + 1]; ++k)
        c.link_flows[fill[c.flow_links[k]]++] = f;
  }
  return p;
}

namespace {
// Binary min-heap of link ids keyed by their fair share, with positions so that a link's key can
// move either way in O(log L). It never holds more than the component's links (stays in L1),
// unlike a lazy heap that collects one stale entry per flow-link update.
class ShareHeap {
 public:
  ShareHeap(const std::vector<double>& share, size_t links) : share_(share), pos_(links, -1) {}
  bool empty() const { return heap_.empty(); }
  uint32_t top() const { return heap_[0]; }
  void push(uint32_t l) {
    pos_[l] = static_cast<int>(heap_.size());
    heap_.push_back(l);
    up(pos_[l]);
  }
  void remove(uint32_t l) {
    int i = pos_[l];
    if (i < 0) return;
    pos_[l] = -1;
    uint32_t last = heap_.back();
    heap_.pop_back();
    if (i == static_cast<int>(heap_.size())) return;
    heap_[i] = last;
    pos_[last] = i;
    update(last);
  }
  void update(uint32_t l) {
    if (pos_[l] >= 0) down(up(pos_[l]));
  }

 private:
  bool less(uint32_t a, uint32_t b) const {
    return share_[a] != share_[b] ? share_[a] < share_[b] : a < b;
  }
  int up(int i) {
    uint32_t l = heap_[i];
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (!less(l, heap_[parent])) break;
      heap_[i] = heap_[parent];
      pos_[heap_[i]] = i;
      i = parent;
    }
    heap_[i] = l;
    pos_[l] = i;
    return i;
  }
  void down(int i) {
    uint32_t l = heap_[i];
    const int n = static_cast<int>(heap_.size());
    while (true) {
      int child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && less(heap_[child + 1], heap_[child])) ++child;
      if (!less(heap_[child], l)) break;
      heap_[i] = heap_[child];
      pos_[heap_[i]] = i;
      i = child;
    }
    heap_[i] = l;
    pos_[l] = i;
  }

  const std::vector<double>& share_;
  std::vector<uint32_t> heap_;
  std::vector<int> pos_;
};
}  // namespace

void max_min_rates(const StepPattern::Component& c, std::span<const uint32_t> active,
                   std::span<double> rate) {
  const size_t num_links = c.capacity.size();
  // load: summed fractions of the unfrozen flows (their count when every fraction is 1, so
  // per-flow ECMP divides by exact integers as a plain flow count would).
  std::vector<double> cap(c.capacity), share(num_links, 0.0), load(num_links, 0.0);
  std::vector<uint32_t> users(num_links, 0), touched;
  std::vector<char> live(c.flows.size(), 0), mark(num_links, 0);  // live: active, not frozen
  for (uint32_t f : active) {
    live[f] = 1;
    for (uint32_t k = c.flow_begin[f]; k < c.flow_begin[f + 1]; ++k) {
      ++users[c.flow_links[k]];
      load[c.flow_links[k]] += c.flow_fractions[k];
    }
  }
  ShareHeap heap(share, num_links);
  for (uint32_t l = 0; l < num_links; ++l)
    if (users[l] > 0) {
      share[l] = cap[l] / load[l];
      heap.push(l);
    }
  size_t unfrozen = active.size();
  while (unfrozen > 0 && !heap.empty()) {
    // The most constrained link saturates: every live flow through it gets its fair share.
    const uint32_t link = heap.top();
    const double s = share[link];
    heap.remove(link);
    for (uint32_t k = c.link_begin[link]; k < c.link_begin[link + 1]; ++k) {
      uint32_t f = c.link_flows[k];
      if (!live[f]) continue;
      live[f] = 0;
      rate[f] = s;
      --unfrozen;
      for (uint32_t j = c.flow_begin[f]; j < c.flow_begin[f + 1]; ++j) {
        uint32_t m = c.flow_links[j];
        cap[m] = std::max(0.0, cap[m] - s * c.flow_fractions[j]);
        load[m] -= c.flow_fractions[j];
        --users[m];
        if (!mark[m]) mark[m] = 1, touched.push_back(m);
      }
    }
    // One heap update per link touched, not per (flow, link).
    for (uint32_t m : touched) {
      mark[m] = 0;
      if (m == link) continue;
      if (users[m] == 0) {
        heap.remove(m);
      } else {
        share[m] = cap[m] / load[m];
        heap.update(m);
      }
    }
    touched.clear();
  }
}

namespace {
// Progressive filling with phases: rates hold until the next flow finishes, then are recomputed
// for the flows left. Flows within a relative 1e-9 of done finish together (as the reference).
void solve_component(const StepPattern::Component& c, std::span<const Flow> flows,
                     std::span<double> tx_end) {
  const size_t m = c.flows.size();
  std::vector<double> remaining(m), rate(m, 0.0);
  std::vector<uint32_t> active;
  for (uint32_t f = 0; f < m; ++f) {
    remaining[f] = static_cast<double>(flows[c.flows[f]].bytes);
    tx_end[c.flows[f]] = 0.0;
    if (remaining[f] > 0) active.push_back(f);
  }
  double now = 0;
  std::vector<uint32_t> still;
  while (!active.empty()) {
    max_min_rates(c, active, rate);
    double dt = std::numeric_limits<double>::infinity();
    for (uint32_t f : active) dt = std::min(dt, remaining[f] / rate[f]);
    now += dt;
    still.clear();
    for (uint32_t f : active) {
      remaining[f] -= rate[f] * dt;
      if (remaining[f] <= 1e-9 * static_cast<double>(flows[c.flows[f]].bytes))
        tx_end[c.flows[f]] = now;
      else
        still.push_back(f);
    }
    active.swap(still);
  }
}
}  // namespace

void solve_step(const StepPattern& p, std::span<const Flow> flows, std::span<double> tx_end) {
  const size_t n = flows.size();
  for (size_t i = 0; i < n; ++i)  // flows alone on their links (and unrouted ones: rate 0)
    tx_end[i] = p.solo_rate[i] > 0 ? static_cast<double>(flows[i].bytes) / p.solo_rate[i] : 0.0;
  for (const StepPattern::Component& c : p.components) solve_component(c, flows, tx_end);
}

}  // namespace commlab
