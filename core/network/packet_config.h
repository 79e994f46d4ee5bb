#pragma once
// Settings of the packet-level backend (docs/architecture.md; switch behaviour from
// the trimming paper (docs/papers.md)): packet sizes, the admission policy of switch ports, the host transport,
// background traffic, and the per-port time series kept for the GUI.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "network/packet/packet_budget.h"

namespace commlab {

// What a switch port does with a data packet that does not fit its data queue.
enum class Admission : uint8_t {
  kTailDrop,  // drop it
  kEcn,       // drop it; packets admitted above the ECN threshold are marked
  kTrim,      // cut the payload to trim_bytes and put the header in the high-priority queue (NDP)
};

enum class Transport : uint8_t {
  kReliable,       // ACK-clocked window; NACK on a trimmed header or a sequence gap; timeout
  kNdp,            // initial window, then receiver-paced PULLs; NACK -> retransmit the whole packet
  kAcceptTrimmed,  // as NDP, but a trimmed packet is kept (just-in-time compression): no retransmit
  // RoCEv2 over a lossless fabric: switches run PFC (per ingress port and priority) and RED ECN
  // marking; senders are ACK-clocked as kReliable and paced by DCQCN (Zhu et al., SIGCOMM 2015).
  kRoce,
};

const char* admission_name(Admission admission);
const char* transport_name(Transport transport);
// Throw std::invalid_argument naming the accepted values.
Admission parse_admission(std::string_view text);  // tail-drop | ecn | trim
Transport parse_transport(std::string_view text);  // reliable | ndp | accept-trimmed | roce

// kRoce: the switches' PFC and RED marking and the senders' DCQCN. Defaults and their sources are
// in docs/packet-backend.md ("RoCE with DCQCN").
struct RoceConfig {
  // PFC, per switch ingress port and data priority. XOFF 0: the port's data queue (queue_packets
  // or the link's buffer_bytes); XON 0: XOFF - 2 full packets. The headroom above XOFF is derived
  // from the link: 2 x latency x bandwidth + 2 full packets + one pause frame.
  uint64_t pfc_xoff_bytes = 0;
  uint64_t pfc_xon_bytes = 0;
  // Headroom above XOFF; 0: derived as above. Smaller than that is a misconfiguration that
  // drops packets (recovered by gap NACKs and the timeout, as kReliable).
  uint64_t pfc_headroom_bytes = 0;
  // RED marking at the egress data queue (bytes waiting when the packet is admitted).
  uint64_t kmin_bytes = 5000;
  uint64_t kmax_bytes = 200000;
  double pmax = 0.01;
  // Notification point: at most one CNP per flow per interval.
  double cnp_interval_s = 50e-6;
  // Reaction point.
  double g = 1.0 / 256;              // alpha gain
  double alpha_timer_s = 55e-6;      // alpha decays by (1 - g) per period without a CNP
  double increase_timer_s = 55e-6;   // rate-increase timer T
  uint64_t byte_counter = 10000000;  // rate-increase byte counter B
  uint32_t fast_recovery_steps = 5;  // F
  double rai_fraction = 0.001;       // additive step R_AI as a fraction of the line rate
  double rhai_fraction = 0.01;       // hyper step R_HAI as a fraction of the line rate
  double min_rate_bps = 100e6;       // floor of the current rate (bits/s)
  // Fault injection, a PFC storm: this rank's NIC pauses its switch link from the start and never
  // resumes (a stalled receive pipeline). -1: none.
  int stuck_rank = -1;
};

struct PacketConfig {
  uint32_t mtu_bytes = 4096;   // payload of a full data packet
  uint32_t header_bytes = 64;  // added to every data packet; the size of ACK/NACK/PULL packets
  Admission admission = Admission::kTrim;
  Transport transport = Transport::kNdp;
  // Data queue of a switch port in full-size packets; 0 uses the link's buffer_bytes.
  uint32_t queue_packets = 0;
  // Paths per flow: 1 is per-flow ECMP (topology/routing.h); k > 1 sprays a flow's packets
  // round robin over up to k distinct equal-cost paths, as NDP does.
  uint32_t paths = 1;
  // High-priority queue (trimmed headers and control packets) of a switch port, in packets.
  uint32_t header_queue_packets = 1024;
  uint32_t trim_bytes = 128;  // wire size of a trimmed packet, header included (SAI default)
  // Multi-level trimming (trim_level_for_queue): wire sizes of the kept levels, header included,
  // decreasing (e.g. the 4-, 2- and 1-bit heads). Empty: one level, trim_bytes.
  std::vector<uint32_t> trim_level_bytes;
  uint32_t header_weight = 10;  // weighted round robin: headers sent per data packet (NDP)
  // kEcn: mark a data packet admitted while more than this many data packets wait; 0: capacity/4.
  uint32_t ecn_threshold_packets = 0;
  // Bernoulli trimming (the trimming paper's emulation): this fraction of data packets is trimmed
  // at the first switch they cross, whatever the queues, from the seeded counter RNG.
  double random_trim_fraction = 0;
  // Packets a flow may have in flight at the start (NDP) or always (reliable); 0: the path's
  // bandwidth-delay product in packets, plus 2.
  uint32_t window_packets = 0;
  double rto_s = 1e-3;  // retransmission timeout for packets that were lost, not trimmed
  uint64_t seed = 1;
  double sample_interval_s = 0;  // per-port time series; 0 = off
  uint32_t max_samples = 512;    // bounded: when full, adjacent samples merge, interval doubles
  double max_step_s = 10;        // a step that runs longer in simulated time fails (a guard)
  SimBudget budget;              // events per step and bytes of state (packet_budget.h)
  RoceConfig roce;               // kRoce only
};

// Multi-level trimming at a switch port (docs/packet-backend.md, "Multi-level trimming"). T is the
// port's data-queue threshold in bytes, q the data bytes waiting, s_i = min(wire, levels[i]):
//   q + wire <= T                                      -> kTrimNone: admitted whole;
//   else the first i < L - 1 with q + s_i <= (i + 2) T -> i: cut to levels[i], stays a data packet;
//   otherwise                                          -> L - 1: cut to the last level and sent by
//                                                         the high-priority queue (as NDP's
//                                                         header).
// So levels[i] is kept while the queue is above (i + 1) T, and the data queue holds at most L T
// bytes. One level (L = 1) is plain trimming: whole below T, the last level above. `levels` must
// not be empty.
inline constexpr int kTrimNone = -1;
int trim_level_for_queue(uint64_t queued_bytes, uint32_t wire_bytes, uint64_t threshold_bytes,
                         std::span<const uint32_t> level_bytes);

// Background traffic shares the network with every step's flows and keeps running between steps.
enum class Pattern : uint8_t {
  kPermutation,  // every rank sends to a distinct rank (a random derangement)
  kIncast,       // `senders` ranks send to `target`
  kAllToAll,     // every ordered pair
  kOnOff,        // every rank starts flows to random ranks at Poisson times, offering `load`
};

struct TrafficSpec {
  Pattern pattern = Pattern::kPermutation;
  int senders = 16;  // kIncast
  int target = 0;    // kIncast
  uint64_t flow_bytes = 1 << 20;
  double load = 0.5;   // kOnOff: offered load per sender, a fraction of its NIC bandwidth on the
                       // wire (payload plus packet headers)
  bool repeat = true;  // background: restart a pair's flow when it completes
};

// "perm" | "incast:K" | "alltoall" | "onoff:LOAD" (throws std::invalid_argument).
TrafficSpec parse_pattern(std::string_view text);

// Per-flow packet accounting. Conservation: sent == delivered + trimmed + dropped + in_flight,
// counted when the flow completed (in_flight: duplicates still travelling then).
struct PacketFlowStats {
  uint64_t sent = 0;           // data transmissions, retransmissions included
  uint64_t retransmitted = 0;  // sent minus the flow's packet count
  uint64_t delivered = 0;      // arrived whole at the receiver (duplicates included)
  uint64_t trimmed = 0;        // arrived trimmed
  uint64_t dropped = 0;        // lost in a switch
  uint64_t in_flight = 0;
  uint64_t ecn_marked = 0;  // arrived with an ECN mark
  uint64_t cnps = 0;        // kRoce: CNPs the sender received
  // kRoce: the sender's DCQCN rate (bytes/s) averaged over time from its first CNP to the
  // flow's completion; 0 if it never received one.
  double mean_rate_Bps = 0;
};

// Running totals of a backend since it was built.
struct PacketTotals {
  uint64_t data_packet_hops = 0;     // link traversals of whole data packets
  uint64_t trimmed_packet_hops = 0;  // of trimmed data packets
  uint64_t control_packet_hops = 0;  // of ACK / NACK / PULL packets
  uint64_t events = 0;
  uint64_t packets_sent = 0;  // data transmissions by hosts
  uint64_t retransmitted = 0;
  uint64_t trimmed = 0;  // data packets trimmed in switches
  uint64_t dropped = 0;  // packets (any kind) dropped in switches
  uint64_t ecn_marked = 0;
  uint64_t background_flows_done = 0;
  uint64_t background_bytes_done = 0;
  uint64_t peak_packets = 0;  // most packets alive at once (memory is proportional to this)
  uint64_t pfc_pauses = 0;    // kRoce: XOFF frames sent by switch ingress ports
  uint64_t cnps = 0;          // kRoce: CNPs sent by receivers
};

// One port (directed link) over one sample interval.
struct PortSample {
  float utilisation = 0;  // busy fraction of the interval
  float queue_bytes = 0;  // data + header queue at the sample instant (max when merged)
  uint32_t drops = 0;     // in the interval
  uint32_t trims = 0;
};

struct PortSeries {
  double start_s = 0;     // time of the first sample's start
  double interval_s = 0;  // width of each sample
  int ports = 0;          // = topology links; samples are [sample][port]
  std::vector<PortSample> samples;
  size_t count() const { return ports ? samples.size() / ports : 0; }
  const PortSample& at(size_t sample, int port) const { return samples[sample * ports + port]; }
};

}  // namespace commlab
