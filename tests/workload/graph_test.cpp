// The graph model's structural checks (check_graph): every producer relies on them.
#include "workload/graph.h"

#include <gtest/gtest.h>

namespace commlab::workload {
namespace {

std::string check_error(const Graph& g) {
  try {
    check_graph(g);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

Graph two_ranks() {
  Graph g;
  g.ranks.resize(2);
  g.groups = {{0, 1}, {1}};
  return g;
}

TEST(Graph, AddKeepsDependenciesInCsrOrderDataFirst) {
  RankGraph rg;
  Node n;
  n.id = 10;
  uint32_t a = rg.add(n);
  n.id = 11;
  uint32_t b = rg.add(n);
  n.id = 12;
  uint32_t c = rg.add(n, {a}, {b});
  EXPECT_EQ(rg.nodes[c].data_deps, 1);
  EXPECT_EQ(rg.nodes[c].ctrl_deps, 1);
  EXPECT_EQ(rg.deps[rg.nodes[c].dep_begin], a);
  EXPECT_EQ(rg.deps[rg.nodes[c].dep_begin + 1], b);
  n.id = 13;
  EXPECT_THROW(rg.add(n, {7}), std::invalid_argument);  // a dependency not added yet
}

TEST(Graph, InternReturnsOneIndexPerName) {
  Graph g;
  uint32_t a = g.intern("fwd");
  uint32_t b = g.intern("bwd");
  EXPECT_EQ(g.intern("fwd"), a);
  EXPECT_NE(a, b);
  EXPECT_EQ(g.names[b], "bwd");
  EXPECT_EQ(g.intern(""), 0u);
}

// The index is open addressing over names, grown by doubling: 100,000 distinct names (many
// regrowths, long names past the string's inline bytes) each keep the index they got first.
TEST(Graph, InternKeepsIndicesAcrossGrowthAndNamesAddedDirectly) {
  Graph g;
  for (int i = 1; i <= 100000; ++i)
    ASSERT_EQ(g.intern((i % 2 ? "a long operator name number " : "op") + std::to_string(i)),
              static_cast<uint32_t>(i));
  for (int i = 100000; i >= 1; i -= 997)
    EXPECT_EQ(g.intern((i % 2 ? "a long operator name number " : "op") + std::to_string(i)),
              static_cast<uint32_t>(i));
  EXPECT_EQ(g.names.size(), 100001u);
  // names is public: a name pushed directly is found (the index is rebuilt), and a duplicate
  // pushed after it leaves the first index the answer.
  g.names.push_back("pushed");
  g.names.push_back("op2");
  EXPECT_EQ(g.intern("pushed"), 100001u);
  EXPECT_EQ(g.intern("op2"), 2u);
  EXPECT_EQ(g.intern("new"), 100003u);
}

// What the writer writes, its reader reads (fuzz_chakra_graph found both): every group is a
// non-empty list of distinct ranks, used or not, and a send and its receive agree on the size.
TEST(Graph, CheckRefusesWhatTheTraceReaderWouldRefuse) {
  Graph g = two_ranks();
  g.groups.push_back({});
  EXPECT_EQ(check_error(g), "communicator group 2: has no ranks");
  g.groups.back() = {1, 1};
  EXPECT_EQ(check_error(g), "communicator group 2: rank 1 twice");
  g.groups.back() = {2};
  EXPECT_EQ(check_error(g), "communicator group 2: rank 2 is not in [0, 2)");
  g.groups.pop_back();
  Node send;
  send.id = 3;
  send.kind = NodeKind::kSend;
  send.group_or_peer = 1;
  send.bytes = 1024;
  g.ranks[0].add(send);
  Node recv = send;
  recv.id = 4;
  recv.kind = NodeKind::kRecv;
  recv.group_or_peer = 0;
  recv.bytes = 1ull << 40;
  g.ranks[1].add(recv);
  EXPECT_EQ(check_error(g),
            "rank 0, node 3: send of 1024 bytes (rank 0 to rank 1, tag 0) has no receive of that "
            "size; rank 1, node 4 receives 1099511627776 bytes");
  g.ranks[1].nodes[0].bytes = 1024;
  EXPECT_EQ(check_error(g), "");
}

TEST(Graph, CheckNamesRankNodeAndProblem) {
  Graph ok = two_ranks();
  Node coll;
  coll.id = 5;
  coll.kind = NodeKind::kCollective;
  coll.group_or_peer = 0;
  ok.ranks[0].add(coll);
  EXPECT_EQ(check_error(ok), "");

  Graph outside = two_ranks();
  coll.group_or_peer = 1;  // {1} does not contain rank 0
  outside.ranks[0].add(coll);
  EXPECT_EQ(check_error(outside),
            "rank 0, node 5: collective on group 1, which does not contain this rank");

  Graph self_send = two_ranks();
  Node send;
  send.id = 8;
  send.kind = NodeKind::kSend;
  send.group_or_peer = 1;
  self_send.ranks[1].add(send);
  EXPECT_NE(check_error(self_send).find("rank 1, node 8: send to rank 1"), std::string::npos);

  // A cycle can only be built by hand (add() refuses forward deps): 0 -> 1 -> 0.
  Graph cycle = two_ranks();
  RankGraph& rg = cycle.ranks[0];
  rg.nodes.resize(2);
  rg.nodes[0].id = 1;
  rg.nodes[1].id = 2;
  rg.deps = {1, 0};
  rg.nodes[0].dep_begin = 0;
  rg.nodes[0].data_deps = 1;
  rg.nodes[1].dep_begin = 1;
  rg.nodes[1].data_deps = 1;
  EXPECT_NE(check_error(cycle).find("cycle"), std::string::npos);
}

}  // namespace
}  // namespace commlab::workload
