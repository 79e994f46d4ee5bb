// The graph engine against hand-built graphs with analytic answers: overlap, chains,
// rendezvous, DDP overlap of a DP all-reduce with the remaining backward, send/recv, the
// techniques, the critical path and the errors.
#include "workload/scheduler.h"

#include <gtest/gtest.h>

#include <limits>
#include <span>

#include "network/analytical.h"
#include "network/packet_backend.h"
#include "support/error_of.h"
#include "topology/builders.h"
#include "topology/topology.h"
#include "workload/replay_arena.h"
#include "workload/scheduler_state.h"

namespace commlab::workload {
namespace {

using commlab::testing::error_of;

constexpr double kB = 25e9;      // bytes/s per rank on the flat network
constexpr double kAlpha = 5e-6;  // s per hop

Node compute(uint64_t id, double seconds, uint8_t stream = kComputeStream) {
  Node n;
  n.id = id;
  n.kind = NodeKind::kCompute;
  n.duration_s = seconds;
  n.stream = stream;
  return n;
}

Node collective(uint64_t id, CommOp op, uint64_t bytes, int group, CommKind kind,
                uint8_t stream = 1) {
  Node n;
  n.id = id;
  n.kind = NodeKind::kCollective;
  n.op = op;
  n.bytes = bytes;
  n.group_or_peer = group;
  n.comm = kind;
  n.stream = stream;
  return n;
}

Node p2p(uint64_t id, NodeKind kind, int peer, uint64_t bytes, int tag = 0) {
  Node n;
  n.id = id;
  n.kind = kind;
  n.group_or_peer = peer;
  n.bytes = bytes;
  n.tag = tag;
  n.comm = CommKind::kPp;
  n.stream = 1;
  return n;
}

Graph world(int ranks) {
  Graph g;
  g.ranks.resize(ranks);
  g.groups.emplace_back();
  for (int r = 0; r < ranks; ++r) g.groups[0].push_back(r);
  return g;
}

SchedulerOptions bulk_options() {
  SchedulerOptions o;
  o.pipeline.slice_bytes = 0;  // bulk-synchronous ring steps: the textbook alpha-beta forms
  return o;
}

ScheduleResult run(const Graph& g, const SchedulerOptions& o = bulk_options()) {
  AnalyticalBackend backend(make_flat(g.rank_count(), kB, kAlpha));
  return schedule(g, backend, o);
}

// Ring all-reduce of S bytes on n ranks: T = 2(n-1)(alpha + S/(n B)).
double ring_allreduce(int n, double bytes) {
  return 2.0 * (n - 1) * (kAlpha + bytes / (n * kB));
}

TEST(Scheduler, IndependentNodesOnDifferentStreamsOverlap) {
  Graph g = world(1);
  g.ranks[0].add(compute(1, 3e-3, 0));
  g.ranks[0].add(compute(2, 5e-3, 1));
  ScheduleResult r = run(g);
  // Both start at 0 on their own streams: T = max(3, 5) ms.
  EXPECT_DOUBLE_EQ(r.iteration_s, 5e-3);
  EXPECT_DOUBLE_EQ(r.stream_busy[0][0].busy_s, 3e-3);
  EXPECT_DOUBLE_EQ(r.stream_busy[0][1].busy_s, 5e-3);
}

TEST(Scheduler, AChainSerializesAndOneStreamRunsOneNodeAtATime) {
  Graph chain = world(1);
  uint32_t a = chain.ranks[0].add(compute(1, 3e-3, 0));
  chain.ranks[0].add(compute(2, 5e-3, 1), {a});
  // A dependency serializes across streams: T = 3 + 5 ms.
  EXPECT_DOUBLE_EQ(run(chain).iteration_s, 8e-3);

  Graph stream = world(1);
  stream.ranks[0].add(compute(1, 3e-3));
  stream.ranks[0].add(compute(2, 5e-3));
  ScheduleResult r = run(stream);
  // No dependency but one stream: still 3 + 5 ms, and the second node's critical predecessor is
  // the first (it waited for the stream).
  EXPECT_DOUBLE_EQ(r.iteration_s, 8e-3);
  ASSERT_EQ(r.critical_path.size(), 2u);
  EXPECT_EQ(r.critical_path[0].node, 0u);
  EXPECT_DOUBLE_EQ(r.critical_compute_s, 8e-3);
}

TEST(Scheduler, CollectiveWaitsForItsSlowestMemberAndIsTimedByThePlanner) {
  const int n = 4;
  const uint64_t bytes = 4 << 20;
  Graph g = world(n);
  for (int r = 0; r < n; ++r) {
    uint32_t c = g.ranks[r].add(compute(1, (r + 1) * 1e-3));
    g.ranks[r].add(collective(2, CommOp::kAllReduce, bytes, 0, CommKind::kDp), {c});
  }
  ScheduleResult r = run(g);
  // The all-reduce starts when rank 3 (4 ms) arrives: T = 4 ms + 2(n-1)(alpha + S/(nB)).
  const double t_ar = ring_allreduce(n, bytes);
  EXPECT_NEAR(r.iteration_s, 4e-3 + t_ar, 1e-12);
  EXPECT_EQ(r.collectives, 1u);
  // Rank 0 held its communication stream 3 ms waiting for rank 3.
  EXPECT_NEAR(r.stream_busy[0][1].wait_s, 3e-3, 1e-12);
  // The critical path runs through rank 3's compute, then the all-reduce.
  ASSERT_EQ(r.critical_path.size(), 2u);
  EXPECT_EQ(r.critical_path[0].rank, 3);
  EXPECT_NEAR(r.exposed_s[static_cast<int>(CommKind::kDp)], t_ar, 1e-12);
  EXPECT_NEAR(r.critical_compute_s + t_ar, r.iteration_s, 1e-12);
}

// Backward layer 1 (d1), then a DP all-reduce of its gradients on the communication stream while
// backward layer 2 (d2) runs; the optimizer step needs both. T = d1 + max(d2, T_ar).
Graph ddp_graph(int n, uint64_t bytes, double d1, double d2) {
  Graph g = world(n);
  for (int r = 0; r < n; ++r) {
    RankGraph& rg = g.ranks[r];
    uint32_t b1 = rg.add(compute(1, d1));
    uint32_t ar = rg.add(collective(2, CommOp::kAllReduce, bytes, 0, CommKind::kDp), {b1});
    uint32_t b2 = rg.add(compute(3, d2), {b1});
    rg.add(compute(4, 0.0), {ar, b2});
  }
  return g;
}

TEST(Scheduler, DpAllReduceIsHiddenExactlyWhenTheRemainingBackwardIsLonger) {
  const int n = 8;
  const uint64_t bytes = 8 << 20;
  const double t_ar = ring_allreduce(n, bytes);
  for (double d2 : {0.5 * t_ar, 0.99 * t_ar, 1.01 * t_ar, 2 * t_ar}) {
    ScheduleResult r = run(ddp_graph(n, bytes, 1e-3, d2));
    EXPECT_NEAR(r.iteration_s, 1e-3 + std::max(d2, t_ar), 1e-12) << d2 / t_ar;
    // Exposed DP time = max(0, T_ar - d2): zero once the backward covers it.
    const double exposed = r.exposed_s[static_cast<int>(CommKind::kDp)];
    if (d2 >= t_ar)
      EXPECT_EQ(exposed, 0.0) << d2 / t_ar;
    else
      EXPECT_NEAR(exposed, t_ar, 1e-12) << "the all-reduce is on the path: " << d2 / t_ar;
    EXPECT_NEAR(r.comm_total_s[static_cast<int>(CommKind::kDp)], t_ar, 1e-12);
  }
}

TEST(Scheduler, SendRecvIsOneFlowAndPairsInIssueOrder) {
  Graph g = world(2);
  const uint64_t bytes = 1 << 20;
  // Rank 0 sends two messages with the same tag; rank 1 receives them in order.
  uint32_t c = g.ranks[0].add(compute(1, 1e-3));
  uint32_t s1 = g.ranks[0].add(p2p(2, NodeKind::kSend, 1, bytes), {c});
  g.ranks[0].add(p2p(3, NodeKind::kSend, 1, 2 * bytes), {s1});
  uint32_t r1 = g.ranks[1].add(p2p(1, NodeKind::kRecv, 0, bytes));
  g.ranks[1].add(p2p(2, NodeKind::kRecv, 0, 2 * bytes), {r1});
  ScheduleResult r = run(g);
  // Flat network: one hop each way costs alpha per link (src -> switch -> dst) at rate B:
  // T = 1 ms + (L + S/B) + (L + 2S/B), with L the flow's path latency.
  AnalyticalBackend probe(make_flat(2, kB, kAlpha));
  Flow f{0, 1, bytes, 1};
  const double one = probe.time_step({&f, 1}).duration_s;
  f.bytes = 2 * bytes;
  const double two = probe.time_step({&f, 1}).duration_s;
  EXPECT_NEAR(r.iteration_s, 1e-3 + one + two, 1e-12);
  EXPECT_EQ(r.p2p, 2u);
  EXPECT_NEAR(r.exposed_s[static_cast<int>(CommKind::kPp)], one + two, 1e-12);
}

// Rank 0 computes c0 then sends S to rank 1; rank 1 computes c1, receives, computes 2 ms.
Graph late_or_early_recv(double c0, double c1, uint64_t bytes) {
  Graph g = world(2);
  const uint32_t a = g.ranks[0].add(compute(1, c0));
  g.ranks[0].add(p2p(2, NodeKind::kSend, 1, bytes), {a});
  const uint32_t b = g.ranks[1].add(compute(1, c1));
  const uint32_t recv = g.ranks[1].add(p2p(2, NodeKind::kRecv, 0, bytes), {b});
  g.ranks[1].add(compute(3, 2e-3), {recv});
  return g;
}

TEST(Scheduler, AnEagerSendDoesNotWaitForItsRecv) {
  const uint64_t bytes = 1 << 20;
  const double d = kAlpha + bytes / kB;  // one flow on the flat network: alpha + S/B
  SchedulerOptions eager = bulk_options(), rendezvous = bulk_options();
  rendezvous.p2p = P2pMode::kRendezvous;
  ASSERT_EQ(eager.p2p, P2pMode::kEager);  // the default
  // The recv is posted first (c1 = 0): it completes when the data arrives, at c0 + d, and the
  // critical path counts the transfer once: T = c0 + d + 2 ms under both semantics.
  for (const SchedulerOptions& o : {eager, rendezvous}) {
    const ScheduleResult r = run(late_or_early_recv(1e-3, 0, bytes), o);
    EXPECT_NEAR(r.iteration_s, 1e-3 + d + 2e-3, 1e-12) << p2p_mode_name(o.p2p);
    EXPECT_NEAR(r.exposed_s[static_cast<int>(CommKind::kPp)], d, 1e-12);
    EXPECT_NEAR(r.critical_compute_s, 3e-3, 1e-12);
    EXPECT_EQ(r.p2p, 1u);
  }
  // The recv is posted at 5 ms, after the data arrived at 1 ms + d: eager, the send ends at
  // 1 ms + d and the recv takes no time, T = 5 ms + 2 ms; rendezvous, the send waits for the
  // recv and both move the data from 5 ms: T = 5 ms + d + 2 ms.
  const ScheduleResult e = run(late_or_early_recv(1e-3, 5e-3, bytes), eager);
  EXPECT_NEAR(e.iteration_s, 7e-3, 1e-12);
  EXPECT_NEAR(e.stream_busy[0][1].busy_s, d, 1e-12);  // the send: its flow, no waiting
  EXPECT_EQ(e.stream_busy[0][1].wait_s, 0.0);
  EXPECT_EQ(e.exposed_s[static_cast<int>(CommKind::kPp)], 0.0);
  const ScheduleResult z = run(late_or_early_recv(1e-3, 5e-3, bytes), rendezvous);
  EXPECT_NEAR(z.iteration_s, 7e-3 + d, 1e-12);
  EXPECT_NEAR(z.stream_busy[0][1].wait_s, 4e-3, 1e-12);  // the send waited 1 ms -> 5 ms
}

// ASTRA-sim's examples/system/custom_collectives/custom_ring_allreduce_8npus_1MB: 8 ranks in a
// ring, each sends a 128 KiB chunk to its successor, then receives one from its predecessor, 14
// times (1 MiB all-reduce as 2 (n - 1) steps of 1 MiB / 8), every node depending on the last.
Graph custom_ring(int ranks, int steps, uint64_t bytes) {
  Graph g = world(ranks);
  for (int r = 0; r < ranks; ++r) {
    uint64_t id = 1;
    for (int i = 0; i < steps; ++i) {
      const uint32_t n = static_cast<uint32_t>(g.ranks[r].nodes.size());
      Node send = p2p(id++, NodeKind::kSend, (r + 1) % ranks, bytes, i);
      const uint32_t s = n == 0 ? g.ranks[r].add(send) : g.ranks[r].add(send, {n - 1});
      g.ranks[r].add(p2p(id++, NodeKind::kRecv, (r + ranks - 1) % ranks, bytes, i), {s});
    }
  }
  return g;
}

TEST(Scheduler, TheSendThenReceiveRingCompletesEagerlyAndDeadlocksUnderRendezvous) {
  const int n = 8, steps = 14;
  const uint64_t chunk = 128 << 10;
  const Graph g = custom_ring(n, steps, chunk);
  // Eager: every step the 8 sends leave together, one flow per ring link of the flat network,
  // and each recv finds its chunk arrived: T = 14 (alpha + 128 KiB / B).
  const ScheduleResult r = run(g);
  EXPECT_NEAR(r.iteration_s, steps * (kAlpha + chunk / kB), 1e-12);
  EXPECT_EQ(r.p2p, uint64_t{n} * steps);
  EXPECT_EQ(r.nodes, uint64_t{n} * steps * 2);
  // Rendezvous: every rank's first send waits for a recv its peer posts only after its own send.
  SchedulerOptions rendezvous = bulk_options();
  rendezvous.p2p = P2pMode::kRendezvous;
  const std::string what = error_of([&] { run(g, rendezvous); });
  EXPECT_NE(what.find("the workload deadlocks after 0 of 224 nodes: rank 0 node 1 (send to "
                      "rank 1, tag 0) waits for its peers"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("eager sends, the default, complete without it"), std::string::npos) << what;
}

TEST(Scheduler, CodecRatioAndSkipReduceShortenOnlyTheirKind) {
  const int n = 8;
  const uint64_t bytes = 8 << 20;
  Graph g = world(n);
  for (int r = 0; r < n; ++r) {
    uint32_t dp = g.ranks[r].add(collective(1, CommOp::kReduceScatter, bytes, 0, CommKind::kDp));
    g.ranks[r].add(collective(2, CommOp::kAllReduce, bytes, 0, CommKind::kTp), {dp});
  }
  SchedulerOptions o = bulk_options();
  o.techniques.ratio[static_cast<int>(CommKind::kDp)] = 0.5;
  o.techniques.dp_skip.skip = 3;
  o.techniques.dp_skip.min_elements = 0;
  ScheduleResult r = run(g, o);
  // DP reduce-scatter at half the bytes with s of its n-1 steps skipped:
  // (n-1-s)(alpha + 0.5 S/(nB)); the TP all-reduce is untouched: 2(n-1)(alpha + S/(nB)).
  const double dp = (n - 1 - 3) * (kAlpha + 0.5 * bytes / (n * kB));
  EXPECT_NEAR(r.comm_total_s[static_cast<int>(CommKind::kDp)], dp, 1e-12);
  EXPECT_NEAR(r.comm_total_s[static_cast<int>(CommKind::kTp)], ring_allreduce(n, bytes), 1e-12);
  EXPECT_NEAR(r.iteration_s, dp + ring_allreduce(n, bytes), 1e-12);
}

TEST(Scheduler, ConcurrentGroupsStartingTogetherShareTheNetworkAsOnePlan) {
  // Two TP groups of 4 on 8 ranks fire together: each rank's link carries only its own group's
  // ring, so on the flat (non-blocking) network the pair takes as long as one group alone.
  Graph g = world(8);
  g.groups = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  const uint64_t bytes = 1 << 20;
  for (int r = 0; r < 8; ++r)
    g.ranks[r].add(collective(1, CommOp::kAllReduce, bytes, r / 4, CommKind::kTp));
  ScheduleResult r = run(g);
  EXPECT_EQ(r.collectives, 2u);
  EXPECT_NEAR(r.iteration_s, ring_allreduce(4, bytes), 1e-12);
}

TEST(Scheduler, PacketBackendReplaysTheSameGraphAtItsStoreAndForwardCost) {
  // DDP overlap on a k=4 fat-tree (16 hosts, full bisection, uncongested), the all-reduce exposed
  // (d2 = 0.2 ms < T_ar). A ring step moves one chunk S = 4 MiB / 16 = 256 KiB per rank: the
  // analytical backend charges h L + S / B, the packet backend h L + (n + h - 1) w / B with
  // n = S / 4096 packets of w = 4096 + 64 bytes and h <= 6 hops. So the packet replay is slower,
  // but by at most (n + h - 1) w / S - 1 = 69 * 4160 / 262144 - 1 = 9.5%.
  const Topology topo = make_fat_tree(FatTreeParams{4, 100, 1.0});
  const Graph g = ddp_graph(16, 4 << 20, 1e-4, 2e-4);
  AnalyticalBackend analytical(topo);
  PacketBackend packet(topo);
  const ScheduleResult a = schedule(g, analytical, bulk_options());
  const ScheduleResult p = schedule(g, packet, bulk_options());
  const double bound = (64.0 + 6 - 1) * (4096 + 64) / 262144.0;
  EXPECT_GT(p.iteration_s, a.iteration_s);
  EXPECT_LT(p.iteration_s / a.iteration_s, bound);
  EXPECT_GT(a.exposed_s[static_cast<int>(CommKind::kDp)], 0.0);
  EXPECT_GT(p.exposed_s[static_cast<int>(CommKind::kDp)], 0.0);
}

TEST(Scheduler, MismatchedCollectivesAndDeadlocksAreClearErrors) {
  Graph mismatch = world(2);
  mismatch.ranks[0].add(collective(7, CommOp::kAllReduce, 1024, 0, CommKind::kDp));
  mismatch.ranks[1].add(collective(9, CommOp::kAllReduce, 2048, 0, CommKind::kDp));
  const std::string mismatched = error_of([&] { run(mismatch); });
  EXPECT_NE(mismatched.find("does not match"), std::string::npos) << mismatched;
  EXPECT_NE(mismatched.find("node 9"), std::string::npos) << mismatched;
  Graph lonely = world(2);
  lonely.ranks[1].add(p2p(5, NodeKind::kRecv, 0, 64));
  const std::string deadlocked = error_of([&] { run(lonely); });
  EXPECT_NE(deadlocked.find("deadlocks"), std::string::npos) << deadlocked;
  EXPECT_NE(deadlocked.find("rank 1 node 5"), std::string::npos) << deadlocked;
  Graph big = world(4);
  AnalyticalBackend small(make_flat(2, kB, kAlpha));
  EXPECT_THROW(schedule(big, small), std::invalid_argument);
}

TEST(Scheduler, ANanEndIsAnErrorNamingTheNode) {
  Graph g = world(1);
  Node n = compute(42, -1);  // roofline: NaN FLOPs give a NaN duration
  n.flops = std::numeric_limits<double>::quiet_NaN();
  g.ranks[0].add(n);
  const std::string what = error_of([&] { run(g); });
  EXPECT_NE(what.find("rank 0 node 42"), std::string::npos) << what;
  EXPECT_NE(what.find("NaN"), std::string::npos) << what;
}

// The event queue hands out one instant at a time in push order, and an event pushed at an
// instant already taken comes after it, before any later instant: the (time, sequence) order.
TEST(Scheduler, EventQueueTakesInstantsInTimeThenPushOrder) {
  detail::EventQueue q;
  const auto ev = [](uint32_t node) { return detail::Event{0, node, 0}; };
  q.push(2.0, ev(1));
  q.push(1.0, ev(2));
  q.push(2.0, ev(3));
  q.push(1.0, ev(4));
  std::vector<detail::Event> batch;
  const auto nodes = [&] {
    std::vector<uint32_t> out;
    for (const detail::Event& e : batch) out.push_back(e.node);
    return out;
  };
  EXPECT_EQ(q.take(batch), 1.0);
  EXPECT_EQ(nodes(), (std::vector<uint32_t>{2, 4}));
  q.push(1.0, ev(5));  // while instant 1 is processed
  q.push(2.0, ev(6));
  EXPECT_EQ(q.top_time(), 1.0);
  EXPECT_EQ(q.take(batch), 1.0);
  EXPECT_EQ(nodes(), (std::vector<uint32_t>{5}));
  EXPECT_EQ(q.take(batch), 2.0);
  EXPECT_EQ(nodes(), (std::vector<uint32_t>{1, 3, 6}));
  EXPECT_TRUE(q.empty());
}

TEST(Scheduler, TimelineRecordsEveryNodeOfTheRequestedRanks) {
  ScheduleResult r = run(ddp_graph(4, 1 << 20, 1e-3, 2e-3));
  ASSERT_EQ(r.timelines.size(), 1u);
  ASSERT_EQ(r.timelines[0].size(), 4u);
  for (const TimelineEntry& e : r.timelines[0]) {
    EXPECT_LE(e.ready_s, e.start_s);
    EXPECT_LE(e.start_s, e.end_s);
    EXPECT_LE(e.end_s, r.iteration_s);
  }
}

TEST(Scheduler, EveryRankReportsTheStreamsOfTheBusiestRank) {
  // Rank 0 uses streams 0 and 2, rank 1 only stream 0: both report three streams, and a roofline
  // compute node (duration -1) runs max(flops / (peak x MFU), bytes / HBM) on its stream.
  Graph g = world(2);
  g.ranks[0].add(compute(1, 2e-3, 0));
  Node roofline = compute(2, -1, 2);
  roofline.flops = 1e12;
  roofline.mem_bytes = 0;
  g.ranks[0].add(roofline);
  g.ranks[1].add(compute(1, 1e-3, 0));
  const SchedulerOptions o = bulk_options();
  ScheduleResult r = run(g, o);
  const double roof = o.compute.time(1e12, 0);
  ASSERT_GT(roof, 0);
  ASSERT_EQ(r.stream_busy.size(), 2u);
  ASSERT_EQ(r.stream_busy[0].size(), 3u);
  ASSERT_EQ(r.stream_busy[1].size(), 3u);
  EXPECT_DOUBLE_EQ(r.stream_busy[0][2].busy_s, roof);
  EXPECT_DOUBLE_EQ(r.stream_busy[1][0].busy_s, 1e-3);
  EXPECT_DOUBLE_EQ(r.stream_busy[1][2].busy_s, 0);
  EXPECT_DOUBLE_EQ(r.iteration_s, std::max(2e-3, roof));
}

TEST(Scheduler, ReplayArenaSpansAreAlignedAndApartAcrossChunks) {
  detail::ReplayArena arena;
  std::vector<std::span<uint32_t>> spans;
  // 3 small spans, one larger than a chunk (32 MiB), then small ones again in a new chunk.
  for (size_t n : {size_t{5}, size_t{0}, size_t{1000}, size_t{10} << 20, size_t{7}, size_t{3}})
    spans.push_back(arena.take<uint32_t>(n));
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(spans[i].data()) % 16, 0u) << i;
    for (uint32_t& x : spans[i]) x = static_cast<uint32_t>(i);
  }
  for (size_t i = 0; i < spans.size(); ++i)
    for (uint32_t x : spans[i]) ASSERT_EQ(x, i) << "span " << i << " was overwritten";
}

TEST(Scheduler, P2pModeNamesRoundTripAndAnUnknownOneIsRefused) {
  for (P2pMode mode : {P2pMode::kEager, P2pMode::kRendezvous})
    EXPECT_EQ(parse_p2p_mode(p2p_mode_name(mode)), mode);
  EXPECT_EQ(error_of([] { parse_p2p_mode("lazy"); }),
            "unknown point-to-point mode 'lazy' (expected eager or rendezvous)");
}

}  // namespace
}  // namespace commlab::workload
