#pragma once
// The time plane's one interface (docs/architecture.md): a backend times a step of
// concurrent flows that start together, and says when each finished. Collectives are sequences of
// such steps; backends may keep state between steps (the packet backend's clock and background
// traffic), so steps are timed in order.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace commlab {

class Topology;

struct Flow {
  int src = 0;         // rank
  int dst = 0;         // rank
  uint64_t bytes = 0;  // bytes on the wire (after any codec)
  uint64_t id = 0;     // ECMP key; collectives use a stable id per (src, dst, channel)
};

// What happened to one packet of a flow (packet backend only): payload bytes that arrived.
// == payload size: whole; smaller: trimmed to that many bytes; 0 with lost: never arrived.
struct PacketFate {
  uint32_t payload_bytes = 0;
  uint32_t kept_bytes = 0;
  bool lost = false;
};

struct FlowResult {
  double finish_s = 0;  // from the start of the step
  uint64_t packets = 0;
  uint64_t retransmitted = 0;
  uint64_t trimmed = 0;
  uint64_t dropped = 0;
  std::vector<PacketFate> fates;  // filled only when StepOptions::want_fates
};

struct StepResult {
  double duration_s = 0;  // max finish over flows
  std::vector<FlowResult> flows;
};

struct StepOptions {
  bool want_fates = false;
};

// Flows that wait for each other, as a pipelined collective's slices do: flow i starts once every
// flow listed in needs[needs_begin[i] .. needs_begin[i + 1]) has arrived and then settled for
// settle_s (its receiver reduces or decodes it before forwarding), and once flow after_sent[i]
// (the previous flow on its connection, in program order; -1: none) has handed its last packet
// to its sender's NIC. Dependencies name earlier flows only. Flows without any start together.
struct FlowGraph {
  std::vector<Flow> flows;
  std::vector<double> settle_s;       // one per flow
  std::vector<int32_t> after_sent;    // one per flow
  std::vector<uint32_t> needs_begin;  // flows.size() + 1 offsets into needs
  std::vector<uint32_t> needs;
};

class NetworkBackend {
 public:
  virtual ~NetworkBackend() = default;
  virtual std::string name() const = 0;
  virtual const Topology& topology() const = 0;
  virtual StepResult time_step(std::span<const Flow> flows, const StepOptions& options = {}) = 0;
  // True when timing a step changes the backend (a clock, background traffic, queues): then every
  // repetition of a folded step is timed; otherwise a step repeated k times costs k times one.
  virtual bool stateful() const { return false; }
  // True when time_flow_graph() is implemented (the packet backend: pipelined slices need their
  // own packets and queues); other backends time pipelines from single steps (executor.h).
  virtual bool times_flow_graphs() const { return false; }
  // Times a graph from one common start; finish_s of each flow is from that start and
  // duration_s the latest finish (settle_s not included). Throws std::logic_error by default.
  virtual StepResult time_flow_graph(const FlowGraph& graph, const StepOptions& options = {});
};

// Throws std::logic_error (the engine built a broken graph) naming the first inconsistent field:
// sizes, offsets, and dependencies that are not earlier flows.
void check_flow_graph(const FlowGraph& graph);

}  // namespace commlab
