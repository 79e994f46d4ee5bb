#pragma once
// What one step of a collective does to every directed link of a topology, on either backend
// (the numbers behind the topology picture; topology_model.h folds them into drawn edges).
//   analytical: utilisation = bytes the step's flows route over the link / (bandwidth x step time);
//               no queues, trims or drops.
//   packet:     the step runs on a PacketBackend (after background traffic, if any, has warmed the
//               queues up) with its per-port time series on; per link: busy time over the step /
//               step time, the deepest sampled queue, and the trims and drops counted in the step.
#include <string>
#include <vector>

#include "views/topology_model.h"

namespace commlab::views {

struct StepLoads {
  double duration_s = 0;  // the step's time on the chosen backend
  int steps = 0;          // steps of the collective
  int step = 0;           // the step timed (1-based, clamped)
  std::string phase;
  std::vector<LinkLoad> links;  // one per topology link
};

// Throws std::invalid_argument for a bad algorithm, backend, admission or background pattern.
StepLoads time_step_loads(const Topology& topo, const TopologySettings& settings);

}  // namespace commlab::views
