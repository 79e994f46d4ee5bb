// Host transports of the packet backend: senders (window, retransmit queue, timeout) and
// receivers (ACK / NACK / NDP PULL pacing), as methods of PacketSim.
#include <algorithm>
#include <limits>

#include "network/packet/packet_sim.h"

namespace commlab {

namespace {
constexpr uint64_t kAcked = 1ull << 63;
constexpr uint64_t kQueued = 1ull << 62;  // waiting in the retransmit queue
constexpr uint64_t kTimeMask = kQueued - 1;

size_t pow2_at_least(size_t n) {
  size_t c = 16;
  while (c < n) c *= 2;
  return c;
}
}  // namespace

void PacketSim::account_heap(FlowState& f) {
  const uint64_t heap = (f.fwd.capacity() + f.rev.capacity()) * sizeof(int32_t) +
                        f.slots.capacity() * sizeof(uint64_t) + f.rstate.capacity() +
                        f.fates.capacity() * sizeof(PacketFate) +
                        f.rtx.capacity() * sizeof(uint32_t);
  flow_heap_bytes_ = flow_heap_bytes_ + heap - f.heap;
  f.heap = heap;
}

uint64_t PacketSim::memory_bytes() const {
  const GraphRun& g = graph_;  // a flow graph's bookkeeping grows with its flows (run_graph)
  const uint64_t graph =
      (g.waiting.capacity() + g.on_arrival_begin.capacity() + g.on_arrival.capacity() +
       g.on_sent_begin.capacity() + g.on_sent.capacity()) *
          sizeof(uint32_t) +
      g.ready.capacity() * sizeof(SimTime) + g.started.capacity();
  // What is alive: events (pending timers among them: a completed flow's stays until it fires),
  // packets in flight or queued and the queues holding them, flows (a recycled slot keeps its
  // record and path vectors for the next flow), each counted at the capacity it holds.
  return events_.capacity_bytes() + packets_.bytes() + queue_bytes_ +
         flows_.size() * sizeof(FlowState) + flow_heap_bytes_ +
         free_flows_.capacity() * sizeof(uint32_t) + graph;
}

uint32_t PacketSim::open_flow(int src, int dst, uint64_t bytes, uint64_t ecmp_id, int owner,
                              bool fates) {
  uint32_t slot;
  if (!free_flows_.empty()) {
    slot = free_flows_.back();
    free_flows_.pop_back();
  } else {
    flows_.emplace_back();
    slot = static_cast<uint32_t>(flows_.size() - 1);
  }
  FlowState& f = flows_[slot];
  f.src = src;
  f.dst = dst;
  f.owner = owner;
  f.bytes = bytes;
  f.ecmp_id = ecmp_id;
  const uint64_t mtu = config_.mtu_bytes;
  f.packets = static_cast<uint32_t>((bytes + mtu - 1) / mtu);
  f.last_payload = static_cast<uint32_t>(bytes - (f.packets - 1) * mtu);
  set_paths(f);
  f.start = now_;
  f.done = f.timer_armed = f.recycled = false;
  f.want_fates = fates;
  f.live = 0;
  f.next_new = f.snd_una = f.inflight = 0;
  f.rtx.clear();
  f.last_heard = now_;
  f.rcv_base = f.rcv_high = f.received = 0;
  f.st = PacketFlowStats{};
  if (config_.window_packets) {
    f.window = config_.window_packets;
  } else {
    // Bandwidth-delay product: one full packet out, one header back, over the bottleneck rate.
    const uint32_t full = config_.mtu_bytes + config_.header_bytes;
    SimTime rtt = 0, bottleneck = 0;
    for (uint32_t h = 0; h < f.fwd_hops; ++h) {
      const int li = f.fwd[h];
      rtt += tx_ps(ports_[li], full) + ports_[li].latency_ps;
      bottleneck = std::max(bottleneck, tx_ps(ports_[li], full));
    }
    for (uint32_t h = 0; h < f.rev_hops; ++h) {
      const int li = f.rev[h];
      rtt += tx_ps(ports_[li], config_.header_bytes) + ports_[li].latency_ps;
    }
    f.window = static_cast<uint32_t>(rtt / std::max<SimTime>(bottleneck, 1)) + 2;
  }
  f.slots.assign(pow2_at_least(2 * std::min(f.window, f.packets)), 0);
  f.rstate.assign(f.slots.size(), 0);
  f.fates.clear();
  if (fates) {
    f.fates.resize(f.packets, PacketFate{config_.mtu_bytes, 0, true});
    f.fates.back().payload_bytes = f.last_payload;
  }
  account_heap(f);
  if (roce_) dcqcn_open(f);  // starts at line rate: the first window leaves unpaced
  for (uint32_t i = 0; i < f.window && f.next_new < f.packets; ++i)
    send_data(slot, f.next_new, false);
  return slot;
}

void PacketSim::send_data(uint32_t flow, uint32_t seq, bool retransmit) {
  FlowState& f = flows_[flow];
  uint8_t bits = kData;
  if (config_.random_trim_fraction > 0 &&
      trim_rng_.uniform(totals_.packets_sent) < config_.random_trim_fraction)
    bits |= kTrimMe;
  const uint8_t path = static_cast<uint8_t>(f.npaths == 1 ? 0 : f.next_path++ % f.npaths);
  uint32_t pkt = new_packet(flow, seq, payload_of(f, seq) + config_.header_bytes, bits, path);
  if (!retransmit) {
    if (f.next_new - f.snd_una == f.slots.size()) {  // grow the sender's window record
      std::vector<uint64_t> next(f.slots.size() * 2);
      for (uint32_t s = f.snd_una; s != f.next_new; ++s)
        next[s & (next.size() - 1)] = f.slots[s & (f.slots.size() - 1)];
      f.slots.swap(next);
      account_heap(f);
    }
    ++f.next_new;
    // A flow graph's next flow on this connection may start: this is the last new packet.
    if (f.next_new == f.packets && graph_.graph && f.owner >= 0 && step_results_)
      release_sent(static_cast<uint32_t>(f.owner));
  }
  f.slots[seq & (f.slots.size() - 1)] = now_;
  ++f.st.sent;
  ++totals_.packets_sent;
  if (retransmit) {
    ++f.st.retransmitted;
    ++totals_.retransmitted;
  }
  ++f.inflight;
  if (roce_) dcqcn_sent(flow, payload_of(f, seq) + config_.header_bytes);
  if (!f.timer_armed) arm_timer(f, flow, now_ + static_cast<SimTime>(config_.rto_s * 1e12));
  enqueue(static_cast<uint32_t>(f.fwd[path * f.fwd_hops]), pkt);
}

void PacketSim::send_control(uint32_t flow, uint8_t bits, uint32_t seq, uint8_t path) {
  const FlowState& f = flows_[flow];
  path = static_cast<uint8_t>(path % f.npaths);
  uint32_t pkt = new_packet(flow, seq, config_.header_bytes, bits, path);
  enqueue(static_cast<uint32_t>(f.rev[path * f.rev_hops]), pkt);
}

bool PacketSim::send_next(uint32_t flow) {
  FlowState& f = flows_[flow];
  while (!f.rtx.empty()) {
    uint32_t seq = f.rtx.pop_front();
    if (seq < f.snd_una) continue;
    uint64_t& slot = f.slots[seq & (f.slots.size() - 1)];
    if (slot & kAcked) continue;
    slot &= ~kQueued;
    send_data(flow, seq, true);
    return true;
  }
  if (f.next_new < f.packets) {
    send_data(flow, f.next_new, false);
    return true;
  }
  return false;
}

void PacketSim::pump(uint32_t flow) {
  FlowState& f = flows_[flow];
  while (f.inflight < f.window && (!roce_ || dcqcn_may_send(flow)) && send_next(flow)) {
  }
}

void PacketSim::mark_acked(FlowState& f, uint32_t seq) {
  if (seq < f.snd_una || seq >= f.next_new) return;
  const size_t mask = f.slots.size() - 1;
  f.slots[seq & mask] |= kAcked;
  while (f.snd_una < f.next_new && (f.slots[f.snd_una & mask] & kAcked)) ++f.snd_una;
}

uint8_t& PacketSim::rslot(FlowState& f, uint32_t seq) {
  if (seq - f.rcv_base >= f.rstate.size()) {
    size_t cap = f.rstate.size();
    while (seq - f.rcv_base >= cap) cap *= 2;
    std::vector<uint8_t> next(cap, 0);
    for (uint32_t s = f.rcv_base; s - f.rcv_base < f.rstate.size(); ++s)
      next[s & (cap - 1)] = f.rstate[s & (f.rstate.size() - 1)];
    f.rstate.swap(next);
    account_heap(f);
  }
  return f.rstate[seq & (f.rstate.size() - 1)];
}

void PacketSim::accept(uint32_t flow, uint32_t seq, uint32_t kept) {
  FlowState& f = flows_[flow];
  rslot(f, seq) = 1;
  ++f.received;
  if (f.want_fates) f.fates[seq] = PacketFate{payload_of(f, seq), kept, false};
  const size_t mask = f.rstate.size() - 1;
  while (f.rstate[f.rcv_base & mask] == 1) {
    f.rstate[f.rcv_base & mask] = 0;
    ++f.rcv_base;
  }
  if (f.received == f.packets) complete(flow);
}

void PacketSim::on_data_at_receiver(uint32_t pkt) {
  const Packet p = packets_[pkt];
  const uint32_t flow = p.flow;
  FlowState& f = flows_[flow];
  const bool trimmed = p.bits & kTrimmed;
  if (trimmed)
    ++f.st.trimmed;
  else
    ++f.st.delivered;
  if (p.bits & kEcn) ++f.st.ecn_marked;
  if (!f.done) {
    const bool have = p.seq < f.rcv_base || rslot(f, p.seq) == 1;
    const bool reliable = config_.transport == Transport::kReliable || roce_;  // ACK-clocked
    if (roce_ && (p.bits & kEcn)) dcqcn_at_receiver(flow, p.path);
    if (!trimmed || config_.transport == Transport::kAcceptTrimmed) {
      if (!have) {
        uint32_t payload = payload_of(f, p.seq);
        uint32_t kept =
            trimmed ? std::min<uint32_t>(payload, p.wire - config_.header_bytes) : payload;
        accept(flow, p.seq, kept);
      }
      if (!f.done) {
        if (reliable)
          send_control(flow, kAck, p.seq, p.path);
        else
          queue_pull(f.dst, flow, p.seq);
      }
    } else {
      // A trimmed header: NACK at once (high priority), the sender retransmits the whole packet.
      if (!have) {
        rslot(f, p.seq) = 2;
        send_control(flow, kNack, p.seq, p.path);
      }
      if (!reliable) queue_pull(f.dst, flow, -1);
    }
    // Whole packets of one flow stay in order on their path, so a jump in sequence means the
    // ones skipped were dropped: NACK each once (the timeout covers a lost NACK).
    // Under trimming nothing is lost silently (a header may overtake data by priority), so
    // the gap rule would only cause spurious retransmissions there.
    // Spraying reorders packets, so the rule needs a single path too.
    if (!trimmed && !f.done && (roce_ || config_.admission != Admission::kTrim) && f.npaths == 1) {
      for (uint32_t s = std::max(f.rcv_high, f.rcv_base); s < p.seq; ++s) {
        uint8_t& st = rslot(f, s);
        if (st == 0) {
          st = 2;
          send_control(flow, kNack, s, 0);
        }
      }
      f.rcv_high = std::max(f.rcv_high, p.seq + 1);
    }
  }
  free_packet(pkt);
}

void PacketSim::on_control_at_sender(uint32_t pkt) {
  const Packet p = packets_[pkt];
  const uint32_t flow = p.flow;
  FlowState& f = flows_[flow];
  if (!f.done) {
    f.last_heard = now_;
    switch (p.bits & kKindMask) {
      case kAck:
        mark_acked(f, p.seq);
        if (f.inflight > 0) --f.inflight;
        pump(flow);
        break;
      case kNack:
        if (p.seq >= f.snd_una && p.seq < f.next_new) {
          uint64_t& slot = f.slots[p.seq & (f.slots.size() - 1)];
          if (!(slot & (kAcked | kQueued))) {
            slot |= kQueued;
            f.rtx.push_back(p.seq);
          }
        }
        if (config_.transport == Transport::kReliable || roce_) {
          if (f.inflight > 0) --f.inflight;
          pump(flow);
        }
        break;
      case kPull:  // = kCnp under RoCE
        if (roce_) {
          on_cnp(flow);
          break;
        }
        if (p.bits & kHasAck) mark_acked(f, p.seq);
        send_next(flow);
        break;
    }
  }
  free_packet(pkt);
}

void PacketSim::complete(uint32_t flow) {
  FlowState& f = flows_[flow];
  f.done = true;
  f.rtx.clear();
  f.st.in_flight = f.st.sent - f.st.delivered - f.st.trimmed - f.st.dropped;
  if (roce_) dcqcn_close(f);
  if (f.owner >= 0) {
    if (step_results_) {
      FlowResult& r = (*step_results_)[f.owner];
      r.finish_s = static_cast<double>(now_ - step_start_) * 1e-12;
      r.packets = f.packets;
      r.retransmitted = f.st.retransmitted;
      r.trimmed = f.st.trimmed;
      r.dropped = f.st.dropped;
      r.fates = std::move(f.fates);
      (*step_stats_)[f.owner] = f.st;
      --step_remaining_;
      if (graph_.graph) release_arrived(static_cast<uint32_t>(f.owner));
    }
  } else if (f.owner != std::numeric_limits<int>::min()) {
    on_flow_done_background(flow);
  }
  release_flow_state(flow);
}

// A completed flow keeps only what its packets still in the network need (its paths and
// counters): the sender's and receiver's records go now, and its timer no longer holds the slot.
void PacketSim::release_flow_state(uint32_t flow) {
  FlowState& f = flows_[flow];
  std::vector<uint64_t>().swap(f.slots);
  std::vector<uint8_t>().swap(f.rstate);
  std::vector<PacketFate>().swap(f.fates);
  f.rtx = RingBuffer<uint32_t>();
  account_heap(f);
  if (f.timer_armed) {
    f.timer_armed = false;  // its event is stale now: on_timer ignores it
    --f.live;
  }
  maybe_recycle(flow);
}

void PacketSim::queue_pull(int host, uint32_t flow, int64_t acked_seq) {
  Host& h = hosts_[host];
  uint64_t token = (uint64_t{flow} << 32) | static_cast<uint64_t>(acked_seq + 1);
  if (!h.pull_pending && h.pulls.empty() && now_ >= h.next_pull) {
    h.next_pull = now_ + h.pull_interval;
    emit_pull(token);
    return;
  }
  ++flows_[flow].live;  // the token names the slot
  h.pulls.push_back(token);
  if (!h.pull_pending) {
    h.pull_pending = true;
    schedule(std::max(now_, h.next_pull), EventKind::kPull, static_cast<uint32_t>(host));
  }
}

void PacketSim::emit_pull(uint64_t token) {
  uint32_t flow = static_cast<uint32_t>(token >> 32);
  uint32_t ack = static_cast<uint32_t>(token);
  FlowState& f = flows_[flow];
  send_control(flow, ack ? (kPull | kHasAck) : kPull, ack ? ack - 1 : 0,
               static_cast<uint8_t>(f.npaths == 1 ? 0 : f.next_path++ % f.npaths));
}

void PacketSim::on_pull_tick(uint32_t host) {
  Host& h = hosts_[host];
  h.pull_pending = false;
  while (!h.pulls.empty()) {
    uint64_t token = h.pulls.pop_front();
    uint32_t flow = static_cast<uint32_t>(token >> 32);
    --flows_[flow].live;
    if (!flows_[flow].done) {
      h.next_pull = now_ + h.pull_interval;
      emit_pull(token);
      break;
    }
    maybe_recycle(flow);
  }
  if (!h.pulls.empty()) {
    h.pull_pending = true;
    schedule(h.next_pull, EventKind::kPull, host);
  }
}

void PacketSim::arm_timer(FlowState& f, uint32_t flow, SimTime at) {
  f.timer_armed = true;
  f.timer_at = at;
  ++f.live;
  schedule(at, EventKind::kTimer, flow);
}

void PacketSim::on_timer(uint32_t flow) {
  FlowState& f = flows_[flow];
  // A completed flow's timer (release_flow_state), possibly of an earlier flow in this slot, is
  // stale: the slot's own timer is armed at or after that completion + RTO, so its event comes
  // later or at the same time (then the first of the two is its own and the second is stale).
  if (!f.timer_armed || f.timer_at != now_) return;
  f.timer_armed = false;
  --f.live;
  const SimTime rto = static_cast<SimTime>(config_.rto_s * 1e12);
  // Retransmit only when the receiver has also gone quiet: NDP acknowledgements ride on paced
  // PULLs, which can wait longer than the RTO behind a busy receiver without anything being lost.
  const bool quiet = now_ - f.last_heard >= rto / 2;
  SimTime next = std::numeric_limits<SimTime>::max();
  const size_t mask = f.slots.size() - 1;
  bool outstanding = false;
  for (uint32_t s = f.snd_una; s < f.next_new; ++s) {
    uint64_t v = f.slots[s & mask];
    if (v & (kAcked | kQueued)) continue;
    outstanding = true;
    SimTime sent = v & kTimeMask;
    if (sent + rto <= now_ && quiet) {
      if (f.inflight > 0) --f.inflight;  // presumed lost: its credit comes back
      send_data(flow, s, true);
      sent = now_;
    }
    next = std::min(next, sent + rto);
  }
  // Nothing outstanding but data left and nobody pulling (the PULLs were lost): self-clock one.
  if (!outstanding && quiet && f.rtx.empty() && f.next_new < f.packets) send_next(flow);
  if (!f.rtx.empty() && quiet) send_next(flow);
  if (!f.timer_armed && (outstanding || !f.rtx.empty() || f.next_new < f.packets))
    arm_timer(
        f, flow,
        std::max(next == std::numeric_limits<SimTime>::max() ? now_ + rto : next, now_ + rto / 4));
}

void PacketSim::maybe_recycle(uint32_t flow) {
  FlowState& f = flows_[flow];
  if (f.done && f.live == 0 && !f.recycled) {
    f.recycled = true;
    free_flows_.push_back(flow);
  }
}

}  // namespace commlab
