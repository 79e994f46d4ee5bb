#pragma once
// The packet backend's framing on a flow-level backend: what the analytical (alpha-beta) model
// leaves out when it is compared with the packet backend on an uncongested network
// (docs/packet-backend.md, "Agreement with the analytical backend"). A flow of B bytes travels as
// ceil(B / mtu) packets, each with a header, and its receiver sends one control packet (an ACK,
// or NDP's PULL) of header bytes back per data packet, over the reverse path, where it shares the
// links with the data of the flows going that way (in a ring: every link). On a 16-rank flat ring
// with 4096 B packets and 64 B headers that is 1.6% + 1.6% of the time, the 3.1% by which the
// packet backend's bulk-synchronous ring exceeded plain alpha-beta. And packets are stored and
// forwarded: a flow's first packet is serialised once per link, where the flow-level model counts
// the bytes once over the bottleneck (on a k=4 fat-tree's 6-hop paths, 5 packet times per step).
#include <cstdint>
#include <memory>

#include "network/backend.h"
#include "network/packet_config.h"
#include "topology/routing.h"

namespace commlab {

struct Framing {
  uint32_t mtu_bytes = 4096;        // payload of a full data packet
  uint32_t header_bytes = 64;       // per data packet, and the size of a control packet
  uint32_t control_per_packet = 1;  // control packets back per data packet (0: none)
};

// The framing the packet backend uses with `config` (its mtu and header; one ACK or PULL per
// data packet for every transport).
Framing framing_of(const PacketConfig& config);

// Times every step on `inner` with each flow's headers added to its bytes and one control flow
// per flow from its receiver back to its sender; reports the data flows' finish times, each plus
// its first packet's serialisation on every link of its path but the slowest.
class FramedBackend : public NetworkBackend {
 public:
  FramedBackend(std::unique_ptr<NetworkBackend> inner, Framing framing);
  std::string name() const override { return inner_->name() + "+framing"; }
  const Topology& topology() const override { return inner_->topology(); }
  StepResult time_step(std::span<const Flow> flows, const StepOptions& options = {}) override;
  bool stateful() const override { return inner_->stateful(); }
  const Framing& framing() const { return framing_; }

 private:
  std::unique_ptr<NetworkBackend> inner_;
  Framing framing_;
  std::vector<Flow> scratch_;
  Router router_;
  std::vector<int> path_;
};

}  // namespace commlab
