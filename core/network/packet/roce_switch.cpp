// The lossless fabric of the RoCE transport (docs/packet-backend.md, "RoCE with DCQCN"), as
// methods of PacketSim: priority flow control at switch ingress ports and RED marking at switch
// egress queues.
//
// PFC (IEEE 802.1Qbb) here: every link into a switch has an ingress account at that switch, the
// data bytes that came over the link and still wait in one of the switch's egress queues. When
// the account rises above XOFF the switch sends a pause frame upstream; the link's sending port
// (a host NIC or another switch's egress port) then sends no data packets, while control packets
// (ACK, NACK, CNP), which ride a priority of their own, still go. When the account falls to XON a
// resume frame follows. A pause frame takes the link's latency plus its own serialization to take
// effect; the bytes that can still arrive in that time are the headroom, reserved above XOFF, so
// that the account never exceeds XOFF + headroom and nothing is dropped. A paused port stops every
// data packet it holds, wherever it goes (head-of-line blocking), and its queue grows, which
// raises the ingress accounts of its own switch and pauses that switch's upstream ports in turn
// (pause propagation).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "network/packet/packet_sim.h"

namespace commlab {

void PacketSim::init_pfc() {
  const RoceConfig& rc = config_.roce;
  const uint64_t full = config_.mtu_bytes + config_.header_bytes;
  for (size_t li = 0; li < ports_.size(); ++li) {
    const Link& l = topo_.links()[li];
    if (topo_.nodes()[l.to].kind != NodeKind::kSwitch) continue;
    Port& p = ports_[li];
    // Without an explicit XOFF the ingress may hold what the tail-drop egress queue would.
    p.pfc_xoff = rc.pfc_xoff_bytes ? rc.pfc_xoff_bytes
                                   : (config_.queue_packets ? uint64_t{config_.queue_packets} * full
                                                            : l.buffer_bytes);
    p.pfc_xon = rc.pfc_xon_bytes ? std::min(rc.pfc_xon_bytes, p.pfc_xoff)
                                 : (p.pfc_xoff > 2 * full ? p.pfc_xoff - 2 * full : 0);
    // Headroom: after the packet that crosses XOFF (<= one full packet), the upstream port keeps
    // sending for the pause frame's latency + serialization, finishes the packet it has started
    // (one full packet), and what is already on the wire (latency x bandwidth) still arrives:
    // 2 x latency x bandwidth + 2 full packets + one pause frame.
    const double bdp = static_cast<double>(p.latency_ps) / p.ps_per_byte;
    const uint64_t headroom = rc.pfc_headroom_bytes ? rc.pfc_headroom_bytes
                                                    : static_cast<uint64_t>(2 * bdp + 1) +
                                                          2 * full + config_.header_bytes;
    p.pfc_limit = p.pfc_xoff + headroom;
    p.pfc_delay = p.latency_ps + tx_ps(p, config_.header_bytes);
  }
  if (rc.stuck_rank >= 0) {
    if (rc.stuck_rank >= topo_.ranks())
      throw bad_input("packet backend: roce.stuck_rank " + std::to_string(rc.stuck_rank) +
                      " is not a rank");
    // Hosts send no PFC frames of their own here, so nothing ever resumes these ports.
    for (int li : topo_.in_links(topo_.gpus()[rc.stuck_rank])) {
      ports_[li].paused = true;
      ++ports_[li].pfc_pauses;
      ++totals_.pfc_pauses;
    }
  }
}

std::vector<uint64_t> PacketSim::pfc_pauses_per_link() const {
  std::vector<uint64_t> out(ports_.size());
  for (size_t i = 0; i < ports_.size(); ++i) out[i] = ports_[i].pfc_pauses;
  return out;
}

bool PacketSim::pfc_admit(const Packet& p) {
  // A switch port is never a flow's first hop, so the packet came in over path[hop - 1].
  const FlowState& f = flows_[p.flow];
  const uint32_t link = static_cast<uint32_t>(f.fwd[p.path * f.fwd_hops + p.hop - 1]);
  Port& in = ports_[link];
  if (in.pfc_bytes + p.wire > in.pfc_limit) return false;  // headroom exceeded: never by design
  in.pfc_bytes += p.wire;
  if (!in.xoff_sent && in.pfc_bytes > in.pfc_xoff) {
    in.xoff_sent = true;
    send_pfc(link, true);
  }
  return true;
}

void PacketSim::pfc_release(const Packet& p) {
  const FlowState& f = flows_[p.flow];
  const uint32_t link = static_cast<uint32_t>(f.fwd[p.path * f.fwd_hops + p.hop - 1]);
  Port& in = ports_[link];
  in.pfc_bytes -= p.wire;
  if (in.xoff_sent && in.pfc_bytes <= in.pfc_xon) {
    in.xoff_sent = false;
    send_pfc(link, false);
  }
}

void PacketSim::send_pfc(uint32_t link, bool pause) {
  Port& port = ports_[link];
  // Frames of one link take effect in the order they were sent: simultaneous events pop in no
  // fixed order, so each frame lands at least 1 ps after the previous one.
  const SimTime at = std::max(now_ + port.pfc_delay, port.pfc_last + 1);
  port.pfc_last = at;
  if (pause) {
    ++totals_.pfc_pauses;
    ++port.pfc_pauses;
  }
  schedule(at, EventKind::kPfc, link << 1 | (pause ? 1u : 0u));
}

void PacketSim::on_pfc(uint32_t target) {
  const uint32_t link = target >> 1;
  Port& port = ports_[link];
  port.paused = target & 1;
  if (!port.paused && !port.tx_pending && !port.data.empty()) {
    port.tx_pending = true;
    schedule(std::max(now_, port.busy_until), EventKind::kTxDone, link);
  }
}

void PacketSim::red_mark(const Port& port, Packet& p) {
  // RED on the instantaneous egress queue, as DCQCN's switches mark: no mark up to Kmin, then a
  // probability rising linearly to Pmax at Kmax, and every packet above Kmax.
  const RoceConfig& rc = config_.roce;
  const uint64_t q = port.data_bytes;
  if (q <= rc.kmin_bytes) return;
  if (q < rc.kmax_bytes) {
    const double prob = rc.pmax * static_cast<double>(q - rc.kmin_bytes) /
                        static_cast<double>(rc.kmax_bytes - rc.kmin_bytes);
    if (red_rng_.uniform(red_draws_++) >= prob) return;
  }
  p.bits |= kEcn;
  ++totals_.ecn_marked;
}

}  // namespace commlab
