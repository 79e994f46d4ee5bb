// Fuzzes workload graphs, not bytes: the input is a program that builds a Graph (ranks,
// communicator groups, compute / collective / send / recv nodes on streams, data and control
// dependencies, some of them wrong on purpose). A graph check_graph refuses is done with; one it
// accepts must be written as a Chakra trace, read back to the same trace, and replayed by the
// scheduler on a flat network twice with the same result: a replay either finishes with a finite
// iteration time or refuses the graph with std::invalid_argument (unmatched collectives, a
// deadlock), never a crash, a hang or another exception.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "network/analytical.h"
#include "topology/topology.h"
#include "workload/chakra_trace.h"
#include "workload/graph.h"
#include "workload/scheduler.h"

namespace commlab::workload {
namespace {

constexpr int kMaxRanks = 6;
constexpr int kMaxNodes = 192;

// The input, one byte at a time; 0 once it is used up.
class Program {
 public:
  Program(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t next() { return at_ < size_ ? data_[at_++] : 0; }
  bool more() const { return at_ < size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

// Groups from rank bit masks; an empty mask gives an empty group (which check_graph must refuse
// wherever a collective names it).
std::vector<std::vector<int>> read_groups(Program& p, int ranks) {
  std::vector<std::vector<int>> groups;
  const int count = p.next() % 4;
  for (int g = 0; g < count; ++g) {
    const uint8_t mask = p.next();
    std::vector<int> members;
    for (int r = 0; r < ranks; ++r)
      if (mask >> r & 1) members.push_back(r);
    if (mask & 0x80 && members.size() > 1) std::swap(members.front(), members.back());
    groups.push_back(members);
  }
  return groups;
}

Node read_node(Program& p, uint8_t head, int ranks, int groups, uint64_t position) {
  Node n;
  n.id = head & 0x80 ? p.next() : position;  // sometimes a repeated id
  n.kind = static_cast<NodeKind>(head >> 3 & 3);
  const uint8_t size = p.next();
  n.bytes = 1ull << (size % 24);
  n.stream = n.kind == NodeKind::kCompute ? kComputeStream : 1 + p.next() % 2;
  switch (n.kind) {
    case NodeKind::kCompute:
      if (size < 128) {
        n.duration_s = size * 1e-6;
      } else {
        n.flops = size * 1e9;
        n.mem_bytes = size * 1e6;
      }
      break;
    case NodeKind::kCollective:
      n.op = static_cast<CommOp>(p.next() % 5);
      n.comm = static_cast<CommKind>(p.next() % kCommKinds);
      n.group_or_peer = p.next() % (groups + 1);  // groups: out of range
      break;
    case NodeKind::kSend:
    case NodeKind::kRecv:
      n.comm = CommKind::kPp;
      n.group_or_peer = p.next() % (ranks + 1);  // ranks: out of range
      n.tag = p.next() % 4;
      break;
  }
  return n;
}

Graph read_graph(Program& p) {
  Graph g;
  g.name = "fz";
  const int ranks = 1 + p.next() % kMaxRanks;
  g.ranks.resize(static_cast<size_t>(ranks));
  g.groups = read_groups(p, ranks);
  const int groups = static_cast<int>(g.groups.size());
  for (int total = 0; total < kMaxNodes && p.more(); ++total) {
    const uint8_t head = p.next();
    RankGraph& rank = g.ranks[static_cast<size_t>(head % ranks)];
    const uint32_t position = static_cast<uint32_t>(rank.nodes.size());
    Node node = read_node(p, head, ranks, groups, position);
    std::vector<uint32_t> data, ctrl;
    const int deps = p.next() % 3;
    for (int d = 0; d < deps && position > 0; ++d) {
      const uint8_t b = p.next();
      (b & 1 ? ctrl : data).push_back((b >> 1) % position);  // earlier nodes only (add checks)
    }
    rank.add(node, data, ctrl);
  }
  return g;
}

bool same_result(const ScheduleResult& a, const ScheduleResult& b) {
  return a.iteration_s == b.iteration_s && a.nodes == b.nodes && a.collectives == b.collectives &&
         a.p2p == b.p2p && a.bytes_on_wire == b.bytes_on_wire;
}

ScheduleResult replay(const Graph& g, P2pMode p2p) {
  AnalyticalBackend net(make_flat(g.rank_count(), 25e9, 1e-6));
  SchedulerOptions options;
  options.p2p = p2p;
  return schedule(g, net, options);
}

}  // namespace
}  // namespace commlab::workload

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commlab::workload;
  Program program(data, size);
  const uint8_t mode = program.next();
  const Graph g = read_graph(program);
  try {
    check_graph(g);
  } catch (const std::invalid_argument&) {
    return 0;  // a wrong graph, refused: what a generator or the reader must never pass on
  }
  std::string groups_json, again_json;
  std::vector<std::string> files;
  try {
    files = encode_chakra_trace(g, &groups_json);
  } catch (const std::invalid_argument& e) {
    // The writer's own refusals beyond check_graph (chakra_trace.h): repeated node ids.
    if (!std::strstr(e.what(), "duplicate node id")) __builtin_trap();
    return 0;
  }
  const std::vector<std::string_view> views(files.begin(), files.end());
  Graph back;
  try {
    back = parse_chakra_trace(views, groups_json, "fz");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "the reader refuses what the writer wrote: %s\n", e.what());
    __builtin_trap();
  }
  if (back.node_count() != g.node_count() || back.groups != g.groups) __builtin_trap();
  if (encode_chakra_trace(back, &again_json) != files || again_json != groups_json)
    __builtin_trap();
  const P2pMode p2p = mode & 1 ? P2pMode::kRendezvous : P2pMode::kEager;
  try {
    const ScheduleResult first = replay(back, p2p);
    if (!std::isfinite(first.iteration_s) || first.iteration_s < 0) __builtin_trap();
    if (!same_result(first, replay(back, p2p))) __builtin_trap();  // deterministic
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).empty()) __builtin_trap();  // a refusal says why
  }
  return 0;
}
