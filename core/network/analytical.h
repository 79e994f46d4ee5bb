#pragma once
// Analytical (flow-level) backend: alpha-beta per link, concurrent flows share every link max-min
// fairly (progressive filling), rates are recomputed whenever a flow finishes. A flow's time is the
// sum of its path's latencies plus its bytes over the rate it was given.
//
// Speed (collective schedules are regular): a step's pattern (paths, sharing components) is built
// once per distinct (src, dst, id) list and reused when only the bytes change; a whole step result
// is reused when the bytes repeat too. Flows alone on their links skip max-min entirely. Results
// are exact: tests compare with time_step_reference(), the plain algorithm. The caches make
// time_step non-const: use one backend per thread (the Router inside is thread-safe).
//
// Routing (set_routing): per-flow ECMP by default, as switches hash flows; RoutingMode::kIdeal
// splits every flow evenly over all its equal-cost paths (packet spraying), the load-balance bound
// that per-flow collisions are measured against. Link accounting (set_link_accounting) adds up the
// bytes each link carries over the steps timed, for the per-tier load imbalance (link_tiers()).
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "network/analytical/analytical_maxmin.h"
#include "network/backend.h"
#include "topology/routing.h"
#include "topology/topology.h"

namespace commlab {

class AnalyticalBackend : public NetworkBackend {
 public:
  explicit AnalyticalBackend(Topology topology);
  AnalyticalBackend(const AnalyticalBackend&) = delete;
  AnalyticalBackend& operator=(const AnalyticalBackend&) = delete;

  std::string name() const override { return "analytical"; }
  const Topology& topology() const override { return topo_; }
  StepResult time_step(std::span<const Flow> flows, const StepOptions& options = {}) override;

  struct Stats {
    uint64_t steps = 0;
    uint64_t result_hits = 0;   // same flows and bytes as a cached step
    uint64_t pattern_hits = 0;  // same flows, new bytes
    uint64_t patterns_built = 0;
  };
  const Stats& stats() const { return stats_; }
  const Router& router() const { return router_; }
  // Drops the caches (routes change).
  void set_routing(RoutingMode mode);
  RoutingMode routing() const { return routing_; }
  // On: every timed step adds each flow's bytes (x its fraction) to the links it uses. Off by
  // default (it routes every flow again per step); turning it on clears the counts.
  void set_link_accounting(bool on);
  const std::vector<double>& link_bytes() const { return link_bytes_; }

 private:
  const StepPattern& pattern_for(std::span<const Flow> flows, uint64_t key);
  StepResult solve(std::span<const Flow> flows);
  bool cached_result(uint64_t key, std::span<const Flow> flows, StepResult& result);
  // Appends the flow's links and the fraction of its bytes on each (cached by (src, dst, id)).
  void route(const Flow& f, std::vector<int>& links, std::vector<double>& fractions);
  void account(std::span<const Flow> flows);
  void clear_caches();

  Topology topo_;
  Router router_;
  RoutingMode routing_ = RoutingMode::kEcmp;
  bool accounting_ = false;
  std::vector<double> link_bytes_;  // per topology link, when accounting
  std::vector<int> account_links_;  // scratch for account()
  std::vector<double> account_fractions_;
  Stats stats_;
  std::vector<int> scratch_;  // per topology link, -1 (pattern building)
  // Paths by (src, dst, id): collectives reuse their flows across steps and sizes.
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> path_index_;
  std::vector<int> path_store_;
  std::vector<double> fraction_store_;  // parallel to path_store_ under kIdeal; empty for ECMP
  std::unordered_map<uint64_t, std::unique_ptr<StepPattern>> patterns_;
  struct CachedResult {
    std::vector<uint64_t> bytes;
    std::vector<double> finish_s;
    double duration_s = 0;
  };
  std::unordered_map<uint64_t, CachedResult> results_;  // by pattern key ^ bytes hash
  size_t cached_flows_ = 0;                             // bounds the caches' memory
};

// The plain algorithm (every link scanned per filling round, no caches): the reference the fast
// path is tested against.
StepResult time_step_reference(const Topology& topology, const Router& router,
                               std::span<const Flow> flows,
                               RoutingMode routing = RoutingMode::kEcmp);

// Links grouped by tier, "nic->switch t1", "switch t1->switch t2" and so on (node kind, and the
// tier for network switches, of both ends), in order of first appearance; every link in one.
struct LinkTier {
  std::string name;
  std::vector<int> links;
};
std::vector<LinkTier> link_tiers(const Topology& topology);

// Bytes on a tier's links: its busiest link against the mean over all its links, used or not (what
// every link would carry if the tier's bytes spread evenly), and the longest any of its links is
// busy at line rate (bytes / bandwidth), to set against the links out of the GPUs' boxes.
struct TierImbalance {
  std::string tier;
  double busiest_bytes = 0, mean_bytes = 0;
  double busiest_s = 0;
  bool from_box = false;  // the tier's links leave a GPU's box (GPU, NIC): its endpoint links
  double ratio() const { return mean_bytes > 0 ? busiest_bytes / mean_bytes : 0.0; }
};
// One per tier of two or more links (link_tiers order); empty when link_bytes does not have one
// entry per link.
std::vector<TierImbalance> tier_loads(const Topology& topology,
                                      const std::vector<double>& link_bytes);
// The tier whose busiest link carries the most against its mean, among tiers that carry anything:
// where routing concentrates load. Empty tier name when none carries anything.
TierImbalance most_imbalanced_tier(const std::vector<TierImbalance>& tiers);
// busiest_s of the named tier over the longest busiest_s of the box-leaving tiers (0 when either is
// missing): above 1, a switch link needs longer at line rate than any GPU's own link.
double busy_over_endpoints(const std::vector<TierImbalance>& tiers, const std::string& name);
// The named tier, or an empty one.
TierImbalance find_tier(const std::vector<TierImbalance>& tiers, const std::string& name);

}  // namespace commlab
