#pragma once
// Packet-level backend (docs/architecture.md): every transfer is cut into packets
// that cross output-queued switch ports with finite buffers, an admission policy (tail-drop, ECN,
// trim) and a host transport (reliable, NDP, accept-trimmed, or RoCE over a lossless fabric with
// PFC and DCQCN). It keeps its clock and background
// traffic between steps, and reports each packet's fate when asked.
//
//   PacketConfig cfg;                        // packet_config.h: MTU, admission, transport, ...
//   cfg.admission = Admission::kTrim;
//   cfg.transport = Transport::kAcceptTrimmed;
//   PacketBackend net(make_fat_tree({.k = 8}), cfg);
//   net.add_background({.pattern = Pattern::kIncast, .senders = 16, .flow_bytes = 1 << 20});
//   StepResult r = net.time_step(flows, {.want_fates = true});
#include <memory>
#include <vector>

#include "network/backend.h"
#include "network/packet_config.h"
#include "topology/routing.h"
#include "topology/topology.h"

namespace commlab {

class PacketSim;

class PacketBackend : public NetworkBackend {
 public:
  // Throws std::invalid_argument for a bad topology or configuration.
  explicit PacketBackend(Topology topology, PacketConfig config = {});
  ~PacketBackend() override;
  PacketBackend(const PacketBackend&) = delete;
  PacketBackend& operator=(const PacketBackend&) = delete;

  std::string name() const override { return "packet"; }
  const Topology& topology() const override { return topo_; }
  // The flows start together at the backend's current time; the step ends when all have every
  // packet (whole, or trimmed under accept-trimmed). finish_s is from the step's start.
  StepResult time_step(std::span<const Flow> flows, const StepOptions& options = {}) override;
  // The clock, queues and background traffic persist: repeated steps must all be timed.
  bool stateful() const override { return true; }
  // Pipelined slices as packets: each flow starts when its dependencies are met (FlowGraph).
  bool times_flow_graphs() const override { return true; }
  StepResult time_flow_graph(const FlowGraph& graph, const StepOptions& options = {}) override;

  const PacketConfig& config() const { return config_; }
  // Background traffic starts now and runs through every later step until cleared.
  void add_background(const TrafficSpec& spec);
  void clear_background();       // generators stop starting flows; flows under way finish
  void advance(double seconds);  // run background traffic alone (e.g. to warm queues up)
  double now_s() const;

  // Per-flow accounting of the last step (same order as its flows).
  const std::vector<PacketFlowStats>& last_step_stats() const { return last_stats_; }
  const PacketTotals& totals() const;
  // Bytes of simulator state alive now (flows, packets, queues, events): what
  // config.budget.max_memory_bytes bounds.
  uint64_t memory_bytes() const;
  // Sampled only when config.sample_interval_s > 0.
  const PortSeries& port_series() const;
  // The flow alone on an idle network: the store-and-forward pipeline of its packets.
  double ideal_time_s(const Flow& flow) const;
  // Transport::kRoce: PFC pause (XOFF) frames sent per link, indexed like topology().links();
  // the pause of roce.stuck_rank's links counts once each.
  std::vector<uint64_t> pfc_pauses_per_link() const;

 private:
  Topology topo_;
  Router router_;
  PacketConfig config_;
  std::unique_ptr<PacketSim> sim_;
  std::vector<PacketFlowStats> last_stats_;
};

}  // namespace commlab
