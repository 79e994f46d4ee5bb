// The textbook progressive-filling algorithm, kept simple on purpose: tests check the fast
// AnalyticalBackend against it.
#include <algorithm>
#include <limits>

#include "network/analytical.h"

namespace commlab {

StepResult time_step_reference(const Topology& topo, const Router& router,
                               std::span<const Flow> flows, RoutingMode routing) {
  const size_t n = flows.size();
  StepResult result;
  result.flows.resize(n);
  // A flow uses each link of paths[i] for fractions[i] of its bytes (1 under per-flow ECMP).
  std::vector<std::vector<int>> paths(n);
  std::vector<std::vector<double>> fractions(n);
  std::vector<double> latency(n, 0.0), remaining(n), rate(n, 0.0);
  std::vector<size_t> active;
  for (size_t i = 0; i < n; ++i) {
    if (routing == RoutingMode::kIdeal) {
      router.append_spread(flows[i].src, flows[i].dst, paths[i], fractions[i]);
    } else {
      paths[i] = router.path(flows[i].src, flows[i].dst, flows[i].id);
      fractions[i].assign(paths[i].size(), 1.0);
    }
    for (size_t k = 0; k < paths[i].size(); ++k)
      latency[i] += fractions[i][k] * topo.links()[paths[i][k]].latency_s;
    remaining[i] = static_cast<double>(flows[i].bytes);
    if (remaining[i] > 0 && !paths[i].empty()) active.push_back(i);
  }

  const size_t num_links = topo.links().size();
  std::vector<double> capacity(num_links);
  std::vector<double> users(num_links);  // summed fractions of the unfrozen flows
  std::vector<char> frozen(n);
  std::vector<double> tx_done(n, 0.0);
  double now = 0;
  while (!active.empty()) {
    // Progressive filling: raise all unfrozen rates together until a link saturates.
    for (size_t li = 0; li < num_links; ++li) capacity[li] = topo.links()[li].bandwidth_Bps;
    std::fill(users.begin(), users.end(), 0.0);
    for (size_t i : active) {
      frozen[i] = 0;
      for (size_t k = 0; k < paths[i].size(); ++k) users[paths[i][k]] += fractions[i][k];
    }
    size_t unfrozen = active.size();
    while (unfrozen > 0) {
      double share = std::numeric_limits<double>::infinity();
      for (size_t li = 0; li < num_links; ++li)
        if (users[li] > 1e-12) share = std::min(share, capacity[li] / users[li]);
      for (size_t i : active) {
        if (frozen[i]) continue;
        bool bottlenecked = false;
        for (int li : paths[i]) bottlenecked |= capacity[li] / users[li] <= share * (1 + 1e-12);
        if (!bottlenecked) continue;
        rate[i] = share;
        frozen[i] = 1;
        --unfrozen;
        for (size_t k = 0; k < paths[i].size(); ++k) {
          capacity[paths[i][k]] -= share * fractions[i][k];
          users[paths[i][k]] -= fractions[i][k];
        }
      }
    }
    // Advance to the next completion; flows within a relative 1e-9 of done finish together.
    double dt = std::numeric_limits<double>::infinity();
    for (size_t i : active) dt = std::min(dt, remaining[i] / rate[i]);
    now += dt;
    std::vector<size_t> still;
    for (size_t i : active) {
      remaining[i] -= rate[i] * dt;
      if (remaining[i] <= 1e-9 * static_cast<double>(flows[i].bytes))
        tx_done[i] = now;
      else
        still.push_back(i);
    }
    active.swap(still);
  }
  for (size_t i = 0; i < n; ++i) {
    result.flows[i].finish_s = tx_done[i] + latency[i];
    result.duration_s = std::max(result.duration_s, result.flows[i].finish_s);
  }
  return result;
}

}  // namespace commlab
