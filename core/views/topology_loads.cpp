#include "views/topology_loads.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "collective/algorithms.h"
#include "io/status.h"
#include "network/analytical.h"
#include "network/packet_backend.h"
#include "numeric/rng.h"
#include "topology/routing.h"

namespace commlab::views {

namespace {

// Samples per step: fine enough for a step-long mean and a queue peak, few enough to stay cheap.
constexpr double kSamplesPerStep = 200;
// The most bytes one step may move on the packet backend (32K full packets): a ring step of a
// 64 MiB all-reduce fits on any cluster; an all-to-all step (direct) of 64 MiB on 16 ranks moves
// 960 MiB and would take seconds under contention.
constexpr uint64_t kPacketStepBudgetBytes = 128ull << 20;

// The sample interval: about kSamplesPerStep samples over the estimated step, but never under 16
// packet times of the slowest link (a port's busy time is booked when a packet starts and each
// sample is clamped to 100%, so a sample of few packet times would under-count a busy link).
PacketConfig packet_config(const Topology& topo, const TopologySettings& s, double estimate_s) {
  PacketConfig pc;
  double slowest_Bps = 0;
  for (const Link& l : topo.links())
    slowest_Bps = slowest_Bps > 0 ? std::min(slowest_Bps, l.bandwidth_Bps) : l.bandwidth_Bps;
  const double packet_s = slowest_Bps > 0 ? (pc.mtu_bytes + pc.header_bytes) / slowest_Bps : 0;
  // The scenario files spell tail-drop "droptail" (run_config.h); accept both.
  pc.admission = parse_admission(s.admission == "droptail" ? "tail-drop" : s.admission);
  if (s.queue_packets < 0) throw bad_input("queue_packets must be >= 0");
  pc.queue_packets = static_cast<uint32_t>(s.queue_packets);
  pc.sample_interval_s = std::max({estimate_s / kSamplesPerStep, 16 * packet_s, 1e-9});
  pc.max_samples = 2048;  // a step far slower than its estimate merges samples, losing nothing
  return pc;
}

// Bytes per second the background pattern offers: each sender's NIC (its fastest out-link) at
// full rate (perm, alltoall), at `load` (onoff), or the target's fastest in-link (incast).
double background_rate_Bps(const Topology& topo, const TrafficSpec& spec) {
  auto fastest = [&](const std::vector<int>& links) {
    double bw = 0;
    for (int l : links) bw = std::max(bw, topo.links()[l].bandwidth_Bps);
    return bw;
  };
  if (spec.pattern == Pattern::kIncast)
    return fastest(topo.in_links(topo.gpus()[std::clamp(spec.target, 0, topo.ranks() - 1)]));
  double sum = 0;
  for (int r = 0; r < topo.ranks(); ++r) sum += fastest(topo.out_links(topo.gpus()[r]));
  return spec.pattern == Pattern::kOnOff ? sum * spec.load : sum;
}

// Runs `flows` as one step on a packet backend and reads each port's series over the step.
double packet_loads(const Topology& topo, const TopologySettings& s, const std::vector<Flow>& flows,
                    double estimate_s, std::vector<LinkLoad>& links) {
  const PacketConfig pc = packet_config(topo, s, estimate_s);
  PacketBackend net(topo, pc);
  if (!s.background.empty() && s.background != "none") {
    // The same pattern strings and generators as a scenario's packet.background (runner.cpp).
    const TrafficSpec spec = parse_pattern(s.background);
    // Bound the simulation: the background may offer at most the step budget over the step, and
    // the warm-up shrinks (from one step time, 10-200 us) to offer no more than that either.
    const double rate = background_rate_Bps(topo, spec);
    if (rate * estimate_s > kPacketStepBudgetBytes)
      throw bad_input("packet backend: background '" + s.background + "' offers " +
                      std::to_string(static_cast<long long>(rate / 1e9)) +
                      " GB/s, more than the picture " +
                      "simulates over this step; try a smaller message, cluster or load.");
    net.add_background(spec);
    // Let the background fill the queues before the step starts (sampling starts with the step).
    net.advance(std::min(std::clamp(estimate_s, 10e-6, 200e-6), kPacketStepBudgetBytes / rate));
  }
  const double t = net.time_step(flows).duration_s;
  const PortSeries& series = net.port_series();
  // The interval the step ended in is sampled only when it closes: run on until it has.
  for (int guard = 0; guard < 4 && series.count() * series.interval_s < t; ++guard)
    net.advance(series.interval_s);
  const uint64_t full = pc.mtu_bytes + pc.header_bytes;
  for (int l = 0; l < series.ports; ++l) {
    LinkLoad& load = links[l];
    const Link& link = topo.links()[l];
    double busy_s = 0;
    for (size_t k = 0; k < series.count() && k * series.interval_s < t; ++k) {
      const PortSample& p = series.at(k, l);
      busy_s += p.utilisation * series.interval_s;
      load.queue_bytes = std::max<double>(load.queue_bytes, p.queue_bytes);
      load.trims += p.trims;
      load.drops += p.drops;
    }
    load.utilisation = t > 0 ? std::min(1.0, busy_s / t) : 0;
    // Only network switch ports have a finite data queue (packet_sim.cpp); the rest are lossless.
    if (topo.nodes()[link.from].kind == NodeKind::kSwitch)
      load.queue_capacity_bytes =
          pc.queue_packets ? static_cast<double>(pc.queue_packets * full) : link.buffer_bytes;
  }
  return t;
}

}  // namespace

StepLoads time_step_loads(const Topology& topo, const TopologySettings& s) {
  if (s.backend != "analytical" && s.backend != "packet")
    throw bad_input("backend: expected analytical or packet, got '" + s.backend + "'");
  StepLoads out;
  out.links.assign(topo.links().size(), LinkLoad{});
  PlanRequest req;
  req.ranks = topo.ranks();
  req.count = std::max<uint64_t>(s.message_bytes / sizeof(float), topo.ranks());
  req.time_only = true;
  const uint64_t transfers = find_algorithm(s.algorithm).transfers(req);
  if (transfers > s.max_transfers)
    throw bad_input("algorithm " + s.algorithm + " on " + std::to_string(req.ranks) +
                    " ranks: " + std::to_string(transfers) + " transfers, over the budget of " +
                    std::to_string(s.max_transfers) +
                    " transfers of the topology picture (view topology --max-transfers raises it)");
  const Plan plan = build_plan(s.algorithm, req);
  // A time-only plan folds identical consecutive steps (a ring's N-1 reduce-scatter steps are one
  // step repeated): the steps counted and chosen here are the unfolded ones, as Teaching shows.
  out.steps = 0;
  for (const PlanStep& p : plan.steps) out.steps += static_cast<int>(p.repeat);
  if (plan.steps.empty()) return out;
  out.step = std::clamp(s.step, 1, out.steps);
  size_t folded = 0;
  for (int left = out.step; left > static_cast<int>(plan.steps[folded].repeat); ++folded)
    left -= static_cast<int>(plan.steps[folded].repeat);
  const PlanStep& step = plan.steps[folded];
  out.phase = step.phase;
  if (step.transfers.size() > s.max_flows)
    throw bad_input("algorithm " + s.algorithm + " on " + std::to_string(req.ranks) +
                    " ranks: step " + std::to_string(out.step) + " has " +
                    std::to_string(step.transfers.size()) + " flows, over the budget of " +
                    std::to_string(s.max_flows) +
                    " flows of the topology picture (view topology --max-flows raises it)");
  std::vector<Flow> flows;
  for (const Transfer& t : step.transfers)
    flows.push_back(Flow{t.src, t.dst, t.count * sizeof(float),
                         hash_combine(static_cast<uint64_t>(t.src), static_cast<uint64_t>(t.dst))});

  uint64_t step_bytes = 0;
  for (const Flow& f : flows) step_bytes += f.bytes;
  if (s.backend == "packet" && step_bytes > kPacketStepBudgetBytes) {
    uint64_t fits = 1024;  // the largest power-of-two message whose step fits the budget
    while (fits * 2 <= s.message_bytes / (static_cast<double>(step_bytes) / kPacketStepBudgetBytes))
      fits *= 2;
    throw bad_input(
        "packet backend: step " + std::to_string(out.step) + " of " + s.algorithm + " moves " +
        std::to_string(step_bytes >> 20) + " MiB; the picture simulates at most " +
        std::to_string(kPacketStepBudgetBytes >> 20) + " MiB per step. Pick a message of " +
        std::to_string(fits >> 10) + " KiB or less.");
  }

  // Payload bytes each link carries: the flows' routes (the packet backend routes per-flow ECMP
  // with the same Router and ids, so the same links).
  AnalyticalBackend analytical(topo);
  std::vector<int> path;
  for (const Flow& f : flows) {
    path.clear();
    analytical.router().append_path(f.src, f.dst, f.id, path);
    for (int l : path) out.links[l].bytes += static_cast<double>(f.bytes);
  }
  out.duration_s = analytical.time_step(flows).duration_s;
  if (s.backend == "packet") {
    out.duration_s = packet_loads(topo, s, flows, out.duration_s, out.links);
  } else if (out.duration_s > 0) {
    for (size_t l = 0; l < out.links.size(); ++l)
      out.links[l].utilisation =
          out.links[l].bytes / (topo.links()[l].bandwidth_Bps * out.duration_s);
  }
  return out;
}

}  // namespace commlab::views
