#pragma once
// The analytical backend's solver. A step's *pattern* is everything that does not depend on the
// bytes: each flow's path (over the step's own dense link ids), latencies, link capacities, and the
// groups of flows that share links (components). Flows alone on all their links finish at
// bytes / bottleneck; each component runs exact max-min progressive filling, recomputed whenever
// one of its flows finishes, with a heap of link fair shares over the links it touches.
// A flow may use a link for a fraction of its bytes (RoutingMode::kIdeal splits a flow over its
// equal-cost paths): at rate r it loads the link with fraction x r, so a link's fair share is
// its capacity over the summed fractions of its unfrozen flows. Per-flow ECMP uses fraction 1.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "network/backend.h"
#include "topology/routing.h"
#include "topology/topology.h"

namespace commlab {

struct StepPattern {
  std::vector<Flow> key;        // (src, dst, id) of every flow, bytes zeroed: verifies cache hits
  std::vector<double> latency;  // per flow: sum of fraction x link latency (mean over its paths)
  std::vector<double>
      solo_rate;                // per flow alone on its links: min of bandwidth / fraction; else 0
  std::vector<uint8_t> routed;  // per flow: 0 when src == dst (no path, takes no time)

  // Components of flows that share at least one link, each with its own dense link ids.
  struct Component {
    std::vector<uint32_t> flows;       // step flow indices
    std::vector<double> capacity;      // per component link
    std::vector<uint32_t> flow_begin;  // CSR flow -> component links (size flows + 1)
    std::vector<uint32_t> flow_links;
    std::vector<double> flow_fractions;  // parallel to flow_links: share of the flow's bytes
    std::vector<uint32_t> link_begin;    // CSR component link -> positions in `flows`
    std::vector<uint32_t> link_flows;
  };
  std::vector<Component> components;
};

// Looks up each flow's route (via `path_of`, which appends link ids and the fraction of the flow's
// bytes on each, 1 for a single path) and builds the pattern.
// `scratch` must have one entry per topology link, all -1; it is left that way.
using PathOf =
    std::function<void(const Flow& flow, std::vector<int>& links, std::vector<double>& fractions)>;
StepPattern build_step_pattern(const Topology& topo, std::span<const Flow> flows,
                               const PathOf& path_of, std::vector<int>& scratch);

// Transmission end (seconds from the step start, latency excluded) of every flow.
void solve_step(const StepPattern& pattern, std::span<const Flow> flows, std::span<double> tx_end);

// Max-min progressive filling of one component for the given active flows (positions in
// c.flows) and remaining bytes; writes rates. Exposed for tests.
void max_min_rates(const StepPattern::Component& c, std::span<const uint32_t> active,
                   std::span<double> rate);

}  // namespace commlab
