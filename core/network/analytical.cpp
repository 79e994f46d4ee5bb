#include "network/analytical.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "numeric/rng.h"

namespace commlab {

namespace {
// Caches are dropped wholesale past this many cached flows (patterns + results): a schedule
// cycles through few patterns, so a simple bound beats an LRU here.
constexpr size_t kMaxCachedFlows = size_t{1} << 21;  // ~100 MB of patterns and results
constexpr size_t kMaxPathLinks = size_t{1} << 24;    // 64 MB of cached path links

uint64_t flow_key(const Flow& f) {
  return mix64(
      (static_cast<uint64_t>(static_cast<uint32_t>(f.src)) << 32 | static_cast<uint32_t>(f.dst)) ^
      (f.id * 0x9e3779b97f4a7c15ull));
}

bool same_flows(const std::vector<Flow>& key, std::span<const Flow> flows) {
  if (key.size() != flows.size()) return false;
  for (size_t i = 0; i < flows.size(); ++i)
    if (key[i].src != flows[i].src || key[i].dst != flows[i].dst || key[i].id != flows[i].id)
      return false;
  return true;
}
}  // namespace

AnalyticalBackend::AnalyticalBackend(Topology topology)
    : topo_(std::move(topology)), router_(topo_) {
  topo_.check();
  scratch_.assign(topo_.links().size(), -1);
}

void AnalyticalBackend::clear_caches() {
  patterns_.clear();
  results_.clear();
  path_index_.clear();
  path_store_.clear();
  fraction_store_.clear();
  cached_flows_ = 0;
}

void AnalyticalBackend::set_routing(RoutingMode mode) {
  routing_ = mode;
  clear_caches();  // cached routes and results belong to the old mode
}

void AnalyticalBackend::set_link_accounting(bool on) {
  accounting_ = on;
  link_bytes_.assign(on ? topo_.links().size() : 0, 0.0);
}

void AnalyticalBackend::route(const Flow& f, std::vector<int>& out,
                              std::vector<double>& fractions) {
  const bool ideal = routing_ == RoutingMode::kIdeal;
  auto compute = [&] {
    if (ideal) return router_.append_spread(f.src, f.dst, out, fractions);
    const size_t before = out.size();
    router_.append_path(f.src, f.dst, f.id, out);
    fractions.insert(fractions.end(), out.size() - before, 1.0);
  };
  // Keyed by a 64-bit hash of (src, dst, id); the stored route is checked to start at src's GPU
  // and end at dst's, so a collision cannot silently return a wrong route.
  const uint64_t k = flow_key(f);
  auto it = path_index_.find(k);
  if (it != path_index_.end()) {
    auto [begin, len] = it->second;
    const auto& links = topo_.links();
    if (len > 0 && links[path_store_[begin]].from == topo_.gpus()[f.src] &&
        links[path_store_[begin + len - 1]].to == topo_.gpus()[f.dst]) {
      out.insert(out.end(), path_store_.begin() + begin, path_store_.begin() + begin + len);
      if (ideal)
        fractions.insert(fractions.end(), fraction_store_.begin() + begin,
                         fraction_store_.begin() + begin + len);
      else
        fractions.insert(fractions.end(), len, 1.0);
      return;
    }
    if (len == 0 && f.src == f.dst) return;
  }
  if (path_store_.size() > kMaxPathLinks) {
    path_index_.clear();
    path_store_.clear();
    fraction_store_.clear();
  }
  const size_t before = out.size();
  compute();
  const uint32_t begin = static_cast<uint32_t>(path_store_.size());
  path_store_.insert(path_store_.end(), out.begin() + before, out.end());
  if (ideal)
    fraction_store_.insert(fraction_store_.end(), fractions.end() - (out.size() - before),
                           fractions.end());
  path_index_[k] = {begin, static_cast<uint32_t>(out.size() - before)};
}

const StepPattern& AnalyticalBackend::pattern_for(std::span<const Flow> flows, uint64_t key) {
  auto it = patterns_.find(key);
  if (it != patterns_.end() && same_flows(it->second->key, flows)) {
    ++stats_.pattern_hits;
    return *it->second;
  }
  ++stats_.patterns_built;
  auto built = std::make_unique<StepPattern>(build_step_pattern(
      topo_, flows,
      [this](const Flow& f, std::vector<int>& links, std::vector<double>& fractions) {
        route(f, links, fractions);
      },
      scratch_));
  if (cached_flows_ + flows.size() > kMaxCachedFlows) {
    patterns_.clear();
    results_.clear();
    cached_flows_ = 0;
  }
  cached_flows_ += flows.size();
  auto& slot = patterns_[key];
  slot = std::move(built);  // replaces a colliding pattern, if any
  return *slot;
}

void AnalyticalBackend::account(std::span<const Flow> flows) {
  for (const Flow& f : flows) {
    account_links_.clear();
    account_fractions_.clear();
    route(f, account_links_, account_fractions_);
    for (size_t k = 0; k < account_links_.size(); ++k)
      link_bytes_[account_links_[k]] += account_fractions_[k] * static_cast<double>(f.bytes);
  }
}

StepResult AnalyticalBackend::time_step(std::span<const Flow> flows, const StepOptions&) {
  StepResult result = solve(flows);
  if (accounting_) account(flows);
  return result;
}

// A contended step with the same flows and bytes as one solved before: its cached finish times.
bool AnalyticalBackend::cached_result(uint64_t key, std::span<const Flow> flows,
                                      StepResult& result) {
  const size_t n = flows.size();
  auto pattern = patterns_.find(key);
  bool contended = pattern != patterns_.end() && !pattern->second->components.empty();
  uint64_t bytes_hash = 0xb17e5;
  if (contended)
    for (const Flow& f : flows) bytes_hash = (bytes_hash ^ mix64(f.bytes)) * 0x100000001b3ull;
  auto it = contended ? results_.find(key ^ mix64(bytes_hash)) : results_.end();
  if (it != results_.end() && it->second.bytes.size() == n &&
      same_flows(pattern->second->key, flows)) {
    bool same = true;
    for (size_t i = 0; same && i < n; ++i) same = it->second.bytes[i] == flows[i].bytes;
    if (same) {
      ++stats_.result_hits;
      for (size_t i = 0; i < n; ++i) result.flows[i].finish_s = it->second.finish_s[i];
      result.duration_s = it->second.duration_s;
      return true;
    }
  }
  return false;
}

StepResult AnalyticalBackend::solve(std::span<const Flow> flows) {
  ++stats_.steps;
  const size_t n = flows.size();
  // One mix per flow: this loop and the result are the whole cost of a step whose pattern is
  // cached and uncontended (a ring step with uneven chunks, say).
  uint64_t key = mix64(0x5eed ^ n);
  for (const Flow& f : flows) key = (key ^ flow_key(f)) * 0x100000001b3ull;
  StepResult result;
  result.flows.resize(n);
  if (cached_result(key, flows, result)) return result;
  const StepPattern& pattern = pattern_for(flows, key);
  std::vector<double> finish(n);
  solve_step(pattern, flows, finish);
  for (size_t i = 0; i < n; ++i) {
    finish[i] += pattern.latency[i];
    result.flows[i].finish_s = finish[i];
    result.duration_s = std::max(result.duration_s, finish[i]);
  }
  if (!pattern.components.empty()) {
    // Only contended steps are worth remembering: uncontended ones solve in one pass anyway.
    uint64_t bytes_hash = 0xb17e5;
    for (const Flow& f : flows) bytes_hash = (bytes_hash ^ mix64(f.bytes)) * 0x100000001b3ull;
    CachedResult& c = results_[key ^ mix64(bytes_hash)];
    c.bytes.resize(n);
    for (size_t i = 0; i < n; ++i) c.bytes[i] = flows[i].bytes;
    c.finish_s = std::move(finish);
    c.duration_s = result.duration_s;
    cached_flows_ += n;
  }
  return result;
}

std::vector<LinkTier> link_tiers(const Topology& topology) {
  auto end_name = [&](int node) {
    const Node& n = topology.nodes()[node];
    std::string name = node_kind_name(n.kind);
    return n.kind == NodeKind::kSwitch ? name + " t" + std::to_string(n.tier) : name;
  };
  std::vector<LinkTier> tiers;
  std::unordered_map<std::string, size_t> index;
  const auto& links = topology.links();
  for (int li = 0; li < static_cast<int>(links.size()); ++li) {
    std::string name = end_name(links[li].from) + "->" + end_name(links[li].to);
    auto [it, fresh] = index.emplace(name, tiers.size());
    if (fresh) tiers.push_back({std::move(name), {}});
    tiers[it->second].links.push_back(li);
  }
  return tiers;
}

std::vector<TierImbalance> tier_loads(const Topology& topology,
                                      const std::vector<double>& link_bytes) {
  std::vector<TierImbalance> out;
  if (link_bytes.size() != topology.links().size()) return out;
  for (const LinkTier& tier : link_tiers(topology)) {
    if (tier.links.size() < 2) continue;
    TierImbalance t{tier.name};
    const Link& first = topology.links()[tier.links[0]];
    t.from_box = topology.nodes()[first.from].kind != NodeKind::kSwitch;
    for (int li : tier.links) {
      t.busiest_bytes = std::max(t.busiest_bytes, link_bytes[li]);
      t.busiest_s = std::max(t.busiest_s, link_bytes[li] / topology.links()[li].bandwidth_Bps);
      t.mean_bytes += link_bytes[li];
    }
    t.mean_bytes /= static_cast<double>(tier.links.size());
    out.push_back(std::move(t));
  }
  return out;
}

TierImbalance most_imbalanced_tier(const std::vector<TierImbalance>& tiers) {
  TierImbalance worst;
  for (const TierImbalance& t : tiers)
    if (t.mean_bytes > 0 && (worst.tier.empty() || t.ratio() > worst.ratio())) worst = t;
  return worst;
}

double busy_over_endpoints(const std::vector<TierImbalance>& tiers, const std::string& name) {
  double endpoints = 0;
  for (const TierImbalance& t : tiers)
    if (t.from_box) endpoints = std::max(endpoints, t.busiest_s);
  const double tier = find_tier(tiers, name).busiest_s;
  return endpoints > 0 ? tier / endpoints : 0.0;
}

TierImbalance find_tier(const std::vector<TierImbalance>& tiers, const std::string& name) {
  for (const TierImbalance& t : tiers)
    if (t.tier == name) return t;
  return {};
}

}  // namespace commlab
