// The analytical backend against closed forms of the alpha-beta model.
#include "network/analytical.h"

#include <gtest/gtest.h>

#include <vector>

#include "topology/builders.h"
#include "topology/presets.h"

namespace commlab {
namespace {

constexpr double kRel = 1e-12;

TEST(Analytical, OneFlowOverOneLink) {
  Topology t("pair");
  int a = t.add_node(NodeKind::kGpu, "a");
  int b = t.add_node(NodeKind::kGpu, "b");
  const double bw = 12.5e9, lat = 3e-6;
  t.add_duplex(a, b, bw, lat);
  AnalyticalBackend backend(std::move(t));
  const uint64_t size = 1 << 20;
  std::vector<Flow> flows{{.src = 0, .dst = 1, .bytes = size, .id = 1}};
  StepResult r = backend.time_step(flows);
  // time = latency + size / bandwidth
  const double expected = lat + size / bw;
  EXPECT_NEAR(r.flows[0].finish_s, expected, kRel * expected);
  EXPECT_DOUBLE_EQ(r.duration_s, r.flows[0].finish_s);
}

TEST(Analytical, TwoFlowsSharingALinkGetHalfEach) {
  const double bw = 10e9, alpha = 2e-6;
  AnalyticalBackend backend(make_flat(3, bw, alpha));
  const uint64_t size = 8 << 20;
  // rank 0 sends to 1 and 2 at once: both share rank 0's egress link
  std::vector<Flow> flows{{0, 1, size, 1}, {0, 2, size, 2}};
  StepResult r = backend.time_step(flows);
  // each gets bw / 2: time = alpha + size / (bw / 2)
  const double expected = alpha + size / (bw / 2);
  for (const FlowResult& f : r.flows) EXPECT_NEAR(f.finish_s, expected, kRel * expected);
}

TEST(Analytical, RingAllReduceMatchesAlphaBeta) {
  for (int n : {2, 7, 64}) {
    const double bw = 50e9, alpha = 5e-6;
    const uint64_t total = uint64_t{64} << 20;
    AnalyticalBackend backend(make_flat(n, bw, alpha));
    const uint64_t chunk = total / n;
    std::vector<Flow> step;
    for (int r = 0; r < n; ++r) step.push_back({r, (r + 1) % n, chunk, static_cast<uint64_t>(r)});
    double time = 0;
    for (int s = 0; s < 2 * (n - 1); ++s) time += backend.time_step(step).duration_s;
    // ring all-reduce: 2(N-1)(alpha + S/(N B)) with S/N = chunk
    const double expected = 2.0 * (n - 1) * (alpha + chunk / bw);
    EXPECT_NEAR(time, expected, kRel * expected) << "n=" << n;
    EXPECT_EQ(backend.stats().patterns_built, 1u);  // every step reuses the first's pattern
  }
}

TEST(Analytical, UnroutedAndEmptyFlowsTakeOnlyLatency) {
  AnalyticalBackend backend(make_flat(4, 1e9, 1e-6));
  std::vector<Flow> flows{{2, 2, 1000, 0}, {0, 1, 0, 1}};
  StepResult r = backend.time_step(flows);
  EXPECT_EQ(r.flows[0].finish_s, 0.0);          // src == dst: nothing crosses the network
  EXPECT_DOUBLE_EQ(r.flows[1].finish_s, 1e-6);  // zero bytes still pay the latency
}

TEST(Analytical, BadTopologiesAreRejectedWithTheReason) {
  Topology zero("zero");
  int a = zero.add_node(NodeKind::kGpu, "a"), b = zero.add_node(NodeKind::kGpu, "b");
  zero.add_duplex(a, b, 0.0, 1e-6);
  try {
    AnalyticalBackend backend(std::move(zero));
    FAIL() << "zero bandwidth accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "topology 'zero': link a->b: bandwidth must be a positive finite number");
  }
  Topology split("split");
  split.add_node(NodeKind::kGpu, "a");
  split.add_node(NodeKind::kGpu, "b");
  try {
    AnalyticalBackend backend(std::move(split));
    FAIL() << "disconnected graph accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "topology 'split': the graph is disconnected: b cannot be reached from a");
  }
}

TEST(Analytical, FatTreeRingWithoutOversubscriptionRunsAtLineRate) {
  // k=4 fat-tree, 100 Gb/s, 1 us per hop: a ring step's flows never share a link (ranks r and
  // r+1 sit on one edge switch or cross up and down on disjoint links), so each step takes
  // hops * 1 us + chunk / 12.5 GB/s.
  AnalyticalBackend backend(cluster_from_spec("fattree:k=4,gbps=100,hop_us=1"));
  const int n = 16;
  const uint64_t chunk = 1 << 20;
  std::vector<Flow> step;
  for (int r = 0; r < n; ++r) step.push_back({r, (r + 1) % n, chunk, static_cast<uint64_t>(r)});
  StepResult res = backend.time_step(step);
  // the longest flow crosses pods: 6 hops
  EXPECT_NEAR(res.duration_s, 6e-6 + chunk / 12.5e9, 1e-15);
  EXPECT_NEAR(res.flows[0].finish_s, 2e-6 + chunk / 12.5e9, 1e-15);  // 0 -> 1 under one edge
}

}  // namespace
}  // namespace commlab
