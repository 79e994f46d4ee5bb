#include "workload/graph.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "io/status.h"
#include "workload/p2p_sizes.h"

namespace commlab::workload {

const char* node_kind_name(NodeKind kind) {
  switch (kind) {
    case NodeKind::kCompute: return "compute";
    case NodeKind::kCollective: return "collective";
    case NodeKind::kSend: return "send";
    case NodeKind::kRecv: return "recv";
  }
  return "?";
}

const char* comm_op_name(CommOp op) {
  switch (op) {
    case CommOp::kAllReduce: return "all-reduce";
    case CommOp::kReduceScatter: return "reduce-scatter";
    case CommOp::kAllGather: return "all-gather";
    case CommOp::kAllToAll: return "all-to-all";
    case CommOp::kBroadcast: return "broadcast";
  }
  return "?";
}

const char* comm_kind_name(CommKind kind) {
  switch (kind) {
    case CommKind::kTp: return "TP";
    case CommKind::kDp: return "DP";
    case CommKind::kPp: return "PP";
    case CommKind::kEp: return "EP";
    case CommKind::kOther: return "other";
  }
  return "?";
}

uint32_t RankGraph::add(Node node, const std::vector<uint32_t>& data,
                        const std::vector<uint32_t>& ctrl) {
  const auto self = static_cast<uint32_t>(nodes.size());
  if (data.size() > UINT16_MAX || ctrl.size() > UINT16_MAX)
    throw bad_input("node " + std::to_string(node.id) + ": more than 65535 deps");
  node.dep_begin = static_cast<uint32_t>(deps.size());
  node.data_deps = static_cast<uint16_t>(data.size());
  node.ctrl_deps = static_cast<uint16_t>(ctrl.size());
  for (const auto* list : {&data, &ctrl})
    for (uint32_t d : *list) {
      if (d >= self)
        throw bad_input("node " + std::to_string(node.id) +
                        ": a dependency must be added before the node");
      deps.push_back(d);
    }
  nodes.push_back(node);
  return self;
}

uint32_t RankGraph::add(Node node, std::initializer_list<uint32_t> data,
                        std::initializer_list<uint32_t> ctrl) {
  return add(node, std::vector<uint32_t>(data), std::vector<uint32_t>(ctrl));
}

uint64_t Graph::node_count() const {
  uint64_t n = 0;
  for (const RankGraph& r : ranks) n += r.nodes.size();
  return n;
}

// The slot holding `name`, or the empty slot where it goes.
size_t Graph::slot_of(std::string_view name, uint64_t hash) const {
  const size_t mask = name_slots_.size() - 1;
  const uint64_t tag = hash >> 32 << 32;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint64_t slot = name_slots_[i];
    if (slot == 0 || ((slot >> 32 << 32) == tag && names[(slot & UINT32_MAX) - 1] == name))
      return i;
  }
}

void Graph::index_names(size_t slots) {
  name_slots_.assign(slots, 0);
  for (size_t k = 0; k < names.size(); ++k) {  // equal names: the first keeps the index
    const uint64_t hash = std::hash<std::string_view>{}(names[k]);
    uint64_t& slot = name_slots_[slot_of(names[k], hash)];
    if (slot == 0) slot = (hash >> 32 << 32) | (k + 1);
  }
  indexed_ = names.size();
}

uint32_t Graph::intern(std::string_view name) {
  if (indexed_ != names.size() || (names.size() + 1) * 2 > name_slots_.size()) {
    size_t slots = 64;
    while (slots < (names.size() + 1) * 4) slots *= 2;
    index_names(slots);
  }
  const uint64_t hash = std::hash<std::string_view>{}(name);
  uint64_t& slot = name_slots_[slot_of(name, hash)];
  if (slot != 0) return static_cast<uint32_t>((slot & UINT32_MAX) - 1);
  names.emplace_back(name);
  indexed_ = names.size();
  slot = (hash >> 32 << 32) | names.size();
  return static_cast<uint32_t>(names.size() - 1);
}

namespace {

[[noreturn]] void fail(int rank, const Node& node, const std::string& what) {
  throw bad_input("rank " + std::to_string(rank) + ", node " + std::to_string(node.id) + ": " +
                  what);
}

// Every communicator group (used or not: the writer writes them all and the reader refuses these)
// is a non-empty list of distinct ranks of the graph.
void check_groups(const Graph& graph) {
  const int n = graph.rank_count();
  for (size_t g = 0; g < graph.groups.size(); ++g) {
    const std::string where = "communicator group " + std::to_string(g) + ": ";
    if (graph.groups[g].empty()) throw bad_input(where + "has no ranks");
    std::vector<bool> seen(static_cast<size_t>(n), false);
    for (int r : graph.groups[g]) {
      if (r < 0 || r >= n)
        throw bad_input(where + "rank " + std::to_string(r) + " is not in [0, " +
                        std::to_string(n) + ")");
      if (seen[static_cast<size_t>(r)])
        throw bad_input(where + "rank " + std::to_string(r) + " twice");
      seen[static_cast<size_t>(r)] = true;
    }
  }
}

}  // namespace

ComputeCoverage compute_coverage(const Graph& graph) {
  ComputeCoverage c;
  for (const RankGraph& rg : graph.ranks)
    for (const Node& n : rg.nodes) {
      if (n.kind != NodeKind::kCompute) continue;
      ++c.compute_nodes;
      const bool roofline = n.duration_s < 0;
      if (roofline ? n.flops <= 0 && n.mem_bytes <= 0 : n.duration_s == 0) ++c.untimed;
    }
  return c;
}

void check_graph(const Graph& graph) {
  const int n = graph.rank_count();
  check_groups(graph);
  for (int r = 0; r < n; ++r) {
    const RankGraph& g = graph.ranks[r];
    const auto count = static_cast<uint32_t>(g.nodes.size());
    std::vector<uint32_t> indegree(count, 0);
    std::vector<std::vector<uint32_t>> dependants;  // built only for the cycle check
    for (const Node& node : g.nodes) {
      const uint64_t end = uint64_t{node.dep_begin} + node.data_deps + node.ctrl_deps;
      if (end > g.deps.size()) fail(r, node, "dependency list out of range");
      for (uint64_t i = node.dep_begin; i < end; ++i)
        if (g.deps[i] >= count) fail(r, node, "depends on a node that does not exist");
      if (node.stream >= kMaxStreams)
        fail(r, node,
             "stream " + std::to_string(node.stream) + " (at most " +
                 std::to_string(kMaxStreams - 1) + ")");
      switch (node.kind) {
        case NodeKind::kCompute: break;
        case NodeKind::kCollective: {
          if (node.group_or_peer < 0 || node.group_or_peer >= static_cast<int>(graph.groups.size()))
            fail(r, node,
                 "communicator group " + std::to_string(node.group_or_peer) + " does not exist");
          bool member = false;
          for (int m : graph.groups[node.group_or_peer]) member |= m == r;
          if (!member)
            fail(r, node,
                 "collective on group " + std::to_string(node.group_or_peer) +
                     ", which does not contain this rank");
          break;
        }
        case NodeKind::kSend:
        case NodeKind::kRecv:
          if (node.group_or_peer < 0 || node.group_or_peer >= n || node.group_or_peer == r)
            fail(r, node,
                 std::string(node.kind == NodeKind::kSend ? "send to" : "recv from") + " rank " +
                     std::to_string(node.group_or_peer) + " (the trace has " + std::to_string(n) +
                     " ranks)");
          break;
      }
    }
    // Kahn's algorithm: nodes left with a positive in-degree lie on (or behind) a cycle.
    dependants.assign(count, {});
    for (uint32_t v = 0; v < count; ++v) {
      const Node& node = g.nodes[v];
      for (uint32_t i = 0; i < uint32_t{node.data_deps} + node.ctrl_deps; ++i) {
        dependants[g.deps[node.dep_begin + i]].push_back(v);
        ++indegree[v];
      }
    }
    std::vector<uint32_t> ready;
    for (uint32_t v = 0; v < count; ++v)
      if (indegree[v] == 0) ready.push_back(v);
    uint32_t done = 0;
    while (!ready.empty()) {
      uint32_t v = ready.back();
      ready.pop_back();
      ++done;
      for (uint32_t w : dependants[v])
        if (--indegree[w] == 0) ready.push_back(w);
    }
    if (done != count)
      for (uint32_t v = 0; v < count; ++v)
        if (indegree[v] > 0) fail(r, g.nodes[v], "lies on (or depends on) a dependency cycle");
  }
  check_p2p_sizes(graph);  // the writer checks this graph; its reader would refuse mismatches
}

}  // namespace commlab::workload
