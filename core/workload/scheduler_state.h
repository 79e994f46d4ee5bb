#pragma once
// The scheduler's per-run state (scheduler.cpp): per-rank node arrays, stream queues, collective
// rendezvous and send/recv matching. Internal to core/workload.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <deque>
#include <limits>
#include <queue>
#include <span>
#include <unordered_map>
#include <vector>

#include "workload/graph.h"
#include "workload/scheduler.h"

namespace commlab::workload::detail {

inline constexpr uint32_t kNoNode = std::numeric_limits<uint32_t>::max();
// The stream of an event whose node held none (a receive of a graph whose receives hold no
// stream: Graph::receives_hold_stream).
inline constexpr uint8_t kNoStream = std::numeric_limits<uint8_t>::max();

// Which node's end decided another node's start (the critical path walks these).
struct Pred {
  int32_t rank = -1;
  uint32_t node = kNoNode;
};

// A node whose dependencies are done, waiting for its stream.
struct ReadyNode {
  uint32_t node = kNoNode;
  uint32_t released_by = kNoNode;  // the dependency whose end made it ready
  double ready_s = 0;
};

// A stream runs one node at a time: what is only known while a node waits for or holds its
// stream lives here, not in every node's record (16,384 ranks replay 17 M nodes).
struct StreamState {
  std::vector<ReadyNode> queue;  // ready nodes, FIFO from head
  size_t head = 0;
  bool busy = false;
  uint32_t current = kNoNode;  // the node holding the stream while busy
  double arrive_s = 0;         // when it got the stream (collectives: reached the rendezvous)
  uint32_t last = kNoNode;     // the node that last ended on this stream
  double free_at = 0;
  // Summed as each node ends, here rather than in the result, since this record is hot.
  StreamBusy busy_total;
};

// One node's run in one record (24 B), since its fields are touched together (a 1,024-rank
// replay touches every rank at every instant). The waiting state and start_s share storage: a
// node's unfinished dependencies are counted down to 0 before it can start, and never read
// again; its start is written when it ends (end_at), after that. The waiting state keeps the
// node's stream and kind (Node::stream, Node::kind) beside the count, a communication node's op
// and comm kind too; until a compute node ends its end_s holds its duration, until a
// communication node ends its bytes, and until it starts its pred its peer or group and tag. So
// releasing, starting and ending a node read no cold Node (a 16,384-rank replay touches its
// records in time order across every rank: each is a cache miss).
struct NodeWaiting {
  uint32_t count;  // unfinished dependencies, until the node is ready
  uint8_t stream;
  NodeKind kind;
  CommOp op;      // collectives
  CommKind comm;  // communication nodes
};
struct CommTarget {
  int32_t group_or_peer;  // Node::group_or_peer
  int32_t tag;            // Node::tag
};
struct NodeState {
  union {
    double start_s = 0;
    NodeWaiting waiting;
  };
  union {
    double end_s = 0;
    uint64_t bytes;  // a communication node's (Node::bytes) until it ends
  };
  union {
    Pred pred{};
    CommTarget target;  // a communication node's until it starts
  };
};
static_assert(sizeof(NodeState) == 24, "NodeState is 24 bytes: 17 M of them at 16,384 ranks");

// The per-node arrays live in the engine's ReplayArena (replay_arena.h).
struct RankState {
  std::span<NodeState> nodes;
  std::vector<double> ready_s;  // per node, only for ranks whose timeline is recorded
  std::span<uint32_t> dependant_begin, dependants;  // CSR: node -> nodes that depend on it
  std::vector<StreamState> streams;
  std::vector<std::pair<int, uint32_t>> group_calls;  // (group, calls issued so far)
};

struct CollectiveInstance {
  int group = 0;
  CommOp op = CommOp::kAllReduce;
  CommKind kind = CommKind::kOther;
  uint64_t bytes = 0;
  uint32_t sequence = 0;  // call number within the group
  uint32_t arrived = 0;
  double last_arrival = -1;
  Pred last;                                      // the member that arrived last
  std::vector<std::pair<int, uint32_t>> members;  // (rank, node) in arrival order
  bool done = false;                              // timed and its members ended
};

// A group's collectives from the oldest unfinished call on: calls finish roughly in order, so
// the finished ones at the front are dropped (a 16,384-rank iteration has ~10^6 of them).
struct GroupCalls {
  std::deque<CollectiveInstance> open;  // calls base, base + 1, ...
  uint32_t base = 0;
  CollectiveInstance& at(uint32_t call) {
    while (base + open.size() <= call) open.emplace_back();
    return open[call - base];
  }
  void drop_done() {
    while (!open.empty() && open.front().done) open.pop_front(), ++base;
  }
};

struct P2pPost {
  int rank = 0;
  uint32_t node = 0;
  uint32_t message = kNoNode;  // eager sends: index into the engine's EagerMessage list
  double posted_s = 0;         // when it was posted (got its stream, or its dependencies done)
};

// An eager send (SchedulerOptions::p2p): its data flow starts when the send is posted, and the
// matching recv completes at max(its post, the arrival).
struct EagerMessage {
  P2pPost send;
  P2pPost recv;
  double arrival_s = -1;  // set when the flow is timed
  bool received = false;  // a recv has matched it
};

struct P2pQueues {
  std::vector<P2pPost> sends, recvs;
  size_t send_head = 0, recv_head = 0;
};

struct Event {
  int32_t rank = 0;
  uint32_t node = 0;
  uint8_t stream = 0;  // the node's (Node::stream), so processing the event needs no Node
};

// Node ends in (time, push order), handed out one instant at a time. Events are kept in one
// bucket per distinct time, in push order, and a heap orders the distinct times: a replay has
// far fewer distinct times than pending events (every member of a collective ends at once, and
// ranks run the same nodes), so a push is an append (to the bucket of the last push, or one hash
// lookup) instead of a sift through every pending event. A bucket taken by take() is closed:
// events pushed later at the same time open a new bucket, after it, as a (time, sequence) heap
// would order them.
class EventQueue {
 public:
  bool empty() const { return times_.empty(); }
  double top_time() const { return times_.top(); }
  void push(double time, const Event& e) {
    if (!(last_open_ && time == last_time_)) {
      auto [it, added] = index_.try_emplace(time, 0);
      if (added) {
        it->second = slot();
        times_.push(time);
      }
      last_time_ = time, last_slot_ = it->second, last_open_ = true;
    }
    buckets_[last_slot_].push_back(e);
  }
  // Moves the earliest time's events into out (replacing its contents); returns that time.
  double take(std::vector<Event>& out) {
    const double t = times_.top();
    times_.pop();
    const auto it = index_.find(t);
    const uint32_t slot = it->second;
    index_.erase(it);
    if (last_open_ && last_slot_ == slot) last_open_ = false;
    out.clear();
    out.swap(buckets_[slot]);
    free_.push_back(slot);
    return t;
  }

 private:
  uint32_t slot() {
    if (free_.empty()) {
      buckets_.emplace_back();
      return static_cast<uint32_t>(buckets_.size() - 1);
    }
    const uint32_t s = free_.back();
    free_.pop_back();
    return s;
  }

  std::priority_queue<double, std::vector<double>, std::greater<double>> times_;
  // std::hash<double> hashes the bytes out of line; a time's bits, mixed, are enough: times are
  // never -0.0 (they start at +0.0 and add durations >= 0) and never NaN (end_at refuses it),
  // so equal times have equal bits.
  struct TimeHash {
    size_t operator()(double t) const {
      return static_cast<size_t>(std::bit_cast<uint64_t>(t) * 0x9E3779B97F4A7C15ull >> 17);
    }
  };
  std::unordered_map<double, uint32_t, TimeHash> index_;  // open bucket per time
  std::vector<std::vector<Event>> buckets_;
  std::vector<uint32_t> free_;
  double last_time_ = 0;
  uint32_t last_slot_ = 0;
  bool last_open_ = false;
};

// A 16,384-rank replay touches 1.9 GB of records in time order, a cache miss per record and
// each record's address in the one before (event -> dependants -> dependant's state and Node).
// While the batch's event i is processed, later events' records are asked for, one level per
// distance, so each level's address is in cache when its prefetch is issued.
inline void prefetch_ahead(const std::vector<RankState>& ranks, const std::vector<Event>& batch,
                           size_t i) {
  constexpr size_t kStep = 4;  // events between a record and the one its address is in
  const auto ahead = [&](size_t levels) -> const Event* {
    return i + levels * kStep < batch.size() ? &batch[i + levels * kStep] : nullptr;
  };
  if (const Event* e = ahead(4)) __builtin_prefetch(&ranks[e->rank]);
  if (const Event* e = ahead(3)) {
    const RankState& s = ranks[e->rank];
    __builtin_prefetch(&s.dependant_begin[e->node]);
    if (e->stream != kNoStream) __builtin_prefetch(&s.streams[e->stream]);
  }
  if (const Event* e = ahead(2)) {
    const RankState& s = ranks[e->rank];
    __builtin_prefetch(&s.dependants[s.dependant_begin[e->node]]);
  }
  const auto dependants = [&](const Event& e) {
    const RankState& s = ranks[e.rank];
    const uint32_t begin = s.dependant_begin[e.node];
    return s.dependants.subspan(begin,
                                std::min<uint32_t>(s.dependant_begin[e.node + 1] - begin, 4));
  };
  if (const Event* e = ahead(1))
    for (uint32_t w : dependants(*e)) __builtin_prefetch(&ranks[e->rank].nodes[w]);
}

// Fills out's iteration time, critical path (when options want it) and timelines from a finished
// replay of `total` nodes (scheduler_summary.cpp); stream busy and wait are summed as nodes end.
// The ranks whose timeline options ask for (-1: all), in range, in the order asked.
std::vector<int> timeline_ranks(const SchedulerOptions& options, int ranks);

void summarize_schedule(const Graph& graph, const std::vector<RankState>& ranks,
                        const SchedulerOptions& options, uint64_t total, ScheduleResult& out);

}  // namespace commlab::workload::detail
