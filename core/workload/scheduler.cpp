#include "workload/scheduler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "numeric/rng.h"
#include "topology/topology.h"
#include "workload/comm_timer.h"
#include "workload/replay_arena.h"
#include "workload/scheduler_state.h"

namespace commlab::workload {
namespace {

using namespace detail;

class Engine {
 public:
  Engine(const Graph& graph, NetworkBackend& backend, const SchedulerOptions& options)
      : g_(graph),
        o_(options),
        astra_(options.comm_issue == CommIssue::kAstra),
        recv_holds_stream_(graph.receives_hold_stream && !astra_),
        timer_(backend, options.algorithm, options.pipeline),
        topology_(backend.topology()),
        instances_(graph.groups.size()) {
    for (const std::vector<int>& ranks : graph.groups)
      in_one_server_.push_back(within_one_server(topology_, ranks) ? 1 : 0);
  }

  ScheduleResult run();

 private:
  void init();
  void init_rank(int r, bool timeline);
  void process(const Event& e, double t);
  void process_batch();
  void make_ready(int rank, uint32_t v, int stream, double t, uint32_t by);
  void try_start(int rank, int stream, double t);
  void release(int rank, uint32_t v, int stream, double t, uint32_t by);
  void start(int rank, int stream, const ReadyNode& ready, double t);
  void arrive_collective(int rank, uint32_t v, double t, NodeWaiting w, int group, uint64_t bytes);
  void arrive_p2p(int rank, uint32_t v, NodeKind kind, CommTarget target, double t);
  void post_recv(int rank, uint32_t v, double t, uint32_t by);
  // False for a receive of a graph whose receives hold no stream (Graph::receives_hold_stream).
  bool holds_stream(NodeKind kind) const { return kind != NodeKind::kRecv || recv_holds_stream_; }
  // The stream a node runs on: the graph's, or under CommIssue::kAstra 0 for compute and 1 (the
  // communication slot) for the rest.
  uint8_t stream_of(const Node& node) const {
    if (!astra_) return node.stream;
    return node.kind == NodeKind::kCompute ? kComputeStream : 1;
  }
  void finish_recv(const EagerMessage& message);
  void flush_pending(double t);
  void flush_collectives(double t);
  void flush_p2p(double t);
  Flow flow_of(const P2pPost& send, int dst) const;
  // When a send or recv was posted.
  static double arrival_of(const P2pPost& post) { return post.posted_s; }
  void end_at(int rank, uint32_t v, double start, double end, Pred pred);
  [[noreturn]] void deadlock() const;
  std::string waiting_node(int rank, uint32_t v) const;  // "rank R node ID (...) waits for ..."
  [[noreturn, gnu::cold, gnu::noinline]] void nan_end(int rank, uint32_t v) const;

  const Graph& g_;
  const SchedulerOptions& o_;
  bool astra_;  // CommIssue::kAstra
  bool recv_holds_stream_;
  CommTimer timer_;
  const Topology& topology_;
  // Per group: all its ranks in one server, so its traffic never meets a network codec
  // (CommTechniques: ratios and codec time apply to traffic that leaves a server).
  std::vector<char> in_one_server_;
  ReplayArena arena_;  // ranks_' per-node arrays
  std::vector<RankState> ranks_;
  std::vector<GroupCalls> instances_;  // per group, its unfinished calls
  std::unordered_map<uint64_t, P2pQueues> p2p_;
  std::vector<std::pair<int, uint32_t>> pending_coll_;  // (group, call)
  // Member lists of finished instances, reused: as many as instances are ever open at once.
  std::vector<std::vector<std::pair<int, uint32_t>>> member_lists_;
  std::vector<std::pair<P2pPost, P2pPost>> pending_p2p_;  // (send, recv): rendezvous
  std::vector<EagerMessage> messages_;                    // every eager send so far
  std::vector<uint32_t> pending_sends_;                   // eager sends posted, flow not timed
  EventQueue events_;
  std::vector<Event> batch_;  // the events of one instant, in (time, seq) order
  uint64_t done_ = 0, total_ = 0;
  ScheduleResult r_;
};

// Each rank's state, then its nodes without dependencies made ready and its streams started, rank
// by rank (the order the events and collective arrivals of time 0 are pushed in).
void Engine::init() {
  const int n = g_.rank_count();
  ranks_.resize(n);
  std::vector<char> timeline(n, 0);
  for (int r : timeline_ranks(o_, n)) timeline[r] = 1;
  size_t streams = 1;
  for (int r = 0; r < n; ++r) {
    init_rank(r, timeline[r]);
    streams = std::max(streams, ranks_[r].streams.size());
  }
  for (RankState& s : ranks_) s.streams.resize(streams);  // every rank reports every stream
  r_.nodes = total_;
}

void Engine::init_rank(int r, bool timeline) {
  const RankGraph& rg = g_.ranks[r];
  RankState& s = ranks_[r];
  const auto count = static_cast<uint32_t>(rg.nodes.size());
  total_ += count;
  // The dependants' CSR without a cursor array: count node d's dependants at begin[d + 1], sum,
  // then append at begin[d]++ (which leaves begin[d] at d's end, node d + 1's begin) and shift.
  s.dependant_begin = arena_.take<uint32_t>(count + 1);
  std::span<uint32_t> begin = s.dependant_begin;
  std::fill(begin.begin(), begin.end(), 0);
  int streams = 1;
  for (const Node& node : rg.nodes) {
    streams = std::max(streams, stream_of(node) + 1);
    for (uint32_t i = 0; i < uint32_t{node.data_deps} + node.ctrl_deps; ++i)
      ++begin[rg.deps[node.dep_begin + i] + 1];
  }
  for (uint32_t v = 0; v < count; ++v) begin[v + 1] += begin[v];
  s.dependants = arena_.take<uint32_t>(begin[count]);
  s.nodes = arena_.take<NodeState>(count);
  for (uint32_t v = 0; v < count; ++v) {
    const Node& node = rg.nodes[v];
    NodeState& ns = *new (&s.nodes[v]) NodeState{};
    ns.waiting = NodeWaiting{uint32_t{node.data_deps} + node.ctrl_deps, stream_of(node), node.kind,
                             node.op, node.comm};
    if (node.kind == NodeKind::kCompute) {
      ns.end_s =
          node.duration_s >= 0 ? node.duration_s : o_.compute.time(node.flops, node.mem_bytes);
    } else {
      ns.bytes = node.bytes;
      ns.target = CommTarget{node.group_or_peer, node.tag};
    }
    for (uint32_t i = 0; i < ns.waiting.count; ++i)
      s.dependants[begin[rg.deps[node.dep_begin + i]]++] = v;
  }
  std::copy_backward(begin.begin(), begin.end() - 1, begin.end());
  begin[0] = 0;
  s.streams.resize(streams);
  if (timeline) s.ready_s.assign(count, 0.0);
  for (uint32_t v = 0; v < count; ++v)
    if (s.nodes[v].waiting.count == 0) {
      if (holds_stream(s.nodes[v].waiting.kind))
        make_ready(r, v, s.nodes[v].waiting.stream, 0, kNoNode);
      else
        post_recv(r, v, 0, kNoNode);
    }
  for (int st = 0; st < streams; ++st) try_start(r, st, 0);
}

void Engine::make_ready(int rank, uint32_t v, int stream, double t, uint32_t by) {
  RankState& s = ranks_[rank];
  if (!s.ready_s.empty()) s.ready_s[v] = t;
  s.streams[stream].queue.push_back(ReadyNode{v, by, t});
}

void Engine::try_start(int rank, int stream, double t) {
  StreamState& st = ranks_[rank].streams[stream];
  if (st.busy || st.head == st.queue.size()) return;
  if (astra_) {  // ASTRA-sim issues the ready node of the smallest id first
    const std::vector<Node>& nodes = g_.ranks[rank].nodes;
    size_t first = st.head;
    for (size_t i = st.head + 1; i < st.queue.size(); ++i)
      if (nodes[st.queue[i].node].id < nodes[st.queue[first].node].id) first = i;
    std::swap(st.queue[st.head], st.queue[first]);
  }
  const ReadyNode ready = st.queue[st.head++];
  if (st.head == st.queue.size()) st.queue.clear(), st.head = 0;
  start(rank, stream, ready, t);
}

// A node released on a free stream with nobody queued starts at once: what make_ready and
// try_start would do, without the round trip through the queue. Under CommIssue::kAstra it only
// queues: process() starts the streams once every dependant of the ended node is released, so the
// smallest id among them goes first (ASTRA-sim resolves a finished node's children, then issues).
void Engine::release(int rank, uint32_t v, int stream, double t, uint32_t by) {
  RankState& s = ranks_[rank];
  if (!holds_stream(s.nodes[v].waiting.kind)) return post_recv(rank, v, t, by);
  StreamState& st = s.streams[stream];
  if (astra_) return make_ready(rank, v, stream, t, by);
  if (st.busy || st.head != st.queue.size()) {
    make_ready(rank, v, stream, t, by);
    try_start(rank, stream, t);
    return;
  }
  if (!s.ready_s.empty()) s.ready_s[v] = t;
  start(rank, stream, ReadyNode{v, by, t}, t);
}

void Engine::start(int rank, int stream, const ReadyNode& ready, double t) {
  RankState& s = ranks_[rank];
  StreamState& st = s.streams[stream];
  const uint32_t v = ready.node;
  st.busy = true;
  st.current = v;
  st.arrive_s = t;
  NodeState& ns = s.nodes[v];
  const CommTarget target = ns.target;  // before pred takes its storage
  // The start waited for the stream (its previous node) or for the dependency that released it.
  Pred pred;
  if (t > ready.ready_s && st.last != kNoNode)
    pred = Pred{rank, st.last};
  else if (ready.released_by != kNoNode)
    pred = Pred{rank, ready.released_by};
  ns.pred = pred;
  switch (ns.waiting.kind) {
    case NodeKind::kCompute:  // end_s holds its duration until it ends
      end_at(rank, v, t, t + ns.end_s, pred);
      break;
    case NodeKind::kCollective:
      arrive_collective(rank, v, t, ns.waiting, target.group_or_peer, ns.bytes);
      break;
    case NodeKind::kSend:
    case NodeKind::kRecv: arrive_p2p(rank, v, ns.waiting.kind, target, t); break;
  }
}

void Engine::end_at(int rank, uint32_t v, double start, double end, Pred pred) {
  if (std::isnan(end)) [[unlikely]]
    nan_end(rank, v);
  RankState& s = ranks_[rank];
  // Read before start_s takes their storage.
  const int stream = s.nodes[v].waiting.stream;
  const bool held = holds_stream(s.nodes[v].waiting.kind);
  s.nodes[v].start_s = start;
  s.nodes[v].end_s = end;
  s.nodes[v].pred = pred;
  if (!held) {  // a posted receive: no stream to account or free
    events_.push(end, Event{rank, v, kNoStream});
    return;
  }
  // v holds its stream until this event, so the stream's arrival is v's.
  StreamBusy& busy = s.streams[stream].busy_total;
  busy.busy_s += end - start;
  busy.wait_s += start - s.streams[stream].arrive_s;
  events_.push(end, Event{rank, v, static_cast<uint8_t>(stream)});
}

// A receive that holds no stream is posted as soon as its dependencies are done.
void Engine::post_recv(int rank, uint32_t v, double t, uint32_t by) {
  RankState& s = ranks_[rank];
  if (!s.ready_s.empty()) s.ready_s[v] = t;
  NodeState& ns = s.nodes[v];
  const CommTarget target = ns.target;  // before pred takes its storage
  ns.pred = by != kNoNode ? Pred{rank, by} : Pred{};
  arrive_p2p(rank, v, NodeKind::kRecv, target, t);
}

// A collective's op, kind, group and bytes come from its record (w, group, bytes), not its Node.
void Engine::arrive_collective(int rank, uint32_t v, double t, NodeWaiting w, int group,
                               uint64_t bytes) {
  auto& calls = ranks_[rank].group_calls;
  auto it = std::find_if(calls.begin(), calls.end(), [&](auto& c) { return c.first == group; });
  if (it == calls.end()) it = calls.insert(calls.end(), {group, 0});
  const uint32_t call = it->second++;
  CollectiveInstance& inst = instances_[group].at(call);
  if (inst.arrived == 0) {
    inst = CollectiveInstance{};
    inst.group = group;
    inst.op = w.op;
    inst.kind = w.comm;
    inst.bytes = bytes;
    inst.sequence = call;
    if (!member_lists_.empty()) {  // a finished instance's list, cleared, keeps its capacity
      inst.members = std::move(member_lists_.back());
      member_lists_.pop_back();
    }
    inst.members.reserve(g_.groups[group].size());
  } else if (inst.op != w.op || inst.bytes != bytes) {
    const Node& node = g_.ranks[rank].nodes[v];
    const auto [r0, v0] = inst.members.front();
    throw bad_input("collective " + std::to_string(call) + " on group " + std::to_string(group) +
                    " does not match: rank " + std::to_string(r0) + " node " +
                    std::to_string(g_.ranks[r0].nodes[v0].id) + " is " + comm_op_name(inst.op) +
                    " of " + std::to_string(inst.bytes) + " B, rank " + std::to_string(rank) +
                    " node " + std::to_string(node.id) + " is " + comm_op_name(node.op) + " of " +
                    std::to_string(node.bytes) + " B");
  }
  inst.members.emplace_back(rank, v);
  if (t > inst.last_arrival) inst.last_arrival = t, inst.last = Pred{rank, v};
  if (++inst.arrived == g_.groups[group].size()) pending_coll_.emplace_back(group, call);
}

uint64_t p2p_key(int src, int dst, int tag) {
  return hash_combine(hash_combine(static_cast<uint64_t>(src), static_cast<uint64_t>(dst)),
                      static_cast<uint64_t>(static_cast<uint32_t>(tag)));
}

void Engine::arrive_p2p(int rank, uint32_t v, NodeKind kind, CommTarget target, double t) {
  const bool send = kind == NodeKind::kSend;
  const bool eager = o_.p2p == P2pMode::kEager;
  const int peer = target.group_or_peer;
  const int src = send ? rank : peer, dst = send ? peer : rank;
  const uint64_t key = p2p_key(src, dst, target.tag);
  P2pQueues& q = p2p_[key];
  P2pPost post{rank, v, kNoNode, t};
  if (send && eager) {  // the data leaves now, matched or not
    post.message = static_cast<uint32_t>(messages_.size());
    EagerMessage message;
    message.send = post;
    messages_.push_back(message);
    pending_sends_.push_back(post.message);
  }
  (send ? q.sends : q.recvs).push_back(post);
  if (q.send_head < q.sends.size() && q.recv_head < q.recvs.size()) {
    const P2pPost matched_send = q.sends[q.send_head++], matched_recv = q.recvs[q.recv_head++];
    if (q.send_head == q.sends.size()) q.sends.clear(), q.send_head = 0;
    if (q.recv_head == q.recvs.size()) q.recvs.clear(), q.recv_head = 0;
    // A drained channel is dropped: tags are often per message, so the map would otherwise hold
    // every message ever sent (cold and large at 16,384 ranks).
    if (q.sends.empty() && q.recvs.empty()) p2p_.erase(key);
    if (!eager) {
      pending_p2p_.emplace_back(matched_send, matched_recv);
      return;
    }
    EagerMessage& message = messages_[matched_send.message];
    message.recv = matched_recv;
    message.received = true;
    if (message.arrival_s >= 0) finish_recv(message);  // else when its flow is timed
  }
}

// An eager recv completes at max(its post, the data's arrival). Waiting for the data, it starts
// and ends at the arrival and the send's flow decided it (so the critical path runs through the
// send and counts the transfer once); with the data already there it takes no time.
void Engine::finish_recv(const EagerMessage& message) {
  const P2pPost recv = message.recv;
  const double posted = arrival_of(recv);
  if (message.arrival_s > posted)
    end_at(recv.rank, recv.node, message.arrival_s, message.arrival_s,
           Pred{message.send.rank, message.send.node});
  else
    end_at(recv.rank, recv.node, posted, posted, ranks_[recv.rank].nodes[recv.node].pred);
}

void Engine::flush_pending(double t) {
  flush_collectives(t);
  flush_p2p(t);
}

void Engine::flush_collectives(double t) {
  if (pending_coll_.empty()) return;
  const auto& tech = o_.techniques;
  // Classes of identical shape and kind, each timed as one plan over all its groups.
  std::map<std::pair<CollectiveShape, CommKind>, std::vector<std::pair<int, uint32_t>>> classes;
  for (auto [group, call] : pending_coll_) {
    const CollectiveInstance& inst = instances_[group].at(call);
    const int k = static_cast<int>(inst.kind);
    CollectiveShape shape;
    shape.op = inst.op;
    shape.group_size = static_cast<int>(g_.groups[group].size());
    const double ratio = in_one_server_[group] ? 1.0 : tech.ratio[k];
    shape.elements =
        static_cast<uint64_t>(std::ceil(static_cast<double>(inst.bytes) * ratio / sizeof(float)));
    const bool reduces = inst.op == CommOp::kAllReduce || inst.op == CommOp::kReduceScatter;
    if (inst.kind == CommKind::kDp && reduces && tech.dp_skip.skip > 0) {
      const auto& [r0, v0] = inst.members.front();
      shape.skip =
          decide_skip(tech.dp_skip, shape.group_size, static_cast<int>(call),
                      g_.names[g_.ranks[r0].nodes[v0].name], shape.elements / 2, o_.iteration);
    }
    classes[{shape, inst.kind}].emplace_back(group, call);
  }
  pending_coll_.clear();
  for (auto& [key, list] : classes) {
    std::sort(list.begin(), list.end());
    std::vector<int> groups;
    for (auto [group, call] : list) groups.push_back(group);
    const CommTiming timing = timer_.time_collectives(key.first, groups, g_.groups);
    const int k = static_cast<int>(key.second);
    r_.bytes_on_wire += timing.bytes_on_wire;
    for (auto [group, call] : list) {
      CollectiveInstance& inst = instances_[group].at(call);
      const double codec =
          in_one_server_[group] ? 0.0 : tech.codec_s_per_byte[k] * static_cast<double>(inst.bytes);
      const double d = timing.time_s + codec;
      const Pred pred = ranks_[inst.last.rank].nodes[inst.last.node].pred;
      for (auto [rank, v] : inst.members) end_at(rank, v, t, t + d, pred);
      r_.comm_total_s[k] += d;
      r_.codec_total_s[k] += codec;
      ++r_.collectives;
      inst.members.clear();
      member_lists_.push_back(std::move(inst.members));
      inst.members = {};
      inst.done = true;
      instances_[group].drop_done();  // inst may go here
    }
  }
}

Flow Engine::flow_of(const P2pPost& send, int dst) const {
  const Node& node = g_.ranks[send.rank].nodes[send.node];
  const double ratio = within_one_server(topology_, send.rank, dst)
                           ? 1.0
                           : o_.techniques.ratio[static_cast<int>(node.comm)];
  const auto wire = static_cast<uint64_t>(std::ceil(static_cast<double>(node.bytes) * ratio));
  return Flow{send.rank, dst, wire, p2p_key(send.rank, dst, node.tag)};
}

// Rendezvous pairs and eager sends that start now are timed together, so they share links.
void Engine::flush_p2p(double t) {
  if (pending_p2p_.empty() && pending_sends_.empty()) return;
  std::vector<Flow> flows;
  flows.reserve(pending_p2p_.size() + pending_sends_.size());
  for (const auto& [send, recv] : pending_p2p_) flows.push_back(flow_of(send, recv.rank));
  for (uint32_t m : pending_sends_) {
    const P2pPost& send = messages_[m].send;
    flows.push_back(flow_of(send, g_.ranks[send.rank].nodes[send.node].group_or_peer));
  }
  for (const Flow& f : flows) r_.bytes_on_wire += f.bytes;
  const std::vector<double> finish = timer_.time_flows(flows);
  // A message's time: its flow plus the codec's encode + decode of the payload.
  auto message_time = [&](const P2pPost& send, size_t i) {
    const Node& node = g_.ranks[send.rank].nodes[send.node];
    const int k = static_cast<int>(node.comm);
    const bool local = within_one_server(topology_, flows[i].src, flows[i].dst);
    const double codec =
        local ? 0.0 : o_.techniques.codec_s_per_byte[k] * static_cast<double>(node.bytes);
    r_.codec_total_s[k] += codec;
    r_.comm_total_s[k] += finish[i] + codec;
    ++r_.p2p;
    return finish[i] + codec;
  };
  size_t i = 0;
  for (auto [send, recv] : pending_p2p_) {
    const double d = message_time(send, i++);
    // The later of the two posts decided the start (ties: the send).
    const bool recv_later = arrival_of(recv) > arrival_of(send);
    const P2pPost last = recv_later ? recv : send;
    const Pred pred = ranks_[last.rank].nodes[last.node].pred;
    end_at(send.rank, send.node, t, t + d, pred);
    end_at(recv.rank, recv.node, t, t + d, pred);
  }
  for (uint32_t m : pending_sends_) {
    EagerMessage& message = messages_[m];
    const P2pPost send = message.send;
    const double d = message_time(send, i++);
    end_at(send.rank, send.node, t, t + d, ranks_[send.rank].nodes[send.node].pred);
    message.arrival_s = t + d;
    if (message.received) finish_recv(message);
  }
  pending_p2p_.clear();
  pending_sends_.clear();
}

// Every event ending at this instant, taken at once: events pushed while they are processed end
// at this instant or later, after them in push order, so they come in a later batch.
// Knowing the events ahead lets prefetch_ahead overlap their records' cache misses.
void Engine::process_batch() {
  const double t = events_.take(batch_);
  for (size_t i = 0; i < batch_.size(); ++i) {
    prefetch_ahead(ranks_, batch_, i);
    process(batch_[i], t);
  }
}

void Engine::process(const Event& e, double t) {
  RankState& s = ranks_[e.rank];
  if (e.stream != kNoStream) {
    StreamState& st = s.streams[e.stream];
    st.busy = false;
    st.last = e.node;
    st.free_at = t;
  }
  ++done_;
  for (uint32_t i = s.dependant_begin[e.node]; i < s.dependant_begin[e.node + 1]; ++i) {
    const uint32_t w = s.dependants[i];
    NodeWaiting& waiting = s.nodes[w].waiting;
    if (--waiting.count == 0) {
      release(e.rank, w, waiting.stream, t, e.node);
    }
  }
  if (astra_) {  // the compute stream and the communication slot, each its smallest ready id
    for (size_t st = 0; st < s.streams.size(); ++st) try_start(e.rank, static_cast<int>(st), t);
  } else if (e.stream != kNoStream) {
    try_start(e.rank, e.stream, t);
  }
}

ScheduleResult Engine::run() {
  const auto wall0 = std::chrono::steady_clock::now();
  init();
  flush_pending(0);
  while (!events_.empty()) {
    const double t = events_.top_time();
    // Everything that ends at this instant first, so communication starting now is timed together.
    while (!events_.empty() && events_.top_time() == t) process_batch();
    flush_pending(t);
  }
  if (done_ != total_) deadlock();
  for (const EagerMessage& m : messages_) r_.unreceived_sends += !m.received;
  r_.stream_busy.resize(ranks_.size());
  for (size_t r = 0; r < ranks_.size(); ++r)
    for (const StreamState& st : ranks_[r].streams) r_.stream_busy[r].push_back(st.busy_total);
  summarize_schedule(g_, ranks_, o_, total_, r_);
  r_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return std::move(r_);
}

void Engine::nan_end(int rank, uint32_t v) const {
  throw bad_input("rank " + std::to_string(rank) + " node " +
                  std::to_string(g_.ranks[rank].nodes[v].id) +
                  " would end at NaN seconds (a NaN duration or network time)");
}

std::string Engine::waiting_node(int rank, uint32_t v) const {
  const Node& node = g_.ranks[rank].nodes[v];
  return "rank " + std::to_string(rank) + " node " + std::to_string(node.id) + " (" +
         (node.kind == NodeKind::kCollective
              ? std::string(comm_op_name(node.op)) + " on group " +
                    std::to_string(node.group_or_peer) + ")"
              : std::string(node_kind_name(node.kind)) +
                    (node.kind == NodeKind::kSend ? " to" : " from") + " rank " +
                    std::to_string(node.group_or_peer) + ", tag " + std::to_string(node.tag) +
                    ")") +
         " waits for its peers";
}

void Engine::deadlock() const {
  std::string what;
  int listed = 0;
  bool a_send_waits = false;
  for (int r = 0; r < g_.rank_count() && listed < 3; ++r) {
    const RankState& s = ranks_[r];
    for (const StreamState& st : s.streams) {
      if (!st.busy || listed >= 3) continue;
      // The node holding the stream is the one that started but never ended.
      const uint32_t v = st.current;
      const Node& node = g_.ranks[r].nodes[v];
      if (node.kind == NodeKind::kCompute) continue;
      what += (what.empty() ? "" : "; ") + waiting_node(r, v);
      a_send_waits = a_send_waits || node.kind == NodeKind::kSend;
      ++listed;
    }
  }
  if (!recv_holds_stream_) {  // posted receives wait in the matching queues, on no stream
    std::vector<std::pair<int, uint32_t>> posted;
    for (const auto& [key, q] : p2p_)
      for (size_t i = q.recv_head; i < q.recvs.size(); ++i)
        posted.emplace_back(q.recvs[i].rank, q.recvs[i].node);
    std::sort(posted.begin(), posted.end());
    for (size_t i = 0; i < posted.size() && listed < 3; ++i, ++listed)
      what += (what.empty() ? "" : "; ") + waiting_node(posted[i].first, posted[i].second);
  }
  if (what.empty()) what = "nodes wait for dependencies that never finish";
  if (astra_)
    what +=
        " (comm issue astra: a rank runs one collective or send at a time, so one waiting for its "
        "peers holds back the rank's others)";
  if (o_.p2p == P2pMode::kRendezvous && a_send_waits)
    what +=
        " (p2p rendezvous: a send waits for its matching recv; eager sends, the default, "
        "complete without it)";
  throw bad_input("the workload deadlocks after " + std::to_string(done_) + " of " +
                  std::to_string(total_) + " nodes: " + what);
}

}  // namespace

P2pMode parse_p2p_mode(const std::string& name) {
  if (name == "eager") return P2pMode::kEager;
  if (name == "rendezvous") return P2pMode::kRendezvous;
  throw bad_input("unknown point-to-point mode '" + name + "' (expected eager or rendezvous)");
}

CommIssue parse_comm_issue(const std::string& name) {
  if (name == "overlap") return CommIssue::kOverlap;
  if (name == "astra") return CommIssue::kAstra;
  throw bad_input("unknown communication issue mode '" + name + "' (expected overlap or astra)");
}

const char* comm_issue_name(CommIssue issue) {
  return issue == CommIssue::kOverlap ? "overlap" : "astra";
}

const char* p2p_mode_name(P2pMode mode) {
  return mode == P2pMode::kEager ? "eager" : "rendezvous";
}

ScheduleResult schedule(const Graph& graph, NetworkBackend& backend,
                        const SchedulerOptions& options) {
  if (graph.rank_count() > backend.topology().ranks())
    throw bad_input("the workload has " + std::to_string(graph.rank_count()) +
                    " ranks but the cluster only " + std::to_string(backend.topology().ranks()) +
                    " GPUs");
  Engine engine(graph, backend, options);
  return engine.run();
}

}  // namespace commlab::workload
