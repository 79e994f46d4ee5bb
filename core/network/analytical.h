#pragma once
// Analytical (flow-level) backend: alpha-beta per link, concurrent flows share every link max-min
// fairly (progressive filling), rates are recomputed whenever a flow finishes. A flow's time is the
// sum of its path's latencies plus its bytes over the rate it was given.
#include <memory>

#include "network/backend.h"
#include "topology/routing.h"
#include "topology/topology.h"

namespace commlab {

class AnalyticalBackend : public NetworkBackend {
 public:
  explicit AnalyticalBackend(Topology topology);
  std::string name() const override { return "analytical"; }
  const Topology& topology() const override { return topo_; }
  StepResult time_step(std::span<const Flow> flows, const StepOptions& options = {}) override;

 private:
  Topology topo_;
  Router router_;
};

}  // namespace commlab
