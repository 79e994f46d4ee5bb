// Node's shared storage (graph.h): a compute node's flops and mem_bytes and a communication
// node's bytes, group_or_peer and tag live in the same 16 bytes. Each kind's fields keep their
// values, survive a Chakra write and read, and never leak into the other kind's attributes.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "chakra_wire.h"
#include "workload/chakra_trace.h"
#include "workload/graph.h"

namespace commlab::workload {
namespace {

using namespace commlab::test::chakra_wire;

TEST(NodeLayout, DefaultsAreAComputeNodeWithNothingToTimeAndZeroCommFields) {
  const Node n;
  EXPECT_EQ(n.kind, NodeKind::kCompute);
  EXPECT_EQ(n.duration_s, -1.0);
  EXPECT_EQ(n.flops, 0.0);
  EXPECT_EQ(n.mem_bytes, 0.0);
  // The communication view of the same zero bits: a node made a send without setting its tag
  // has tag 0, as before the fields shared storage.
  EXPECT_EQ(n.bytes, 0u);
  EXPECT_EQ(n.group_or_peer, 0);
  EXPECT_EQ(n.tag, 0);
}

TEST(NodeLayout, CommunicationFieldsLeaveTheDurationAlone) {
  Node n;
  n.kind = NodeKind::kSend;
  n.duration_s = 3.25e-6;
  n.bytes = (uint64_t{1} << 40) + 3;
  n.group_or_peer = 7;
  n.tag = -5;
  EXPECT_EQ(n.duration_s, 3.25e-6);  // not in the shared storage
  EXPECT_EQ(n.bytes, (uint64_t{1} << 40) + 3);
  EXPECT_EQ(n.group_or_peer, 7);
  EXPECT_EQ(n.tag, -5);
}

// The attribute `name` of a node message (field 10: AttributeProto, its field 1 the name).
bool has_attr(std::string_view msg, std::string_view name) {
  for (const Field& f : fields(msg))
    if (f.number == 10) {
      const auto a = fields(f.bytes);
      if (!a.empty() && a[0].bytes == name) return true;
    }
  return false;
}

Graph one_of_each_kind() {
  Graph g;
  g.name = "kinds";
  g.groups = {{0, 1}};
  g.ranks.resize(2);
  for (int r = 0; r < 2; ++r) {
    RankGraph& rg = g.ranks[r];
    Node roof;  // a roofline node: flops and bytes with fractions, no duration
    roof.id = 1;
    roof.flops = 1.5e15 + 0.25;
    roof.mem_bytes = 3.75e9 + 0.5;
    const uint32_t a = rg.add(roof);
    Node coll;
    coll.id = 2;
    coll.kind = NodeKind::kCollective;
    coll.op = CommOp::kAllReduce;
    coll.bytes = (uint64_t{1} << 41) + 5;  // over 2^32: the high word overlaps mem_bytes' low
    coll.group_or_peer = 0;
    coll.tag = 9;
    const uint32_t b = rg.add(coll, {a});
    Node p2p;  // rank 0 sends to 1, rank 1 receives; a duration as a trace may carry one
    p2p.id = 3;
    p2p.kind = r == 0 ? NodeKind::kSend : NodeKind::kRecv;
    p2p.stream = 1;
    p2p.bytes = 123457;
    p2p.group_or_peer = 1 - r;
    p2p.tag = -4;
    p2p.duration_s = 2.5e-6;
    rg.add(p2p, {b});
  }
  return g;
}

TEST(NodeLayout, EachKindsFieldsRoundTripThroughChakra) {
  const Graph g = one_of_each_kind();
  check_graph(g);
  std::string groups;
  const std::vector<std::string> files = encode_chakra_trace(g, &groups);
  const Graph back = parse_chakra_trace({files[0], files[1]}, groups, "kinds");
  ASSERT_EQ(back.rank_count(), 2);
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const std::vector<Node>& x = g.ranks[r].nodes;
    const std::vector<Node>& y = back.ranks[r].nodes;
    ASSERT_EQ(y.size(), 3u);
    EXPECT_EQ(y[0].kind, NodeKind::kCompute);
    EXPECT_EQ(y[0].duration_s, -1.0);
    EXPECT_EQ(y[0].flops, x[0].flops);  // exactly: commlab_flops is a double
    EXPECT_EQ(y[0].mem_bytes, x[0].mem_bytes);
    for (int i = 1; i < 3; ++i) {
      EXPECT_EQ(y[i].kind, x[i].kind);
      EXPECT_EQ(y[i].bytes, x[i].bytes);
      EXPECT_EQ(y[i].group_or_peer, x[i].group_or_peer);
      EXPECT_EQ(y[i].tag, x[i].tag);
      EXPECT_EQ(y[i].duration_s, x[i].duration_s);
    }
    // Neither kind writes the other's attributes: a communication node's flops view is its
    // bytes' bits, a compute node's bytes view its flops' bits.
    const auto msgs = messages(files[r]);
    ASSERT_EQ(msgs.size(), 4u);  // metadata + 3 nodes
    for (const char* name : {"comm_size", "comm_tag", "comm_src", "comm_dst", "pg_name"})
      EXPECT_FALSE(has_attr(msgs[1], name)) << name;
    for (int i = 2; i < 4; ++i)
      for (const char* name : {"num_ops", "tensor_size", "commlab_flops", "commlab_mem_bytes"})
        EXPECT_FALSE(has_attr(msgs[i], name)) << name << " on node " << i;
  }
  // And the re-encoded read-back graph is the same bytes.
  std::string groups_back;
  EXPECT_EQ(encode_chakra_trace(back, &groups_back), files);
}

}  // namespace
}  // namespace commlab::workload
