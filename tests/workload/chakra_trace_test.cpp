// Chakra import: hand-written traces of each node type (raw wire bytes from the public schema's
// field numbers) map to the documented Node fields, and malformed traces give the documented
// one-line errors (docs/workload.md "Chakra execution traces").
#include "workload/chakra_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "chakra_wire.h"
#include "support/error_of.h"

namespace commlab::workload {
namespace {

using namespace commlab::test::chakra_wire;
using ::testing::HasSubstr;

Graph parse(const std::vector<std::string>& files, const std::string& groups = "",
            TraceReadReport* report = nullptr) {
  std::vector<std::string_view> views(files.begin(), files.end());
  return parse_chakra_trace(views, groups, "t", report);
}

// The message parsing `files` throws (the test fails when it parses).
std::string error_of(const std::vector<std::string>& files, const std::string& groups = "") {
  return commlab::testing::error_of([&] { parse(files, groups); });
}

TEST(ChakraRead, ComputeNodesDurationRooflineAndCpuOps) {
  const std::string f = trace_file({
      NodeMsg(10, "gemm", kComp).micros(250),
      NodeMsg(11, "roof", kComp)
          .attr(attr_u("num_ops", 4'000'000))
          .attr(attr_u("tensor_size", 8192)),
      NodeMsg(12, "cpu", kComp).attr(attr_b("is_cpu_op", true)).attr(attr_i("num_ops", 5)),
      NodeMsg(13, "exact", kComp).micros(2).attr(attr_d("commlab_duration_s", 1.5e-6)),
  });
  const Graph g = parse({f});
  ASSERT_EQ(g.rank_count(), 1);
  const auto& n = g.ranks[0].nodes;
  ASSERT_EQ(n.size(), 4u);
  // duration_micros 250 -> 250 * 1e-6 s, on the compute stream.
  EXPECT_EQ(n[0].kind, NodeKind::kCompute);
  EXPECT_EQ(n[0].id, 10u);
  EXPECT_EQ(g.name_of(n[0]), "gemm");
  EXPECT_DOUBLE_EQ(n[0].duration_s, 250e-6);
  EXPECT_EQ(n[0].stream, kComputeStream);
  // No duration, num_ops and tensor_size: the roofline (duration_s < 0, FLOPs and bytes kept).
  EXPECT_LT(n[1].duration_s, 0);
  EXPECT_EQ(n[1].flops, 4e6);
  EXPECT_EQ(n[1].mem_bytes, 8192);
  // A CPU op replays its duration (0 here) even with num_ops, as ASTRA-sim does.
  EXPECT_EQ(n[2].duration_s, 0);
  EXPECT_EQ(n[2].flops, 5);
  // CommLab's exact seconds win over the rounded microseconds.
  EXPECT_EQ(n[3].duration_s, 1.5e-6);
}

TEST(ChakraRead, CollectivesGroupsAndOps) {
  auto rank = [](int r) {
    return trace_file({
        NodeMsg(1, "ag", kColl)
            .attr(attr_i("comm_type", kAllGather))
            .attr(attr_u("comm_size", 1 << 20))
            .attr(attr_s("pg_name", "2")),
        NodeMsg(2, "ar", kColl)
            .attr(attr_i("comm_type", kAllReduce))
            .attr(attr_i("comm_size", 64))
            .data(1),
        NodeMsg(3, "rsb", kColl)
            .attr(attr_i("comm_type", kReduceScatterBlock))
            .attr(attr_u("comm_size", 8))
            .attr(attr_s("pg_name", "0"))
            .attr(attr_s("commlab_comm_kind", "DP"))
            .attr(attr_u("commlab_stream", 3)),
        NodeMsg(4, "a2a", kColl)
            .attr(attr_i("comm_type", kAllToAll))
            .attr(attr_u("comm_size", 9))
            .attr(attr_s("pg_name", r == 0 ? "1" : "2")),
    });
  };
  const Graph g = parse({rank(0), rank(1)}, R"({"2": [1, 0], "1": [0]})");
  // Groups in numeric key order ("1" then "2"); the default (no pg_name, "0") is all ranks,
  // appended when first used.
  ASSERT_EQ(g.groups.size(), 3u);
  EXPECT_EQ(g.groups[0], std::vector<int>({0}));
  EXPECT_EQ(g.groups[1], std::vector<int>({1, 0}));
  EXPECT_EQ(g.groups[2], std::vector<int>({0, 1}));
  const auto& n = g.ranks[1].nodes;
  EXPECT_EQ(n[0].kind, NodeKind::kCollective);
  EXPECT_EQ(n[0].op, CommOp::kAllGather);
  // comm_size is this rank's shard (ASTRA-sim's convention): gathered = 1 MiB x 2 ranks.
  EXPECT_EQ(n[0].bytes, 2u << 20);
  EXPECT_EQ(n[0].group_or_peer, 1);
  EXPECT_EQ(n[0].stream, 1);  // communication defaults to stream 1
  EXPECT_EQ(n[0].comm, CommKind::kOther);
  EXPECT_LT(n[0].duration_s, 0);
  EXPECT_EQ(n[1].op, CommOp::kAllReduce);
  EXPECT_EQ(n[1].group_or_peer, 2);
  EXPECT_EQ(n[2].op, CommOp::kReduceScatter);  // REDUCE_SCATTER_BLOCK: same pattern
  EXPECT_EQ(n[2].group_or_peer, 2);
  EXPECT_EQ(n[2].comm, CommKind::kDp);
  EXPECT_EQ(n[2].stream, 3);
  EXPECT_EQ(n[3].op, CommOp::kAllToAll);
  EXPECT_EQ(g.ranks[0].nodes[3].group_or_peer, 0);
}

TEST(ChakraRead, ProcessGroupsFromPyTorchMetadataNodes) {
  // Chakra's PyTorch converter keeps "## process_group:init ##" as a METADATA node whose
  // inputs.values wraps a JSON list of process groups; ASTRA-sim drops two characters at each
  // end. Both wrappings seen in the wild: "[[...]]" and the Python list "['...']".
  const std::string pgs = R"([{"pg_name": "0", "ranks": []}, {"pg_name": "3", "ranks": [1, 0]}])";
  auto rank = [&](const std::string& values) {
    return trace_file({NodeMsg(1, "## process_group:init ##", kMetadata).inputs(values),
                       NodeMsg(2, "ar", kColl)
                           .attr(attr_i("comm_type", kAllReduce))
                           .attr(attr_u("comm_size", 64))
                           .attr(attr_s("pg_name", "3"))
                           .ctrl(1)});
  };
  TraceReadReport report;
  const Graph g = parse({rank("[[" + pgs + "]]"), rank("['" + pgs + "']")}, "", &report);
  // Groups in definition order: "0" (every rank), then "3" = [1, 0].
  ASSERT_EQ(g.groups.size(), 2u);
  EXPECT_EQ(g.groups[0], std::vector<int>({0, 1}));
  EXPECT_EQ(g.groups[1], std::vector<int>({1, 0}));
  EXPECT_EQ(g.ranks[0].nodes[0].group_or_peer, 1);
  EXPECT_EQ(g.ranks[1].nodes[0].group_or_peer, 1);
  EXPECT_EQ(g.ranks[0].nodes[0].ctrl_deps, 0);  // the metadata node had no deps to pass on
  EXPECT_EQ(report.skipped_nodes, 2u);
  EXPECT_EQ(report.unknown_attributes, 0u);
  // A redefinition with other ranks is an error naming the node.
  const std::string other = R"([{"pg_name": "3", "ranks": [0, 1]}])";
  EXPECT_EQ(error_of({rank("[[" + pgs + "]]"), rank("[[" + other + "]]")}),
            "t.1.et: rank 1, node 1: process group \"3\": ranks differ from its earlier "
            "definition");
  // Text that is not a process-group list is skipped and counted, as ASTRA-sim skips it.
  TraceReadReport r2;
  parse({trace_file({NodeMsg(1, "meta", kMetadata).inputs("['hello']")})}, "", &r2);
  EXPECT_EQ(r2.unknown_by_name["METADATA_NODE inputs.values"], 1u);
}

TEST(ChakraRead, ProcessGroupListsAreReadInOnePass) {
  // Read through nlohmann's SAX interface (chakra_process_groups.cpp): other keys, nested or not,
  // are skipped; a rank that is not an integer is named as the JSON tree's reader named it.
  auto meta = [](const std::string& pgs) {
    return trace_file(
        {NodeMsg(1, "## process_group:init ##", kMetadata).inputs("[[" + pgs + "]]")});
  };
  const std::string extra =
      R"([{"pg_desc": {"a": [1, {"b": null}]}, "pg_name": "5", "ranks": [1], "size": 1.5}])";
  const Graph g = parse({meta(extra), meta(extra)});
  ASSERT_EQ(g.groups.size(), 1u);
  EXPECT_EQ(g.groups[0], std::vector<int>({1}));
  EXPECT_EQ(error_of({meta(R"([{"pg_name": "1", "ranks": [0, "x"]}])"), meta("[]")}),
            "t.0.et: rank 0, node 1: process group \"1\": rank \"x\" is not in [0, 2)");
  EXPECT_EQ(error_of({meta(R"([{"pg_name": "1", "ranks": [1.5]}])"), meta("[]")}),
            "t.0.et: rank 0, node 1: process group \"1\": rank 1.5 is not in [0, 2)");
  EXPECT_EQ(error_of({meta(R"([{"pg_name": "1", "ranks": [0, 0]}])"), meta("[]")}),
            "t.0.et: rank 0, node 1: process group \"1\": rank 0 twice");
  // Not a process-group list: skipped and counted (a number as pg_name, ranks not an array, an
  // entry that is not an object, invalid JSON).
  for (const std::string bad : {R"([{"pg_name": 1, "ranks": []}])", R"([{"pg_name": "1"}])",
                                R"([{"pg_name": "1", "ranks": {}}])", R"([3])", R"([{"pg_name")"}) {
    TraceReadReport report;
    parse({meta(bad)}, "", &report);
    EXPECT_EQ(report.unknown_by_name["METADATA_NODE inputs.values"], 1u) << bad;
  }
}

TEST(ChakraRead, SendAndRecv) {
  const std::string r0 = trace_file({NodeMsg(5, "s", kSend)
                                         .attr(attr_i("comm_src", 0))
                                         .attr(attr_i("comm_dst", 1))
                                         .attr(attr_i("comm_tag", 7))
                                         .attr(attr_u("comm_size", 4096))});
  const std::string r1 = trace_file({NodeMsg(9, "r", kRecv)
                                         .attr(attr_i("comm_src", 0))
                                         .attr(attr_i("comm_tag", 7))
                                         .attr(attr_u("comm_size", 4096))});
  const Graph g = parse({r0, r1});
  const Node& s = g.ranks[0].nodes[0];
  const Node& r = g.ranks[1].nodes[0];
  EXPECT_EQ(s.kind, NodeKind::kSend);
  EXPECT_EQ(s.group_or_peer, 1);  // send: destination rank
  EXPECT_EQ(s.tag, 7);
  EXPECT_EQ(s.bytes, 4096u);
  EXPECT_EQ(r.kind, NodeKind::kRecv);
  EXPECT_EQ(r.group_or_peer, 0);  // recv: source rank
  EXPECT_EQ(r.tag, 7);
}

TEST(ChakraRead, DependenciesSortedAndPassedThroughSkippedNodes) {
  // File order 3, 1, 2, 4: node 3 depends on 1 (data) and 2 (ctrl) listed after it; 4 depends on
  // a METADATA node (5) that depends on 1 and 2, so 4 inherits both as data deps.
  const std::string f = trace_file({
      NodeMsg(3, "c", kComp).data(1).ctrl(2),
      NodeMsg(1, "a", kComp),
      NodeMsg(2, "b", kComp),
      NodeMsg(5, "meta", kMetadata).data(1).ctrl(2),
      NodeMsg(4, "d", kComp).data(5).ctrl(3),
  });
  TraceReadReport report;
  const Graph g = parse({f}, "", &report);
  const RankGraph& r = g.ranks[0];
  ASSERT_EQ(r.nodes.size(), 4u);
  // Depth-first in file order: 1 and 2 are placed before 3, then 4.
  EXPECT_EQ(r.nodes[0].id, 1u);
  EXPECT_EQ(r.nodes[1].id, 2u);
  EXPECT_EQ(r.nodes[2].id, 3u);
  EXPECT_EQ(r.nodes[3].id, 4u);
  const Node& c = r.nodes[2];
  ASSERT_EQ(c.data_deps, 1);
  ASSERT_EQ(c.ctrl_deps, 1);
  EXPECT_EQ(r.deps[c.dep_begin], 0u);
  EXPECT_EQ(r.deps[c.dep_begin + 1], 1u);
  const Node& d = r.nodes[3];
  ASSERT_EQ(d.data_deps, 2);
  ASSERT_EQ(d.ctrl_deps, 1);
  EXPECT_EQ(r.deps[d.dep_begin], 0u);
  EXPECT_EQ(r.deps[d.dep_begin + 1], 1u);
  EXPECT_EQ(r.deps[d.dep_begin + 2], 2u);
  EXPECT_EQ(report.nodes, 4u);
  EXPECT_EQ(report.skipped_nodes, 1u);
}

TEST(ChakraRead, UnknownAttributesAreCountedByName) {
  const std::string f = trace_file({
      NodeMsg(1, "ar", kColl)
          .attr(attr_i("comm_type", kAllReduce))
          .attr(attr_u("comm_size", 1))
          .attr(attr_bools("involved_dim", {true, true}))
          .attr(attr_i("comm_priority", 0))
          .attr(attr_u("num_ops", 3)),  // num_ops means nothing on a collective
      NodeMsg(2, "c", kComp).micros(1).attr(attr_bools("involved_dim", {false})),
  });
  TraceReadReport report;
  parse({f}, "", &report);
  // 2 involved_dim + 1 comm_priority + 1 num_ops.
  EXPECT_EQ(report.unknown_attributes, 4u);
  EXPECT_EQ(report.unknown_by_name["involved_dim"], 2u);
  EXPECT_EQ(report.unknown_by_name["comm_priority"], 1u);
  EXPECT_EQ(report.unknown_by_name["num_ops"], 1u);
}

TEST(ChakraRead, MalformedFramingNamesFileRankAndOffset) {
  const std::string good = trace_file({NodeMsg(1, "a", kComp).micros(1)});
  // Bad varint: five bytes all with the continuation bit, right after the metadata.
  std::string bad_varint = good + std::string(5, '\xff');
  EXPECT_EQ(error_of({bad_varint}), "t.0.et: rank 0, byte offset " + std::to_string(good.size()) +
                                        " (after node 1): bad varint length prefix (over 32 bits)");
  // Truncated node: a length of 100 with 3 bytes behind it.
  std::string truncated = good + std::string("\x64") + "abc";
  EXPECT_EQ(error_of({truncated}), "t.0.et: rank 0, byte offset " + std::to_string(good.size()) +
                                       " (after node 1): truncated message: length 100, only 3 "
                                       "bytes left");
  std::string cut_prefix = good + std::string("\x80");
  EXPECT_THAT(error_of({cut_prefix}), HasSubstr("truncated length prefix"));
  // A length over the 64 MiB cap (0x80 0x80 0x80 0x40 = 2^27).
  std::string huge = good + std::string("\x80\x80\x80\x40", 4);
  EXPECT_THAT(error_of({huge}), HasSubstr("message length 134217728 is over the cap"));
  // Wire type 7 does not exist: the protobuf parser refuses the message.
  std::string garbage = good;
  frame(&garbage, std::string("\x0f\x01", 2));
  EXPECT_THAT(error_of({garbage}), HasSubstr("not a valid Chakra Node message"));
  EXPECT_EQ(error_of({std::string()}),
            "t.0.et: rank 0, byte offset 0: empty file (expected a "
            "GlobalMetadata)");
}

TEST(ChakraRead, MalformedGraphsNameTheNode) {
  EXPECT_EQ(error_of({trace_file({NodeMsg(1, "a", kComp).data(99)})}),
            "t.0.et: rank 0, node 1: data dependency on node 99, which is not in the trace");
  EXPECT_EQ(
      error_of({trace_file({NodeMsg(1, "a", kComp).ctrl(2), NodeMsg(2, "b", kComp).data(1)})}),
      "t.0.et: rank 0, node 2: lies on a dependency cycle (through node 1)");
  EXPECT_THAT(error_of({trace_file({NodeMsg(1, "a", kComp), NodeMsg(1, "b", kComp)})}),
              HasSubstr("t.0.et: rank 0, node 1: duplicate node id (first at byte offset"));
  EXPECT_THAT(error_of({trace_file({NodeMsg(1, "x", kColl)
                                        .attr(attr_i("comm_type", kReduce))
                                        .attr(attr_u("comm_size", 1))})}),
              HasSubstr("t.0.et: rank 0, node 1: comm_type REDUCE (1) is not supported"));
  EXPECT_EQ(error_of({trace_file({NodeMsg(1, "x", kColl).attr(attr_i("comm_type", kAllReduce))})}),
            "t.0.et: rank 0, node 1: COMM_COLL_NODE without comm_size");
  EXPECT_EQ(
      error_of({trace_file(
          {NodeMsg(4, "s", kSend).attr(attr_i("comm_dst", 0)).attr(attr_u("comm_size", 1))})}),
      "t.0.et: rank 0, node 4: send to rank 0 (the trace has 1 ranks, this is rank 0)");
  EXPECT_EQ(error_of({trace_file({NodeMsg(1, "x", kColl)
                                      .attr(attr_i("comm_type", kAllReduce))
                                      .attr(attr_u("comm_size", 1))
                                      .attr(attr_s("pg_name", "5"))})}),
            "t.0.et: rank 0, node 1: pg_name \"5\" is not in a communicator-group file (there is "
            "no t.comm_groups.json) or a process_group:init metadata node");
  EXPECT_EQ(error_of({trace_file({NodeMsg(1, "x", kComp)
                                      .attr(attr_d("comm_size", 1.0))
                                      .attr(attr_s("num_ops", "many"))})}),
            "t.0.et: rank 0, node 1: attribute num_ops: expected an integer value, found "
            "string_val");
  EXPECT_EQ(error_of({trace_file({NodeMsg(1, "x", kComp).attr(attr_i("commlab_stream", 9))})}),
            "t.0.et: rank 0, node 1: attribute commlab_stream: 9 is out of range [0, 7]");
  EXPECT_EQ(error_of({trace_file({NodeMsg(3, "x", NodeType(42))})}),
            "t.0.et: rank 0, node 3: unknown node type 42");
  const std::string in_g1 = trace_file({NodeMsg(1, "x", kColl)
                                            .attr(attr_i("comm_type", kAllReduce))
                                            .attr(attr_u("comm_size", 1))
                                            .attr(attr_s("pg_name", "1"))});
  EXPECT_EQ(
      error_of({in_g1, in_g1}, R"({"1": [0]})"),
      "t.1.et: rank 1, node 1: collective on pg_name \"1\", which does not contain this rank");
  EXPECT_EQ(
      error_of({trace_file({})}, R"({"1": [0, 3]})"),
      "t.comm_groups.json: group \"1\": rank 3 is not in [0, 1) (the trace has 1 rank files)");
}

// Values the reader must not accept and replay as something else.

std::string send_file(uint64_t id, uint64_t bytes) {
  return trace_file({NodeMsg(id, "s", kSend)
                         .attr(attr_i("comm_dst", 1))
                         .attr(attr_i("comm_tag", 7))
                         .attr(attr_u("comm_size", bytes))});
}
std::string recv_file(const std::vector<uint64_t>& bytes) {
  std::vector<NodeMsg> nodes;
  for (size_t i = 0; i < bytes.size(); ++i)
    nodes.push_back(NodeMsg(9 + i, "r", kRecv)
                        .attr(attr_i("comm_src", 0))
                        .attr(attr_i("comm_tag", 7))
                        .attr(attr_u("comm_size", bytes[i])));
  return trace_file(nodes);
}

TEST(ChakraRead, ASendAndItsReceiveOfAnotherSizeIsAnError) {
  // The scheduler times the send's 1 KB; the receive's 1 TB was never read.
  EXPECT_EQ(error_of({send_file(5, 1024), recv_file({uint64_t{1} << 40})}),
            "t.0.et: rank 0, node 5: send of 1024 bytes (rank 0 to rank 1, tag 7) has no receive "
            "of that size; t.1.et: rank 1, node 9 receives 1099511627776 bytes");
  // The other way round names the receive first.
  EXPECT_EQ(error_of({send_file(5, uint64_t{1} << 40), recv_file({1024})}),
            "t.1.et: rank 1, node 9: receive of 1024 bytes (rank 0 to rank 1, tag 7) has no send "
            "of that size; t.0.et: rank 0, node 5 sends 1099511627776 bytes");
  // Sizes pair by value, not by file order: two sends of 1 and 2 KB, received as 2 then 1 KB.
  const std::string two_sends = trace_file(
      {NodeMsg(5, "a", kSend).attr(attr_i("comm_dst", 1)).attr(attr_u("comm_size", 1024)),
       NodeMsg(6, "b", kSend).attr(attr_i("comm_dst", 1)).attr(attr_u("comm_size", 2048))});
  const std::string two_recvs = trace_file(
      {NodeMsg(9, "a", kRecv).attr(attr_i("comm_src", 0)).attr(attr_u("comm_size", 2048)),
       NodeMsg(8, "b", kRecv).attr(attr_i("comm_src", 0)).attr(attr_u("comm_size", 1024))});
  EXPECT_EQ(parse({two_sends, two_recvs}).ranks[1].nodes.size(), 2u);
}

TEST(ChakraRead, NegativeDurationsFlopsAndBytesAreErrorsNotZero) {
  const auto compute = [](const Msg& a) { return trace_file({NodeMsg(3, "x", kComp).attr(a)}); };
  EXPECT_EQ(error_of({compute(attr_d("commlab_duration_s", -2.5))}),
            "t.0.et: rank 0, node 3: attribute commlab_duration_s: -2.5 is negative (expected "
            "seconds in [0, 1e+09])");
  EXPECT_EQ(error_of({compute(attr_d("commlab_flops", -1e12))}),
            "t.0.et: rank 0, node 3: attribute commlab_flops: -1e+12 is negative (expected FLOPs "
            "in [0, 1e+30])");
  EXPECT_EQ(error_of({compute(attr_d("commlab_mem_bytes", -4096))}),
            "t.0.et: rank 0, node 3: attribute commlab_mem_bytes: -4096 is negative (expected "
            "bytes in [0, 1e+30])");
  EXPECT_THAT(error_of({compute(attr_i("num_ops", -5))}),
              HasSubstr("t.0.et: rank 0, node 3: attribute num_ops: -5 is out of range"));
  // Zero is a value, not an error.
  EXPECT_EQ(parse({compute(attr_d("commlab_duration_s", 0.0))}).ranks[0].nodes[0].duration_s, 0);
}

TEST(ChakraRead, DurationsThatWouldOverflowTheIterationNameTheBound) {
  // Two nodes of 1e308 s sum to inf (iteration_s null, inf in series.csv): each node is bounded
  // by kChakraMaxNodeSeconds, so a rank's sum stays finite.
  const std::string huge =
      trace_file({NodeMsg(1, "a", kComp).attr(attr_d("commlab_duration_s", 1e308)),
                  NodeMsg(2, "b", kComp).data(1).attr(attr_d("commlab_duration_s", 1e308))});
  EXPECT_EQ(error_of({huge}),
            "t.0.et: rank 0, node 1: attribute commlab_duration_s: 1e+308 is over the bound "
            "(expected seconds in [0, 1e+09])");
  EXPECT_EQ(error_of({trace_file({NodeMsg(4, "a", kComp).micros(UINT64_MAX)})}),
            "t.0.et: rank 0, node 4: duration_micros 18446744073709551615 is over the bound "
            "(expected seconds in [0, 1e+09])");
  EXPECT_EQ(error_of({trace_file({NodeMsg(4, "a", kComp).attr(attr_d("commlab_flops", 1e31))})}),
            "t.0.et: rank 0, node 4: attribute commlab_flops: 1e+31 is over the bound (expected "
            "FLOPs in [0, 1e+30])");
  // The bound itself is accepted: 1e9 s = 10^15 us.
  EXPECT_EQ(parse({trace_file({NodeMsg(4, "a", kComp).micros(1000000000000000ull)})})
                .ranks[0]
                .nodes[0]
                .duration_s,
            kChakraMaxNodeSeconds);
}

}  // namespace
}  // namespace commlab::workload
