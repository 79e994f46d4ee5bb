// How a rank issues communication (SchedulerOptions::comm_issue). overlap, the default: every
// communication stream runs its own node, so independent collectives on different streams are in
// flight together. astra: ASTRA-sim's rule (HardwareResource at commit 518bd51): one collective
// or send in flight per rank, the smallest node id first among those ready, and a receive never
// takes that slot.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "network/analytical.h"
#include "support/error_of.h"
#include "topology/topology.h"
#include "workload/scheduler.h"

namespace commlab::workload {
namespace {

using commlab::testing::error_of;

constexpr double kB = 53.6870912e9;  // bytes/s per rank
constexpr double kAlpha = 1e-6;
constexpr uint64_t kSmall = 4 << 10;  // latency-bound: the bandwidth term is 2% of a step

Node all_reduce(uint64_t id, int group, uint8_t stream) {
  Node n;
  n.id = id;
  n.kind = NodeKind::kCollective;
  n.op = CommOp::kAllReduce;
  n.bytes = kSmall;
  n.group_or_peer = group;
  n.stream = stream;
  return n;
}

double run(const Graph& g, CommIssue issue) {
  AnalyticalBackend backend(make_flat(g.rank_count(), kB, kAlpha));
  SchedulerOptions o;
  o.comm_issue = issue;
  return schedule(g, backend, o).iteration_s;
}

// Rank 0 is in groups {0, 1} and {0, 2} and calls an all-reduce on each, on streams 1 and 2,
// with no dependency between them; ranks 1 and 2 call theirs at once.
Graph two_independent_collectives() {
  Graph g;
  g.ranks.resize(3);
  g.groups = {{0, 1}, {0, 2}};
  g.ranks[0].add(all_reduce(1, 0, 1));
  g.ranks[0].add(all_reduce(2, 1, 2));
  g.ranks[1].add(all_reduce(1, 0, 1));
  g.ranks[2].add(all_reduce(1, 1, 1));
  return g;
}

// One all-reduce of group {0, 1} on the same 3-rank network.
double one_collective() {
  Graph g;
  g.ranks.resize(3);
  g.groups = {{0, 1}};
  g.ranks[0].add(all_reduce(1, 0, 1));
  g.ranks[1].add(all_reduce(1, 0, 1));
  return run(g, CommIssue::kOverlap);
}

TEST(CommIssue, AstraSerialisesTwoIndependentCollectivesOfARankAndOverlapRunsThemTogether) {
  const Graph g = two_independent_collectives();
  const double t1 = one_collective();
  // astra: rank 0 runs one, then the other: T = T1 + T1 (the groups are alike on a flat switch).
  EXPECT_NEAR(run(g, CommIssue::kAstra), 2 * t1, 1e-12);
  // overlap: both start at 0 and share rank 0's link; latency-bound, so T = T1 up to the doubled
  // bandwidth term (2 x 2 KiB / B per step, 4% of T1): T1 <= T < 1.1 T1.
  const double overlap = run(g, CommIssue::kOverlap);
  EXPECT_GE(overlap, t1);
  EXPECT_LT(overlap, 1.1 * t1);
}

TEST(CommIssue, AstraTakesTheSmallestNodeIdFirstAmongReadyCollectives) {
  // Rank 0's collective on group {0, 2} has the smaller id (1), though it is listed second:
  // ASTRA-sim issues it first, so group {0, 2} ends at T1 and group {0, 1} at 2 T1.
  Graph g;
  g.ranks.resize(3);
  g.groups = {{0, 1}, {0, 2}};
  g.ranks[0].add(all_reduce(2, 0, 1));
  g.ranks[0].add(all_reduce(1, 1, 1));
  g.ranks[1].add(all_reduce(1, 0, 1));
  g.ranks[2].add(all_reduce(1, 1, 1));
  AnalyticalBackend backend(make_flat(3, kB, kAlpha));
  SchedulerOptions o;
  o.comm_issue = CommIssue::kAstra;
  o.timeline_ranks = {1, 2};
  const ScheduleResult r = schedule(g, backend, o);
  const double t1 = one_collective();
  EXPECT_NEAR(r.timelines[1][0].end_s, t1, 1e-12);      // rank 2: group {0, 2} first
  EXPECT_NEAR(r.timelines[0][0].end_s, 2 * t1, 1e-12);  // rank 1: group {0, 1} second
}

Node compute(uint64_t id, double seconds) {
  Node n;
  n.id = id;
  n.duration_s = seconds;
  return n;
}

TEST(CommIssue, AstraTakesTheSmallestIdAmongTheNodesOneNodeReleases) {
  // One rank: node 1 releases node 9 (listed first, 1 s) and node 5 (listed second, 2 s), and
  // node 5 releases node 7 (3 s). ASTRA-sim resolves every child of node 1, then issues the
  // smallest id: 5 runs [1, 3], then 7 and 9 are ready and 7 (the smaller) runs [3, 6], 9 runs
  // [6, 7]. Starting the first child released (9) at once would run 9 [1, 2], 5 [2, 4], 7 [4, 7]:
  // the same end, so the starts are what tells the two apart.
  Graph g;
  g.ranks.resize(1);
  const uint32_t root = g.ranks[0].add(compute(1, 1));
  const uint32_t nine = g.ranks[0].add(compute(9, 1), {root});
  const uint32_t five = g.ranks[0].add(compute(5, 2), {root});
  const uint32_t seven = g.ranks[0].add(compute(7, 3), {five});
  AnalyticalBackend backend(make_flat(1, kB, kAlpha));
  SchedulerOptions o;
  o.comm_issue = CommIssue::kAstra;
  o.timeline_ranks = {0};
  const ScheduleResult r = schedule(g, backend, o);
  auto start_of = [&](uint32_t v) {
    for (const TimelineEntry& e : r.timelines[0])
      if (e.node == v) return e.start_s;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(start_of(five), 1);
  EXPECT_DOUBLE_EQ(start_of(seven), 3);
  EXPECT_DOUBLE_EQ(start_of(nine), 6);
  EXPECT_DOUBLE_EQ(r.iteration_s, 7);
  // overlap keeps the order nodes became ready in: 9 (released first) runs [1, 2].
  o.comm_issue = CommIssue::kOverlap;
  const ScheduleResult fifo = schedule(g, backend, o);
  for (const TimelineEntry& e : fifo.timelines[0])
    if (e.node == nine) EXPECT_DOUBLE_EQ(e.start_s, 1);
}

TEST(CommIssue, AReceiveNeverHoldsTheSlotSoAReceiveFirstGraphCompletes) {
  // Rank 0: a receive (no dependency), then an all-reduce; rank 1 sends after its all-reduce.
  // With the receive holding the slot this is a deadlock; ASTRA-sim and astra finish it at
  // T = all-reduce + message.
  Graph g;
  g.ranks.resize(2);
  g.groups = {{0, 1}};
  Node recv;
  recv.id = 1;
  recv.kind = NodeKind::kRecv;
  recv.group_or_peer = 1;
  recv.bytes = kSmall;
  recv.stream = 1;
  g.ranks[0].add(recv);
  g.ranks[0].add(all_reduce(2, 0, 1));
  const uint32_t ar = g.ranks[1].add(all_reduce(1, 0, 1));
  Node send = recv;
  send.id = 2;
  send.kind = NodeKind::kSend;
  send.group_or_peer = 0;
  g.ranks[1].add(send, {ar});
  ASSERT_TRUE(g.receives_hold_stream);  // CommLab's own graph: overlap keeps it on its stream
  EXPECT_THAT(error_of([&] { run(g, CommIssue::kOverlap); }), ::testing::HasSubstr("deadlocks"));
  Graph message;  // the message alone, from rank 0 to rank 1 (alike on a flat switch)
  message.ranks.resize(2);
  send.group_or_peer = 1;
  recv.group_or_peer = 0;
  message.ranks[0].add(send);
  message.ranks[1].add(recv);
  const double m = run(message, CommIssue::kOverlap);
  Graph pair;
  pair.ranks.resize(2);
  pair.groups = {{0, 1}};
  pair.ranks[0].add(all_reduce(1, 0, 1));
  pair.ranks[1].add(all_reduce(1, 0, 1));
  const double a = run(pair, CommIssue::kOverlap);
  EXPECT_NEAR(run(g, CommIssue::kAstra), a + m, 1e-12);
}

TEST(CommIssue, NamesRoundTripAndAnUnknownOneIsRefused) {
  for (CommIssue issue : {CommIssue::kOverlap, CommIssue::kAstra})
    EXPECT_EQ(parse_comm_issue(comm_issue_name(issue)), issue);
  EXPECT_EQ(std::string(comm_issue_name(CommIssue::kAstra)), "astra");
  EXPECT_EQ(error_of([] { parse_comm_issue("serial"); }),
            "unknown communication issue mode 'serial' (expected overlap or astra)");
}

}  // namespace
}  // namespace commlab::workload
