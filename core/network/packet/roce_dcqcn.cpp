// DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015) for the
// RoCE transport, as methods of PacketSim. docs/packet-backend.md lists every constant and its
// source.
//
// Notification point (receiver): a data packet that arrives with an ECN mark makes the receiver
// send a CNP to the sender, at most one per flow per cnp_interval_s.
// Reaction point (sender), per flow:
//   on a CNP:   Rt = Rc; Rc = Rc (1 - alpha / 2); alpha = (1 - g) alpha + g; T = BC = 0
//   no CNP for alpha_timer_s: alpha = (1 - g) alpha (computed when the next CNP comes)
//   every increase_timer_s (T += 1) and every byte_counter bytes sent (BC += 1), one increase:
//     fast recovery  max(T, BC) <= F:  Rc = (Rt + Rc) / 2
//     additive       otherwise:        Rt += R_AI,                      Rc = (Rt + Rc) / 2
//     hyper          min(T, BC) > F:   Rt += (min(T, BC) - F) R_HAI,    Rc = (Rt + Rc) / 2
// Rc paces the flow's packets (one packet's wire bytes per Rc); the flow is also ACK-clocked by a
// window as kReliable, which bounds what a paused fabric holds.
#include <algorithm>
#include <cmath>

#include "network/packet/packet_sim.h"

namespace commlab {

namespace {
SimTime ps(double seconds) {
  return static_cast<SimTime>(seconds * 1e12 + 0.5);
}
}  // namespace

void PacketSim::dcqcn_open(FlowState& f) {
  FlowState::Dcqcn& c = f.cc;
  c = FlowState::Dcqcn{};
  c.line = 1e12 / ports_[f.fwd[0]].ps_per_byte;  // the sender's NIC
  c.rc = c.rt = c.line;
  c.next_send = now_;
}

bool PacketSim::dcqcn_may_send(uint32_t flow) {
  FlowState& f = flows_[flow];
  if (f.cc.next_send <= now_) return true;
  if (!f.cc.pace_pending) {
    f.cc.pace_pending = true;
    ++f.live;
    schedule(f.cc.next_send, EventKind::kPace, flow);
  }
  return false;
}

void PacketSim::on_pace(uint32_t flow) {
  FlowState& f = flows_[flow];
  --f.live;
  f.cc.pace_pending = false;
  if (f.done) {
    maybe_recycle(flow);
    return;
  }
  pump(flow);
}

void PacketSim::dcqcn_sent(uint32_t flow, uint32_t wire) {
  FlowState& f = flows_[flow];
  FlowState::Dcqcn& c = f.cc;
  // At line rate the NIC's serialization is the pacing: no events.
  if (c.rc < c.line) c.next_send = now_ + static_cast<SimTime>(wire * 1e12 / c.rc + 0.5);
  if (!c.active) return;
  c.bytes += wire;
  if (c.bytes >= config_.roce.byte_counter) {
    c.bytes -= config_.roce.byte_counter;
    ++c.bc;
    dcqcn_increase(f);
  }
}

void PacketSim::dcqcn_at_receiver(uint32_t flow, uint8_t path) {
  FlowState& f = flows_[flow];
  if (now_ < f.cc.next_cnp) return;
  f.cc.next_cnp = now_ + ps(config_.roce.cnp_interval_s);
  ++totals_.cnps;
  send_control(flow, kCnp, 0, path);
}

void PacketSim::dcqcn_set_rate(FlowState& f, double rc) {
  FlowState::Dcqcn& c = f.cc;
  if (c.cnp_ever) c.rate_area += c.rc * static_cast<double>(now_ - c.rate_at) * 1e-12;
  c.rate_at = now_;
  c.rc = rc;
}

void PacketSim::on_cnp(uint32_t flow) {
  FlowState& f = flows_[flow];
  FlowState::Dcqcn& c = f.cc;
  const RoceConfig& rc = config_.roce;
  ++f.st.cnps;
  if (c.cnp_ever) {
    // The alpha timer restarts at every CNP; whole periods since the last one decay alpha.
    const double periods = std::floor(static_cast<double>(now_ - c.alpha_at) /
                                      static_cast<double>(ps(rc.alpha_timer_s)));
    c.alpha *= std::pow(1 - rc.g, periods);
  } else {
    c.cnp_ever = true;  // alpha starts at 1: the first CNP halves the rate
    c.first_cnp = c.rate_at = now_;
  }
  c.rt = c.rc;
  dcqcn_set_rate(f, std::max(rc.min_rate_bps / 8, c.rc * (1 - c.alpha / 2)));
  c.alpha = (1 - rc.g) * c.alpha + rc.g;
  c.alpha_at = now_;
  c.t = c.bc = 0;
  c.bytes = 0;
  c.active = true;
  c.timer_at = now_ + ps(rc.increase_timer_s);
  ++f.live;
  schedule(c.timer_at, EventKind::kDcqcn, flow);
}

void PacketSim::on_dcqcn_timer(uint32_t flow) {
  FlowState& f = flows_[flow];
  FlowState::Dcqcn& c = f.cc;
  --f.live;
  if (f.done) {
    maybe_recycle(flow);
    return;
  }
  if (now_ != c.timer_at || !c.active) return;  // restarted by a later CNP
  ++c.t;
  dcqcn_increase(f);
  if (!c.active) return;
  c.timer_at = now_ + ps(config_.roce.increase_timer_s);
  ++f.live;
  schedule(c.timer_at, EventKind::kDcqcn, flow);
}

void PacketSim::dcqcn_increase(FlowState& f) {
  FlowState::Dcqcn& c = f.cc;
  const RoceConfig& rc = config_.roce;
  const uint32_t F = rc.fast_recovery_steps;
  if (std::max(c.t, c.bc) <= F) {
    // fast recovery: Rt stays, Rc halves its distance to it
  } else if (std::min(c.t, c.bc) > F) {
    c.rt += (std::min(c.t, c.bc) - F) * rc.rhai_fraction * c.line;
  } else {
    c.rt += rc.rai_fraction * c.line;
  }
  c.rt = std::min(c.rt, c.line);
  double next = (c.rt + c.rc) / 2;
  // Within 0.1% of the line rate counts as line rate: the NIC's serialization paces again and
  // the timers stop (until the next CNP).
  if (next >= c.line * (1 - 1e-3)) {
    next = c.line;
    c.active = false;
  }
  dcqcn_set_rate(f, next);
}

void PacketSim::dcqcn_close(FlowState& f) {
  FlowState::Dcqcn& c = f.cc;
  c.active = false;
  if (!c.cnp_ever) return;
  dcqcn_set_rate(f, c.rc);
  const double span = static_cast<double>(now_ - c.first_cnp) * 1e-12;
  f.st.mean_rate_Bps = span > 0 ? c.rate_area / span : c.rc;
}

}  // namespace commlab
