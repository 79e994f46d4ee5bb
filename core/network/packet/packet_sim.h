#pragma once
// The packet-level discrete-event engine behind PacketBackend. Packets are 12-byte records in a
// pool; events are 16-byte PODs in a binary heap; every switch port is an output queue with a data
// FIFO and a high-priority header FIFO served by weighted round robin. Time is integer picoseconds.
// Memory is proportional to packets alive, never to bytes moved (fates are kept only on request).
//
// The engine is split by responsibility: packet_sim.cpp (ports, forwarding, admission, the event
// loop), transport_host.cpp (senders and receivers), roce_switch.cpp (PFC and RED marking),
// roce_dcqcn.cpp (DCQCN senders and receivers), traffic_background.cpp (generators),
// packet_series.cpp (per-port time series).
#include <deque>
#include <span>
#include <unordered_map>
#include <vector>

#include "network/backend.h"
#include "network/packet/packet_containers.h"
#include "network/packet_config.h"
#include "numeric/rng.h"
#include "topology/routing.h"
#include "topology/topology.h"

namespace commlab {

class PacketSim {
 public:
  PacketSim(const Topology& topology, const Router& router, const PacketConfig& config);

  // Starts the flows now and runs until every one has all its packets (background traffic runs
  // alongside and keeps running in later steps). Times are from the start of the step.
  StepResult run_step(std::span<const Flow> flows, bool want_fates,
                      std::vector<PacketFlowStats>* stats);
  // Starts each flow of the graph when its dependencies are met (backend.h, FlowGraph) and runs
  // until every one has arrived. Times are from the start of the graph.
  StepResult run_graph(const FlowGraph& graph, bool want_fates,
                       std::vector<PacketFlowStats>* stats);
  // Runs background traffic alone for `seconds` of simulated time.
  void advance(double seconds);
  void add_background(const TrafficSpec& spec);
  void clear_background();

  double now_s() const { return static_cast<double>(now_) * 1e-12; }
  const PacketTotals& totals() const { return totals_; }
  uint64_t memory_bytes() const;  // what the memory budget compares (packet_budget.h)
  const PortSeries& series() const { return series_; }
  // RoCE: XOFF frames sent per link (by the link's downstream switch), indexed like links().
  std::vector<uint64_t> pfc_pauses_per_link() const;
  // Uncongested completion time of one flow alone on its path (what the CLI calls ideal).
  double ideal_time_s(int src, int dst, uint64_t bytes, uint64_t flow_id) const;

 private:
  enum Bits : uint8_t {
    kData = 0,
    kAck = 1,
    kNack = 2,
    kPull = 3,
    kKindMask = 3,
    kTrimmed = 4,
    kEcn = 8,
    kSwitched = 16,
    kHasAck = 32,
    kTrimMe = 64,
    kPriority = 128,  // trimmed to the last level: served by the high-priority queue
    kCnp = kPull,     // RoCE has no PULLs: its CNPs use that kind
  };
  struct Packet {
    uint32_t flow;  // flow slot
    uint32_t seq;   // data: sequence number; ACK/NACK/PULL: the sequence acknowledged
    uint16_t wire;  // bytes on the wire
    uint8_t hop;    // index in the flow's path of the link the packet is on
    uint8_t bits;
    uint8_t path;  // which of the flow's paths (packet spraying); 0 with per-flow ECMP
  };
  struct Port {
    SimTime busy_until = 0;
    SimTime latency_ps = 0;
    double ps_per_byte = 0;
    uint64_t data_cap = 0;  // bytes; UINT64_MAX at hosts (the transport bounds them)
    uint32_t hdr_cap = 0;   // packets
    uint64_t ecn_bytes = 0;
    uint64_t data_bytes = 0;
    uint64_t hdr_bytes = 0;
    RingBuffer<uint32_t> data, hdr;
    // Packets on the wire in arrival order: a link is FIFO with a fixed latency, so only its
    // head needs an event, which keeps the heap at about one entry per busy link.
    RingBuffer<std::pair<SimTime, uint32_t>> pipe;
    bool switch_port = false;
    bool tx_pending = false;
    // PFC (RoCE). This port is the upstream end of its link: `paused` stops its data queue. The
    // downstream switch's ingress accounting for the link lives here too: data bytes that came
    // over it and still wait in that switch, its XOFF/XON thresholds and the drop limit.
    bool paused = false;
    bool xoff_sent = false;
    uint64_t pfc_bytes = 0;
    uint64_t pfc_xoff = 0, pfc_xon = 0, pfc_limit = 0;
    SimTime pfc_delay = 0, pfc_last = 0;
    uint64_t pfc_pauses = 0;  // XOFF frames sent to this port
    uint32_t wrr = 0;
    // cumulative counters for the time series
    uint64_t busy_ps = 0;
    uint64_t drops = 0, trims = 0;
  };
  struct FlowState {
    int src = 0, dst = 0;
    int owner = 0;  // >= 0: index in the current step; < 0: background generator -1 - g
    uint64_t bytes = 0;
    uint64_t ecmp_id = 0;
    uint32_t packets = 0;
    uint32_t last_payload = 0;
    // npaths paths each way, concatenated (all shortest paths have the same length).
    std::vector<int32_t> fwd, rev;
    uint32_t fwd_hops = 0, rev_hops = 0, npaths = 1, next_path = 0;
    SimTime start = 0;
    bool done = false, timer_armed = false, want_fates = false, recycled = false;
    // Packets, pending pull tokens and timers that name this slot; recycled when done and 0. A
    // flow's retransmit timer stops counting when it completes (complete): its event, still in
    // the heap, is recognised as stale by its time (on_timer) instead of holding the slot and
    // the flow's state for up to an RTO after the last packet.
    uint32_t live = 0;
    SimTime timer_at = 0;  // when the armed timer's event fires
    uint64_t heap = 0;     // bytes its vectors hold (account_heap), in PacketSim::flow_heap_bytes_
    // sender
    uint32_t next_new = 0, snd_una = 0, inflight = 0, window = 0;
    std::vector<uint64_t> slots;  // per seq in [snd_una, next_new): last send time | flags
    RingBuffer<uint32_t> rtx;
    SimTime last_heard = 0;
    // receiver
    std::vector<uint8_t> rstate;  // per seq from rcv_base: 0 nothing, 1 got, 2 nacked
    uint32_t rcv_base = 0, rcv_high = 0, received = 0;
    PacketFlowStats st;
    std::vector<PacketFate> fates;
    // DCQCN (RoCE): reaction point at the sender, notification point at the receiver.
    struct Dcqcn {
      double line = 0, rc = 0, rt = 0, alpha = 1;  // rates in bytes/s
      double rate_area = 0;                        // integral of rc dt (bytes) since first CNP
      SimTime rate_at = 0, first_cnp = 0, alpha_at = 0, timer_at = 0, next_send = 0;
      SimTime next_cnp = 0;  // receiver: earliest time of its next CNP
      uint64_t bytes = 0;    // byte counter since the last CNP or byte-counter step
      uint32_t t = 0, bc = 0;
      bool active = false, pace_pending = false, cnp_ever = false;
    } cc;
  };
  struct Host {
    RingBuffer<uint64_t> pulls;  // (flow slot << 32) | (acked seq + 1, 0 = none)
    SimTime next_pull = 0;
    SimTime pull_interval = 0;
    bool pull_pending = false;
  };
  struct Generator {
    TrafficSpec spec;
    uint64_t draws = 0;  // counter into its RNG stream
    bool active = true;  // cleared generators stay in the table so their events find them dead
    std::vector<uint32_t> open_by_source;  // kOnOff: flows each source has started, not finished
  };

  // packet_sim.cpp
  void begin_step(std::span<const Flow> flows, StepResult& result,
                  std::vector<PacketFlowStats>* stats);
  void finish_step(StepResult& result);  // runs the step to its end; throws if it never ends
  void check_step_fits(std::span<const Flow> flows);  // throws SimBudgetExceeded if it cannot
  double path_latency_s(const Flow& flow) const;
  void schedule(SimTime t, EventKind kind, uint32_t target) { events_.push({t, target, kind}); }
  void run_until(SimTime deadline, bool stop_when_step_done);
  uint32_t new_packet(uint32_t flow, uint32_t seq, uint32_t wire, uint8_t bits, uint8_t path);
  void free_packet(uint32_t pkt);
  void enqueue(uint32_t port, uint32_t pkt);
  void start_tx(Port& port, uint32_t pkt);
  void on_tx_done(uint32_t port);
  void on_arrive(uint32_t port);
  void drop(Port& port, uint32_t pkt);
  SimTime tx_ps(const Port& port, uint32_t wire) const {
    return static_cast<SimTime>(wire * port.ps_per_byte + 0.5);
  }

  // transport_host.cpp
  uint32_t open_flow(int src, int dst, uint64_t bytes, uint64_t ecmp_id, int owner, bool fates);
  uint32_t payload_of(const FlowState& f, uint32_t seq) const {
    return seq + 1 == f.packets ? f.last_payload : config_.mtu_bytes;
  }
  void send_data(uint32_t flow, uint32_t seq, bool retransmit);
  void send_control(uint32_t flow, uint8_t kind, uint32_t seq, uint8_t path);
  void pump(uint32_t flow);  // ACK-clocked sending within the window
  void on_data_at_receiver(uint32_t pkt);
  void on_control_at_sender(uint32_t pkt);
  void mark_acked(FlowState& f, uint32_t seq);
  bool send_next(uint32_t flow);
  uint8_t& rslot(FlowState& f, uint32_t seq);
  void emit_pull(uint64_t token);
  void set_paths(FlowState& f);
  void accept(uint32_t flow, uint32_t seq, uint32_t kept);
  void complete(uint32_t flow);
  void release_flow_state(uint32_t flow);
  void queue_pull(int host, uint32_t flow, int64_t acked_seq);
  void on_pull_tick(uint32_t host);
  void on_timer(uint32_t flow);
  void arm_timer(FlowState& f, uint32_t flow, SimTime at);
  void maybe_recycle(uint32_t flow);

  // roce_switch.cpp
  void init_pfc();
  bool pfc_admit(const Packet& p);  // false: dropped (beyond the headroom)
  void pfc_release(const Packet& p);
  void send_pfc(uint32_t link, bool pause);
  void on_pfc(uint32_t target);
  void red_mark(const Port& port, Packet& p);

  // roce_dcqcn.cpp
  void dcqcn_open(FlowState& f);
  bool dcqcn_may_send(uint32_t flow);  // false: paced, a kPace event will call pump()
  void dcqcn_sent(uint32_t flow, uint32_t wire);
  void dcqcn_at_receiver(uint32_t flow, uint8_t path);
  void on_cnp(uint32_t flow);
  void dcqcn_increase(FlowState& f);
  void on_dcqcn_timer(uint32_t flow);
  void on_pace(uint32_t flow);
  void dcqcn_set_rate(FlowState& f, double rc);
  void dcqcn_close(FlowState& f);

  // traffic_background.cpp
  void on_flow_done_background(uint32_t flow);
  uint64_t background_flow_id(uint32_t g);
  void on_generate(uint32_t target);
  void schedule_next_start(uint32_t g, int src);

  // flow_graph_run.cpp
  void on_start_flow(uint32_t index);
  void release_sent(uint32_t index);     // flow `index` handed its last packet to the NIC
  void release_arrived(uint32_t index);  // flow `index` arrived whole
  void release(uint32_t dependent, SimTime ready);

  // packet_series.cpp
  void on_sample();
  void compact_series();

  const Topology& topo_;
  const Router& router_;
  PacketConfig config_;
  bool roce_ = false;
  uint64_t red_draws_ = 0;
  CounterRng trim_rng_;
  std::vector<uint32_t> trim_levels_;  // config_.trim_level_bytes, or {trim_bytes}
  CounterRng red_rng_;
  CounterRng traffic_rng_;
  SimTime now_ = 0;
  RadixEventQueue events_;
  Pool<Packet> packets_;
  std::vector<Port> ports_;
  std::vector<Host> hosts_;
  std::deque<FlowState> flows_;  // a deque: references stay valid while flows are added
  // What the flows' vectors hold (paths over up to 64 sprayed routes, window records, fates):
  // 3 KB a flow on a k=16 fat-tree, the bulk of an all-to-all's memory, so the budget counts it.
  uint64_t flow_heap_bytes_ = 0;
  // What the ports' queues and pipes and the hosts' pull queues hold (their rings count_in it):
  // a sender's backlog waits in its NIC's queue.
  uint64_t queue_bytes_ = 0;
  void account_heap(FlowState& f);  // after a flow's vectors changed capacity
  std::vector<uint32_t> free_flows_;
  std::vector<Generator> generators_;
  // current step
  std::vector<FlowResult>* step_results_ = nullptr;
  std::vector<PacketFlowStats>* step_stats_ = nullptr;
  size_t step_remaining_ = 0;
  SimTime step_start_ = 0;
  PacketTotals totals_;
  // The current flow graph (run_graph): a flow waits until its dependencies are met.
  struct GraphRun {
    const FlowGraph* graph = nullptr;
    bool want_fates = false;
    std::vector<uint32_t> waiting;  // unmet dependencies per flow
    std::vector<SimTime> ready;     // earliest start per flow (arrival + settle)
    std::vector<uint8_t> started;
    std::vector<uint32_t> on_arrival_begin, on_arrival;  // the flows that need flow i's arrival
    std::vector<uint32_t> on_sent_begin, on_sent;        // the flows whose after_sent is i
  } graph_;
  // time series
  PortSeries series_;
  std::vector<uint64_t> last_busy_, last_drops_, last_trims_;
  SimTime sample_ps_ = 0, next_sample_ = 0;
  bool sampling_started_ = false;
  // ideal_time_s by (the links' rates and latencies along the path, bytes): few distinct values.
  mutable std::unordered_map<uint64_t, double> ideal_cache_;
};

}  // namespace commlab
