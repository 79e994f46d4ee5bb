// Third-party traces that post a receive before the collectives it does not depend on (ASTRA-sim's
// symbolic_tensor_graph writes pipeline stages this way): a receive is posted when its
// dependencies are done and holds no stream, so the collectives behind it run, as ASTRA-sim
// issues them (a receive never takes its communication slot). Traces are the public Chakra
// schema's wire bytes, with no commlab_* attribute.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chakra_wire.h"
#include "network/analytical.h"
#include "topology/topology.h"
#include "workload/chakra_trace.h"
#include "workload/scheduler.h"

namespace commlab::workload {
namespace {

using namespace commlab::test::chakra_wire;

constexpr double kB = 53.6870912e9;  // bytes/s per rank
constexpr double kAlpha = 1e-6;
constexpr uint64_t kSize = 4 << 20;  // every message and collective buffer
constexpr uint64_t kComputeUs = 100;

Graph parse(const std::vector<std::string>& files, const std::string& groups = "") {
  std::vector<std::string_view> views(files.begin(), files.end());
  return parse_chakra_trace(views, groups, "t");
}

ScheduleResult replay(const Graph& g, int ranks) {
  AnalyticalBackend backend(make_flat(ranks, kB, kAlpha));
  return schedule(g, backend, SchedulerOptions{});
}

NodeMsg all_reduce(uint64_t id, const std::string& pg = "") {
  NodeMsg n(id, "all_reduce", kColl);
  n.attr(attr_i("comm_type", kAllReduce)).attr(attr_i("comm_size", kSize));
  if (!pg.empty()) n.attr(attr_s("pg_name", pg));
  return n;
}
NodeMsg send(uint64_t id, int src, int dst, int tag) {
  return std::move(NodeMsg(id, "send", kSend)
                       .attr(attr_i("comm_src", src))
                       .attr(attr_i("comm_dst", dst))
                       .attr(attr_i("comm_tag", tag))
                       .attr(attr_i("comm_size", kSize)));
}
NodeMsg recv(uint64_t id, int src, int dst, int tag) {
  return std::move(NodeMsg(id, "recv", kRecv)
                       .attr(attr_i("comm_src", src))
                       .attr(attr_i("comm_dst", dst))
                       .attr(attr_i("comm_tag", tag))
                       .attr(attr_i("comm_size", kSize)));
}
NodeMsg compute(uint64_t id) {
  return std::move(NodeMsg(id, "compute", kComp).micros(kComputeUs));
}

// The same network's times for the pieces: an all-reduce of `group` alone, one message (or
// messages on disjoint links, which take as long).
double all_reduce_time(int ranks, const std::vector<int>& group) {
  Graph g;
  g.ranks.resize(ranks);
  g.groups = {group};
  for (int r : group) {
    Node n;
    n.kind = NodeKind::kCollective;
    n.op = CommOp::kAllReduce;
    n.bytes = kSize;
    n.group_or_peer = 0;
    n.stream = 1;
    g.ranks[r].add(n);
  }
  return replay(g, ranks).iteration_s;
}
double message_time(int ranks) {
  Graph g;
  g.ranks.resize(ranks);
  Node s;
  s.kind = NodeKind::kSend;
  s.bytes = kSize;
  s.group_or_peer = 1;
  s.stream = 1;
  g.ranks[0].add(s);
  Node r = s;
  r.kind = NodeKind::kRecv;
  r.group_or_peer = 0;
  g.ranks[1].add(r);
  return replay(g, ranks).iteration_s;
}

TEST(ReceiveFirst, AReceiveWithNoDependenciesDoesNotBlockTheAllReduceBehindIt) {
  // Rank 0 posts a receive, then (independently) an all-reduce; rank 1 sends after its
  // all-reduce. The receive ends when rank 1's message arrives: T = all-reduce + message.
  const Graph g = parse({trace_file({recv(1, 1, 0, 7), all_reduce(2)}),
                         trace_file({all_reduce(1), send(2, 1, 0, 7).data(1)})});
  const ScheduleResult r = replay(g, 2);
  EXPECT_EQ(r.nodes, 4u);
  const double expected = all_reduce_time(2, {0, 1}) + message_time(2);
  EXPECT_NEAR(r.iteration_s, expected, 1e-12 * expected);
}

TEST(ReceiveFirst, APipelineOfTwoStagesWithReceivesPostedFirstReplays) {
  // tp 2 x pp 2 on 4 ranks, one micro-batch: stage 0 = ranks 0, 1 (TP group "1"), stage 1 =
  // ranks 2, 3 (TP group "2"). Each rank posts its receive first, with no dependency.
  // Stage 0: F, TP all-reduce, send activations; backward: B (needs the gradient), all-reduce.
  // Stage 1: F (needs the activations), all-reduce, B, all-reduce, send the gradient back.
  // Dependencies: stage 0's F has none, its all-reduce needs F, the send the all-reduce, B the
  // received gradient and the send, and so on.
  std::vector<std::string> files;
  for (int r = 0; r < 2; ++r)
    files.push_back(trace_file({recv(1, r + 2, r, 20 + r), compute(2), all_reduce(3, "1").data(2),
                                send(4, r, r + 2, 10 + r).data(3), compute(5).data(1).data(4),
                                all_reduce(6, "1").data(5)}));
  for (int r = 2; r < 4; ++r)
    files.push_back(trace_file({recv(1, r - 2, r, 8 + r), compute(2).data(1),
                                all_reduce(3, "2").data(2), compute(4).data(3),
                                all_reduce(5, "2").data(4), send(6, r, r - 2, 18 + r).data(5)}));
  const Graph g = parse(files, R"({"1": [0, 1], "2": [2, 3]})");
  const ScheduleResult r = replay(g, 4);
  EXPECT_EQ(r.nodes, 24u);
  // Critical path: stage 0 F, all-reduce, message; stage 1 F, all-reduce, B, all-reduce,
  // message; stage 0 B, all-reduce: T = 2 F + 2 B + 4 a + 2 m (both TP groups' rings are on
  // disjoint links, as are the two ranks' messages).
  const double a = all_reduce_time(4, {0, 1}), m = message_time(4), c = kComputeUs * 1e-6;
  const double expected = 4 * c + 4 * a + 2 * m;
  EXPECT_NEAR(r.iteration_s, expected, 1e-9 * expected);
}

TEST(ReceiveFirst, ATraceCommLabWroteKeepsItsReceivesOnTheirStreams) {
  // CommLab's own traces (commlab_graph_name in the metadata) place every node on the stream the
  // trace names: a receive posted first holds stream 1 until its message arrives, so the rank's
  // all-reduce on stream 1 waits for it and the 2-rank case is a deadlock error.
  const std::vector<Msg> ours = {attr_s("commlab_graph_name", "g"),
                                 attr_s("commlab_comm_size", "input")};
  const Graph g = parse({trace_file({recv(1, 1, 0, 7), all_reduce(2)}, ours),
                         trace_file({all_reduce(1), send(2, 1, 0, 7).data(1)}, ours)});
  try {
    replay(g, 2);
    FAIL() << "a receive holding its stream let the all-reduce behind it run";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("deadlocks")) << e.what();
  }
}

TEST(ReceiveFirst, TheRuleTravelsThroughCommLabsWriterAndABadValueIsAnError) {
  // A third-party trace read, written by CommLab and read again keeps its receives off streams
  // (commlab_posted_receives in GlobalMetadata); a CommLab graph keeps them on theirs.
  const Graph third = parse({trace_file({recv(1, 1, 0, 7), all_reduce(2)}),
                             trace_file({all_reduce(1), send(2, 1, 0, 7).data(1)})});
  EXPECT_FALSE(third.receives_hold_stream);
  for (bool hold : {false, true}) {
    Graph g = third;
    g.receives_hold_stream = hold;
    std::string groups;
    const std::vector<std::string> files = encode_chakra_trace(g, &groups);
    EXPECT_EQ(parse(files, groups).receives_hold_stream, hold);
  }
  const std::vector<Msg> bad = {attr_s("commlab_posted_receives", "yes")};
  try {
    parse({trace_file({compute(1)}, bad)});
    FAIL() << "a string commlab_posted_receives was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("commlab_posted_receives: expected bool_val"));
  }
}

}  // namespace
}  // namespace commlab::workload
