#pragma once
// A workload as a dependency graph per rank:
// compute nodes, collective nodes over a communicator group, and point-to-point send/recv nodes,
// with data and control dependencies inside a rank. The scheduler (scheduler.h) replays it on a
// network backend; the Chakra reader and writer (chakra_trace.h) are the only code that knows the
// protobuf format. Compact on purpose: a 16,384-rank GPT-3 iteration has ~10^7 nodes.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace commlab::workload {

enum class NodeKind : uint8_t { kCompute, kCollective, kSend, kRecv };
const char* node_kind_name(NodeKind kind);

// Collective operations a graph can hold (Chakra's CollectiveCommType subset that CommLab times).
enum class CommOp : uint8_t { kAllReduce, kReduceScatter, kAllGather, kAllToAll, kBroadcast };
const char* comm_op_name(CommOp op);

// What a communication node is for: exposed time is reported per kind, and the techniques apply
// by kind (SkipReduce only to DP reduce-scatters, a codec ratio per kind).
enum class CommKind : uint8_t { kTp, kDp, kPp, kEp, kOther };
inline constexpr int kCommKinds = 5;
const char* comm_kind_name(CommKind kind);  // "TP", "DP", "PP", "EP", "other"

// Streams of a rank: 0 is the compute stream; 1.. are communication streams. A node starts when
// all its dependencies are done and its stream is free; a stream runs one node at a time.
inline constexpr uint8_t kComputeStream = 0;
inline constexpr uint8_t kMaxStreams = 8;

// 48 bytes: a 16,384-rank GPT-3 iteration holds 17 M of them. The fields a kind does not use
// share storage: flops and mem_bytes (compute) with bytes, group_or_peer and tag
// (communication). Read and write only the fields of the node's kind: a compute node's bytes
// are its flops' bits. duration_s is every kind's (a trace's communication node may carry one).
struct Node {
  Node() : flops(0), mem_bytes(0) {}

  uint64_t id = 0;    // unique within the rank (the Chakra node id)
  uint32_t name = 0;  // index into Graph::names (0 is "")
  NodeKind kind = NodeKind::kCompute;
  CommOp op = CommOp::kAllReduce;    // collective nodes
  CommKind comm = CommKind::kOther;  // communication nodes
  uint8_t stream = kComputeStream;
  // Compute: duration_s >= 0 is the duration; otherwise the roofline of flops and mem_bytes
  // (train/compute_model.h). Communication: kept from a trace (commlab_duration), not
  // used for timing.
  double duration_s = -1;
  union {
    struct {  // kCompute
      double flops;
      double mem_bytes;
    };
    // Communication: bytes is the whole buffer per rank: the input of an all-reduce,
    // reduce-scatter, all-to-all or broadcast, the gathered output of an all-gather (Chakra's
    // comm_size x group size: workload/chakra/chakra_comm_size.h), the message of a send/recv.
    // group_or_peer: collective: index into Graph::groups; send: destination rank; recv: source
    // rank. tag: send/recv matching (src, dst, tag), in issue order.
    struct {  // kCollective, kSend, kRecv
      uint64_t bytes;
      int32_t group_or_peer;
      int32_t tag;
    };
  };
  // Dependencies: positions (not ids) in the rank's node list, deps[dep_begin, dep_begin +
  // data_deps) are data dependencies, the next ctrl_deps control dependencies.
  uint32_t dep_begin = 0;
  uint16_t data_deps = 0;
  uint16_t ctrl_deps = 0;
};
static_assert(sizeof(Node) == 48, "Node is 48 bytes: 17 M of them at 16,384 ranks");

struct RankGraph {
  std::vector<Node> nodes;
  std::vector<uint32_t> deps;  // CSR storage of every node's dependencies

  // Appends a node whose dependencies are the given positions (each < nodes.size()). Returns
  // its position.
  uint32_t add(Node node, std::initializer_list<uint32_t> data = {},
               std::initializer_list<uint32_t> ctrl = {});
  uint32_t add(Node node, const std::vector<uint32_t>& data, const std::vector<uint32_t>& ctrl);
};

struct Graph {
  std::string name;
  std::vector<RankGraph> ranks;
  // Communicator groups, each a list of global ranks in ring order; a collective node names one.
  std::vector<std::vector<int>> groups;
  std::vector<std::string> names{""};  // interned node names
  // Whether a receive holds its stream while it waits for its message. true (CommLab's graphs and
  // traces): a receive runs on its stream like any node, so the nodes queued behind it wait.
  // false (third-party traces, which carry no streams: ASTRA-sim's issue rule): a receive is
  // posted as soon as its dependencies are done, holds no stream, and ends when its message has
  // arrived; only its dependants wait for it.
  bool receives_hold_stream = true;

  int rank_count() const { return static_cast<int>(ranks.size()); }
  uint64_t node_count() const;
  // The index of `name` in names, appended when new (the first of equal names wins).
  uint32_t intern(std::string_view name);
  const std::string& name_of(const Node& node) const { return names[node.name]; }

  // What a distinct name costs at most beside its text past the string's inline 15 bytes: its
  // std::string in names grown by doubling (2 x 32) and its index slots (at most 4 x 8: the
  // table doubles at half full). A trace with a unique name per node pays this per node.
  static constexpr uint64_t kBytesPerName = 2 * sizeof(std::string) + 4 * sizeof(uint64_t);

 private:
  void index_names(size_t slots);
  size_t slot_of(std::string_view name, uint64_t hash) const;
  // Open addressing over names (no second copy of each string, as a hash map of strings kept):
  // a slot is 0 (empty) or the name's hash's high 32 bits, then its index + 1.
  std::vector<uint64_t> name_slots_;
  size_t indexed_ = 0;  // names the slots cover (names is public: a push_back re-indexes)
};

// Compute nodes that take no time: duration 0, or a roofline node with neither FLOPs nor bytes.
// When every compute node is one (a host-only PyTorch trace converted by chakra has neither
// durations nor op counts), the graph carries no compute timing at all.
struct ComputeCoverage {
  uint64_t compute_nodes = 0;
  uint64_t untimed = 0;
  bool none_timed() const { return compute_nodes > 0 && untimed == compute_nodes; }
};
ComputeCoverage compute_coverage(const Graph& graph);

// Structural checks shared by every producer (generators, the trace reader): dependency
// positions in range, peers and groups valid, every collective's group contains the rank, no
// dependency cycle, sends and receives of a channel the same sizes (p2p_sizes.h). Throws
// std::invalid_argument naming the rank and node id.
void check_graph(const Graph& graph);

}  // namespace commlab::workload
