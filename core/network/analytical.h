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
#include <cstdint>
#include <memory>
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
  // Caching on by default; off recomputes every step (benchmarks compare the two).
  void set_caching(bool on);
  const Router& router() const { return router_; }

 private:
  const StepPattern& pattern_for(std::span<const Flow> flows, uint64_t key);

  Topology topo_;
  Router router_;
  bool caching_ = true;
  Stats stats_;
  std::vector<int> scratch_;  // per topology link, -1 (pattern building)
  // Paths by (src, dst, id): collectives reuse their flows across steps and sizes.
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> path_index_;
  std::vector<int> path_store_;
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
                               std::span<const Flow> flows);

}  // namespace commlab
