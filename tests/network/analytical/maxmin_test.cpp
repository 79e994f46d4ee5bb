// Max-min fairness: a textbook example with known rates, and the fast solver against the plain
// reference algorithm on random traffic.
#include <gtest/gtest.h>

#include <vector>

#include "network/analytical.h"
#include "numeric/rng.h"
#include "topology/presets.h"

namespace commlab {
namespace {

// Three flows, two bottlenecks: A crosses L1 (10 GB/s) and L2 (4 GB/s), B only L1, C only L2.
// Max-min: L2 is tightest (4/2 = 2 each) so A = C = 2; L1 then leaves 10 - 2 = 8 for B.
Topology three_flow_network() {
  Topology t("three-flows");
  const double fast = 100e9;
  int x = t.add_node(NodeKind::kGpu, "x"), y = t.add_node(NodeKind::kGpu, "y");
  int z = t.add_node(NodeKind::kGpu, "z"), v = t.add_node(NodeKind::kGpu, "v");
  int w1 = t.add_node(NodeKind::kGpu, "w1"), w2 = t.add_node(NodeKind::kGpu, "w2");
  int s1 = t.add_node(NodeKind::kSwitch, "s1"), s2 = t.add_node(NodeKind::kSwitch, "s2");
  int s3 = t.add_node(NodeKind::kSwitch, "s3");
  for (int g : {x, y}) t.add_duplex(g, s1, fast, 0);
  t.add_duplex(s1, s2, 10e9, 0);  // L1
  t.add_duplex(s2, s3, 4e9, 0);   // L2
  for (int g : {z, v}) t.add_duplex(g, s2, fast, 0);
  for (int g : {w1, w2}) t.add_duplex(g, s3, fast, 0);
  return t;
}

TEST(MaxMin, ClassicThreeFlowRates) {
  AnalyticalBackend backend(three_flow_network());
  const uint64_t s = 8'000'000'000;  // 8 GB each
  // ranks: x0 y1 z2 v3 w1=4 w2=5; A = x->w1, B = y->z, C = v->w2
  std::vector<Flow> flows{{0, 4, s, 1}, {1, 2, s, 2}, {3, 5, s, 3}};
  StepResult r = backend.time_step(flows);
  // B at 8 GB/s: 1 s. A and C at 2 GB/s throughout (L2 still binds after B leaves): 4 s.
  EXPECT_NEAR(r.flows[1].finish_s, 1.0, 1e-12);
  EXPECT_NEAR(r.flows[0].finish_s, 4.0, 1e-12);
  EXPECT_NEAR(r.flows[2].finish_s, 4.0, 1e-12);
  // and the rates themselves, from the component solver
  std::vector<int> scratch(backend.topology().links().size(), -1);
  StepPattern p = build_step_pattern(
      backend.topology(), flows,
      [&](const Flow& f, std::vector<int>& out, std::vector<double>& fractions) {
        backend.router().append_path(f.src, f.dst, f.id, out);
        fractions.assign(out.size(), 1.0);
      },
      scratch);
  ASSERT_EQ(p.components.size(), 1u);
  const auto& c = p.components[0];
  std::vector<uint32_t> active{0, 1, 2};
  std::vector<double> rate(3);
  max_min_rates(c, active, rate);
  std::vector<double> by_flow(3);
  for (size_t k = 0; k < 3; ++k) by_flow[c.flows[k]] = rate[k];
  EXPECT_DOUBLE_EQ(by_flow[0], 2e9);
  EXPECT_DOUBLE_EQ(by_flow[1], 8e9);
  EXPECT_DOUBLE_EQ(by_flow[2], 2e9);
}

void compare_with_reference(const char* spec, int flows_per_step, uint64_t seed) {
  Topology t = cluster_from_spec(spec);
  AnalyticalBackend fast(t);
  Router router(t);
  CounterRng rng(seed, Purpose::kTraffic);
  uint64_t draw = 0;
  for (int step = 0; step < 6; ++step) {
    std::vector<Flow> flows;
    for (int i = 0; i < flows_per_step; ++i) {
      int src = static_cast<int>(rng.below(draw++, t.ranks()));
      int dst = static_cast<int>(rng.below(draw++, t.ranks()));
      // bytes from 0 to 4 MB, some equal so that ties and simultaneous finishes happen
      uint64_t bytes = (rng.below(draw++, 5)) << 20;
      flows.push_back({src, dst, bytes, rng.draw(draw++)});
    }
    StepResult want = time_step_reference(t, router, flows);
    for (int repeat = 0; repeat < 2; ++repeat) {  // second time: served by the caches
      StepResult got = fast.time_step(flows);
      ASSERT_EQ(got.flows.size(), want.flows.size());
      for (size_t i = 0; i < flows.size(); ++i)
        EXPECT_NEAR(got.flows[i].finish_s, want.flows[i].finish_s, 1e-9 * want.duration_s)
            << spec << " step " << step << " flow " << i;
      EXPECT_NEAR(got.duration_s, want.duration_s, 1e-9 * want.duration_s);
    }
  }
  EXPECT_GT(fast.stats().result_hits + fast.stats().pattern_hits, 0u);
}

TEST(MaxMin, FastSolverMatchesThePlainAlgorithm) {
  compare_with_reference("fattree:k=4", 24, 1);
  compare_with_reference("leafspine:servers=8,gpus_per_server=2,radix=8,oversub=3", 40, 2);
  compare_with_reference("flat:16", 30, 3);
  compare_with_reference("torus:dims=4x4", 20, 4);
}

TEST(MaxMin, NewBytesOnACachedPatternStayExact) {
  Topology t = cluster_from_spec("fattree:k=4");
  AnalyticalBackend fast(t);
  Router router(t);
  std::vector<Flow> flows;
  for (int r = 0; r < 16; ++r) flows.push_back({r, (r * 5 + 3) % 16, uint64_t(1) << 20, 7});
  for (int s = 0; s < 5; ++s) {
    for (int r = 0; r < 16; ++r) flows[r].bytes = uint64_t(1 + (r + s) % 4) << 18;
    StepResult want = time_step_reference(t, router, flows);
    StepResult got = fast.time_step(flows);
    for (size_t i = 0; i < flows.size(); ++i)
      EXPECT_NEAR(got.flows[i].finish_s, want.flows[i].finish_s, 1e-9 * want.duration_s);
  }
  EXPECT_EQ(fast.stats().patterns_built, 1u);
  // steps 0 and 4 repeat their bytes too (period 4): a whole-result hit
  EXPECT_EQ(fast.stats().pattern_hits + fast.stats().result_hits, 4u);
}

}  // namespace
}  // namespace commlab
