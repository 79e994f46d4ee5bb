#include "network/packet/packet_sim.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "network/packet/packet_budget.h"

namespace commlab {

namespace {

SimTime to_ps(double seconds) {
  return static_cast<SimTime>(std::llround(seconds * 1e12));
}

void check_config(const PacketConfig& c) {
  auto fail = [](const std::string& what) { throw bad_input("packet backend: " + what); };
  if (c.mtu_bytes == 0) fail("mtu_bytes must be > 0");
  if (c.header_bytes == 0) fail("header_bytes must be > 0");
  if (c.mtu_bytes + c.header_bytes > 65535)
    fail("mtu_bytes + header_bytes must be <= 65535, got " +
         std::to_string(c.mtu_bytes + c.header_bytes));
  if (c.trim_bytes < c.header_bytes || c.trim_bytes >= c.mtu_bytes + c.header_bytes)
    fail("trim_bytes must be in [header_bytes, mtu_bytes + header_bytes), got " +
         std::to_string(c.trim_bytes));
  for (size_t i = 0; i < c.trim_level_bytes.size(); ++i) {
    const uint32_t b = c.trim_level_bytes[i];
    if (b < c.header_bytes || b >= c.mtu_bytes + c.header_bytes)
      fail("trim_level_bytes[" + std::to_string(i) +
           "] must be in [header_bytes, mtu_bytes + header_bytes), got " + std::to_string(b));
    if (i > 0 && b >= c.trim_level_bytes[i - 1])
      fail("trim_level_bytes must decrease (more trimming as queues grow), got " +
           std::to_string(c.trim_level_bytes[i - 1]) + " then " + std::to_string(b));
  }
  if (c.header_weight == 0) fail("header_weight must be >= 1");
  if (c.header_queue_packets == 0) fail("header_queue_packets must be >= 1");
  if (c.paths < 1 || c.paths > 64) fail("paths must be in [1, 64], got " + std::to_string(c.paths));
  if (!(c.random_trim_fraction >= 0 && c.random_trim_fraction <= 1))
    fail("random_trim_fraction must be in [0, 1]");
  if (!(c.rto_s > 0)) fail("rto_s must be > 0");
  if (!(c.sample_interval_s >= 0)) fail("sample_interval_s must be >= 0");
  if (c.sample_interval_s > 0 && c.max_samples < 2) fail("max_samples must be >= 2");
  if (!(c.max_step_s > 0)) fail("max_step_s must be > 0");
  const RoceConfig& r = c.roce;
  if (r.kmax_bytes <= r.kmin_bytes) fail("roce.kmax_bytes must be > roce.kmin_bytes");
  if (!(r.pmax >= 0 && r.pmax <= 1)) fail("roce.pmax must be in [0, 1]");
  if (!(r.g > 0 && r.g <= 1)) fail("roce.g must be in (0, 1]");
  if (!(r.cnp_interval_s >= 0 && r.alpha_timer_s > 0 && r.increase_timer_s > 0))
    fail("roce timers must be > 0 (cnp_interval_s >= 0)");
  if (r.byte_counter == 0) fail("roce.byte_counter must be > 0");
  if (!(r.rai_fraction > 0 && r.rhai_fraction > 0 && r.min_rate_bps > 0))
    fail("roce.rai_fraction, rhai_fraction and min_rate_bps must be > 0");
}

}  // namespace

PacketSim::PacketSim(const Topology& topology, const Router& router, const PacketConfig& config)
    : topo_(topology),
      router_(router),
      config_(config),
      roce_(config.transport == Transport::kRoce),
      trim_rng_(config.seed, Purpose::kTrim),
      red_rng_(config.seed, Purpose::kTrim, 1),  // a stream of its own for RED marking
      traffic_rng_(config.seed, Purpose::kTraffic) {
  check_config(config_);
  trim_levels_ = config_.trim_level_bytes;
  if (trim_levels_.empty()) trim_levels_.push_back(config_.trim_bytes);
  if (config_.max_samples % 2) ++config_.max_samples;  // compaction merges pairs
  const uint64_t full = config_.mtu_bytes + config_.header_bytes;
  ports_.resize(topo_.links().size());
  for (size_t i = 0; i < ports_.size(); ++i) {
    const Link& l = topo_.links()[i];
    Port& p = ports_[i];
    p.ps_per_byte = 1e12 / l.bandwidth_Bps;
    p.latency_ps = to_ps(l.latency_s);
    // Only network switches have finite buffers and an admission policy; hosts, NICs, NVSwitch
    // and PCIe are lossless here (the transport's window bounds what waits at a host).
    p.switch_port = topo_.nodes()[l.from].kind == NodeKind::kSwitch;
    if (p.switch_port) {
      p.data_cap = config_.queue_packets ? uint64_t{config_.queue_packets} * full : l.buffer_bytes;
      p.hdr_cap = config_.header_queue_packets;
      p.ecn_bytes = config_.ecn_threshold_packets ? uint64_t{config_.ecn_threshold_packets} * full
                                                  : p.data_cap / 4;
    } else {
      p.data_cap = std::numeric_limits<uint64_t>::max();
      p.hdr_cap = std::numeric_limits<uint32_t>::max();
      p.ecn_bytes = std::numeric_limits<uint64_t>::max();
    }
  }
  for (Port& p : ports_) {
    p.data.count_in(&queue_bytes_);
    p.hdr.count_in(&queue_bytes_);
    p.pipe.count_in(&queue_bytes_);
  }
  hosts_.resize(topo_.ranks());
  for (int r = 0; r < topo_.ranks(); ++r) {
    hosts_[r].pulls.count_in(&queue_bytes_);
    // NDP receivers pull one full packet per packet time of their fastest ingress link.
    double bw = 0;
    for (int li : topo_.in_links(topo_.gpus()[r]))
      bw = std::max(bw, topo_.links()[li].bandwidth_Bps);
    hosts_[r].pull_interval = bw > 0 ? static_cast<SimTime>(full * 1e12 / bw + 0.5) : 0;
  }
  series_.ports = static_cast<int>(ports_.size());
  if (roce_) init_pfc();
}

void PacketSim::begin_step(std::span<const Flow> flows, StepResult& result,
                           std::vector<PacketFlowStats>* stats) {
  const int ranks = topo_.ranks();
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& fl = flows[i];
    if (fl.src < 0 || fl.src >= ranks || fl.dst < 0 || fl.dst >= ranks)
      throw std::logic_error("packet backend: flow " + std::to_string(i) + " joins ranks " +
                             std::to_string(fl.src) + "->" + std::to_string(fl.dst) +
                             " but the topology has " + std::to_string(ranks));
  }
  result.flows.resize(flows.size());
  stats->assign(flows.size(), PacketFlowStats{});
  step_results_ = &result.flows;
  step_stats_ = stats;
  step_start_ = now_;
  step_remaining_ = 0;
  if (config_.sample_interval_s > 0 && !sampling_started_) {
    sampling_started_ = true;
    sample_ps_ = std::max<SimTime>(1, to_ps(config_.sample_interval_s));
    series_.start_s = now_s();
    series_.interval_s = static_cast<double>(sample_ps_) * 1e-12;
    last_busy_.assign(ports_.size(), 0);
    last_drops_.assign(ports_.size(), 0);
    last_trims_.assign(ports_.size(), 0);
    schedule(now_ + sample_ps_, EventKind::kSample, 0);
  }
}

double PacketSim::path_latency_s(const Flow& flow) const {
  double latency = 0;
  for (int li : router_.path(flow.src, flow.dst, flow.id)) latency += topo_.links()[li].latency_s;
  return latency;
}

void PacketSim::finish_step(StepResult& result) {
  run_until(now_ + to_ps(config_.max_step_s), true);
  const size_t unfinished = step_remaining_;
  step_results_ = nullptr;
  step_stats_ = nullptr;
  step_remaining_ = 0;
  graph_.graph = nullptr;
  if (unfinished > 0) {
    // Orphan the step's flows so a later completion does not write into a dead result.
    for (FlowState& f : flows_)
      if (!f.done && f.owner >= 0) f.owner = std::numeric_limits<int>::min();
    throw std::runtime_error("packet backend: " + std::to_string(unfinished) +
                             " flows did not finish within max_step_s = " +
                             std::to_string(config_.max_step_s) + " s of simulated time");
  }
  for (const FlowResult& r : result.flows)
    result.duration_s = std::max(result.duration_s, r.finish_s);
}

StepResult PacketSim::run_step(std::span<const Flow> flows, bool want_fates,
                               std::vector<PacketFlowStats>* stats) {
  StepResult result;
  begin_step(flows, result, stats);
  check_step_fits(flows);
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& fl = flows[i];
    if (fl.src == fl.dst) continue;
    if (fl.bytes == 0) {  // nothing to send: as the analytical backend, the path latency
      result.flows[i].finish_s = path_latency_s(fl);
      continue;
    }
    ++step_remaining_;
    open_flow(fl.src, fl.dst, fl.bytes, fl.id, static_cast<int>(i), want_fates);
    // A step of a million flows fills memory before its first event: check as they open.
    if ((i & (kBudgetStride - 1)) == 0) check_sim_budget(config_.budget, 0, memory_bytes());
  }
  finish_step(result);
  return result;
}

// Refuses at once a step whose flows cannot fit (packet_budget.h, check_opening_budget): new flow
// records at sizeof(FlowState) and sprayed paths at the capacity a fresh record's vectors take,
// routed for up to 1,024 flows spread evenly over the step. Steps below a budget stride of flows
// skip it (the opening check covers them within one stride).
void PacketSim::check_step_fits(std::span<const Flow> flows) {
  std::vector<const Flow*> opening;
  for (const Flow& fl : flows)
    if (fl.src != fl.dst && fl.bytes > 0) opening.push_back(&fl);
  if (opening.size() < kBudgetStride) return;
  constexpr size_t kSample = 1024;
  const size_t step = opening.size() / kSample;
  uint64_t path_bytes = 0;
  for (size_t s = 0; s < kSample; ++s) {
    FlowState probe;
    probe.src = opening[s * step]->src;
    probe.dst = opening[s * step]->dst;
    probe.ecmp_id = opening[s * step]->id;
    set_paths(probe);
    path_bytes += (probe.fwd.capacity() + probe.rev.capacity()) * sizeof(int32_t);
  }
  const uint64_t records =
      opening.size() > free_flows_.size() ? opening.size() - free_flows_.size() : 0;
  check_opening_budget(config_.budget, memory_bytes(), opening.size(), records,
                       sizeof(FlowState) + path_bytes / kSample, kSample);
}

void PacketSim::advance(double seconds) {
  if (!(seconds >= 0)) throw std::logic_error("packet backend: advance() needs seconds >= 0");
  SimTime deadline = now_ + to_ps(seconds);
  run_until(deadline, false);
  now_ = std::max(now_, deadline);
}

void PacketSim::run_until(SimTime deadline, bool stop_when_step_done) {
  const uint64_t first_event = totals_.events;  // the budget counts this call's events
  while (!events_.empty()) {
    if (stop_when_step_done && step_remaining_ == 0) return;
    Event e = events_.pop();
    if (e.time > deadline) {  // put it back: later work may still come before it
      events_.push(e);
      return;
    }
    now_ = e.time;
    ++totals_.events;
    if ((totals_.events & (kBudgetStride - 1)) == 0)  // network/packet/packet_budget.h
      check_sim_budget(config_.budget, totals_.events - first_event, memory_bytes());
    switch (e.kind) {
      case EventKind::kArrive: on_arrive(e.target); break;
      case EventKind::kTxDone: on_tx_done(e.target); break;
      case EventKind::kTimer: on_timer(e.target); break;
      case EventKind::kPull: on_pull_tick(e.target); break;
      case EventKind::kSample: on_sample(); break;
      case EventKind::kGenerate: on_generate(e.target); break;
      case EventKind::kPfc: on_pfc(e.target); break;
      case EventKind::kPace: on_pace(e.target); break;
      case EventKind::kDcqcn: on_dcqcn_timer(e.target); break;
      case EventKind::kStartFlow: on_start_flow(e.target); break;
    }
  }
}

uint32_t PacketSim::new_packet(uint32_t flow, uint32_t seq, uint32_t wire, uint8_t bits,
                               uint8_t path) {
  uint32_t i = packets_.alloc();
  packets_[i] = Packet{flow, seq, static_cast<uint16_t>(wire), 0, bits, path};
  ++flows_[flow].live;
  totals_.peak_packets = std::max<uint64_t>(totals_.peak_packets, packets_.live());
  return i;
}

void PacketSim::free_packet(uint32_t pkt) {
  uint32_t flow = packets_[pkt].flow;
  packets_.release(pkt);
  --flows_[flow].live;
  maybe_recycle(flow);
}

void PacketSim::drop(Port& port, uint32_t pkt) {
  ++port.drops;
  ++totals_.dropped;
  const Packet& p = packets_[pkt];
  if ((p.bits & kKindMask) == kData) ++flows_[p.flow].st.dropped;
  free_packet(pkt);
}

void PacketSim::enqueue(uint32_t port_id, uint32_t pkt) {
  Port& port = ports_[port_id];
  Packet& p = packets_[pkt];
  // A packet trimmed to a level above the last stays a data packet (and may be cut further).
  bool to_hdr = (p.bits & kKindMask) != kData || (p.bits & kPriority);
  if (port.switch_port) {
    if (roce_) {
      if (!to_hdr) red_mark(port, p);  // lossless: PFC below bounds the queue instead
    } else if (!to_hdr) {
      const int last = static_cast<int>(trim_levels_.size()) - 1;
      int level = kTrimNone;
      if ((p.bits & kTrimMe) && !(p.bits & kSwitched)) {
        level =
            last;  // Bernoulli emulation, decided by the sender's draw, done at the first switch
      } else if (port.data_bytes + p.wire > port.data_cap) {
        if (config_.admission != Admission::kTrim) {
          drop(port, pkt);
          return;
        }
        level = trim_level_for_queue(port.data_bytes, p.wire, port.data_cap, trim_levels_);
      } else if (config_.admission == Admission::kEcn && port.data_bytes > port.ecn_bytes) {
        p.bits |= kEcn;
        ++totals_.ecn_marked;
      }
      if (level != kTrimNone) {
        p.wire = static_cast<uint16_t>(std::min<uint32_t>(p.wire, trim_levels_[level]));
        p.bits |= kTrimmed;
        ++port.trims;
        ++totals_.trimmed;
        if (level == last) {
          p.bits |= kPriority;
          to_hdr = true;
        }
      }
    }
    p.bits |= kSwitched;
    if (to_hdr && port.hdr.size() >= port.hdr_cap) {
      drop(port, pkt);
      return;
    }
  }
  if (port.busy_until <= now_ && port.data.empty() && port.hdr.empty() &&
      (to_hdr || !port.paused)) {
    start_tx(port, pkt);
    return;
  }
  if (to_hdr) {
    port.hdr.push_back(pkt);
    port.hdr_bytes += p.wire;
  } else {
    // RoCE: a data packet waiting in a switch counts against the ingress port it came from.
    if (roce_ && port.switch_port && !pfc_admit(p)) {
      drop(port, pkt);
      return;
    }
    port.data.push_back(pkt);
    port.data_bytes += p.wire;
  }
  if (!port.tx_pending) {
    port.tx_pending = true;
    schedule(port.busy_until, EventKind::kTxDone, port_id);
  }
}

void PacketSim::start_tx(Port& port, uint32_t pkt) {
  const Packet& p = packets_[pkt];
  SimTime tx = tx_ps(port, p.wire);
  port.busy_until = now_ + tx;
  port.busy_ps += tx;
  const SimTime arrival = port.busy_until + port.latency_ps;
  if (port.pipe.empty())
    schedule(arrival, EventKind::kArrive, static_cast<uint32_t>(&port - ports_.data()));
  port.pipe.push_back({arrival, pkt});
  if ((p.bits & kKindMask) != kData)
    ++totals_.control_packet_hops;
  else if (p.bits & kTrimmed)
    ++totals_.trimmed_packet_hops;
  else
    ++totals_.data_packet_hops;
}

void PacketSim::on_tx_done(uint32_t port_id) {
  Port& port = ports_[port_id];
  port.tx_pending = false;
  uint32_t pkt;
  const bool data_ok = !port.data.empty() && !port.paused;  // PFC pauses the data priority only
  // Weighted round robin: up to header_weight headers, then one data packet when both wait.
  if (!port.hdr.empty() && (!data_ok || port.wrr < config_.header_weight)) {
    pkt = port.hdr.pop_front();
    port.hdr_bytes -= packets_[pkt].wire;
    ++port.wrr;
  } else if (data_ok) {
    pkt = port.data.pop_front();
    port.data_bytes -= packets_[pkt].wire;
    port.wrr = 0;
    if (roce_ && port.switch_port) pfc_release(packets_[pkt]);
  } else {
    return;  // paused with only data waiting: on_pfc restarts the port
  }
  start_tx(port, pkt);
  if (!port.hdr.empty() || (!port.data.empty() && !port.paused)) {
    port.tx_pending = true;
    schedule(port.busy_until, EventKind::kTxDone, port_id);
  }
}

void PacketSim::on_arrive(uint32_t port_id) {
  Port& port = ports_[port_id];
  const uint32_t pkt = port.pipe.pop_front().second;
  if (!port.pipe.empty()) schedule(port.pipe.front().first, EventKind::kArrive, port_id);
  Packet& p = packets_[pkt];
  const FlowState& f = flows_[p.flow];
  const bool data = (p.bits & kKindMask) == kData;
  const uint32_t hops = data ? f.fwd_hops : f.rev_hops;
  const int32_t* path = (data ? f.fwd.data() : f.rev.data()) + p.path * hops;
  if (p.hop + 1u == hops) {
    if (data)
      on_data_at_receiver(pkt);
    else
      on_control_at_sender(pkt);
    return;
  }
  ++p.hop;
  enqueue(static_cast<uint32_t>(path[p.hop]), pkt);
}

void PacketSim::set_paths(FlowState& f) {
  // Distinct equal-cost paths from a few ECMP keys; the first is the flow's own ECMP path. They
  // are appended in place: the flow's vectors keep their capacity when its slot is reused.
  f.fwd.clear();
  f.rev.clear();
  router_.append_path(f.src, f.dst, f.ecmp_id, f.fwd);
  router_.append_path(f.dst, f.src, f.ecmp_id, f.rev);
  f.fwd_hops = static_cast<uint32_t>(f.fwd.size());
  f.rev_hops = static_cast<uint32_t>(f.rev.size());
  f.npaths = 1;
  f.next_path = 0;
  // Once every equal-cost path is found no key can add one: stop there (64 paths asked on a
  // k=4 fat tree's 4 tried all 256 keys for every flow, most of a tiny-flow run's time).
  const uint32_t wanted =
      config_.paths > 1 ? std::min(config_.paths, router_.equal_cost_paths(f.src, f.dst)) : 1;
  for (uint32_t key = 1; f.npaths < wanted && key < 4 * config_.paths; ++key) {
    const uint64_t id = hash_combine(f.ecmp_id, key);
    const size_t candidate = f.fwd.size();
    router_.append_path(f.src, f.dst, id, f.fwd);
    const auto fresh = f.fwd.begin() + static_cast<std::ptrdiff_t>(candidate);
    bool seen = false;
    for (uint32_t q = 0; q < f.npaths && !seen; ++q)
      seen = std::equal(fresh, f.fwd.end(), f.fwd.begin() + q * f.fwd_hops);
    if (seen) {
      f.fwd.resize(candidate);
      continue;
    }
    router_.append_path(f.dst, f.src, id, f.rev);
    ++f.npaths;
  }
}

double PacketSim::ideal_time_s(int src, int dst, uint64_t bytes, uint64_t flow_id) const {
  if (src == dst || bytes == 0) return 0;
  std::vector<int> path = router_.path(src, dst, flow_id);
  uint64_t key = bytes;
  for (int li : path) {
    uint64_t rate_bits;
    std::memcpy(&rate_bits, &ports_[li].ps_per_byte, sizeof rate_bits);
    key = hash_combine(hash_combine(key, rate_bits), ports_[li].latency_ps);
  }
  if (auto it = ideal_cache_.find(key); it != ideal_cache_.end()) return it->second;
  // Store-and-forward pipeline of back-to-back packets, exactly as the engine times it:
  // a packet leaves hop j when it has arrived there and hop j finished the previous packet.
  std::vector<SimTime> free_at(path.size(), 0);
  const uint64_t mtu = config_.mtu_bytes;
  const uint64_t packets = (bytes + mtu - 1) / mtu;
  SimTime arrival = 0;
  for (uint64_t i = 0; i < packets; ++i) {
    uint32_t wire = static_cast<uint32_t>(std::min(mtu, bytes - i * mtu) + config_.header_bytes);
    SimTime t = 0;
    for (size_t j = 0; j < path.size(); ++j) {
      const Port& port = ports_[path[j]];
      SimTime start = std::max(t, free_at[j]);
      free_at[j] = start + tx_ps(port, wire);
      t = free_at[j] + port.latency_ps;
    }
    arrival = t;
  }
  return ideal_cache_[key] = static_cast<double>(arrival) * 1e-12;
}

}  // namespace commlab
