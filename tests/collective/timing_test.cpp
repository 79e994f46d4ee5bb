// The time plane of a collective on the flat alpha-beta network, against closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "collective/algorithms.h"
#include "collective/pipeline_graph.h"
#include "network/analytical.h"
#include "test_util.h"
#include "topology/topology.h"

namespace commlab {
namespace {

constexpr double kB = 25e9;      // bytes/s per rank
constexpr double kAlpha = 5e-6;  // s per step

double ring_time(int n, uint64_t count, const ExecutorOptions& base, int skip = 0,
                 bool time_only = false) {
  AnalyticalBackend backend(make_flat(n, kB, kAlpha));
  PlanRequest req;
  req.ranks = n;
  req.count = count;
  req.time_only = time_only;
  req.skip = SkipDecision{skip, 0};
  Plan plan = build_plan("ring", req);
  ExecutorOptions opts = base;
  opts.backend = &backend;
  if (time_only) return execute_plan(plan, {}, opts).time_s;
  return testing::run_on_test_data(plan, opts).report.time_s;
}

TEST(CollectiveTiming, RingAllReduceIsTwoNMinusOneAlphaPlusSOverNB) {
  for (int n : {2, 3, 8, 13}) {
    const uint64_t count = 1200 * n;  // S = 4 * count bytes, divisible into n chunks
    const double S = 4.0 * count;
    // Ring all-reduce on the alpha-beta model: T = 2(n-1)(alpha + S/(n B)).
    const double expected = 2.0 * (n - 1) * (kAlpha + S / (n * kB));
    EXPECT_NEAR(ring_time(n, count, {}), expected, expected * 1e-9) << "n=" << n;
    EXPECT_NEAR(ring_time(n, count, {}, 0, true), expected, expected * 1e-9)
        << "time-only, n=" << n;
  }
}

TEST(CollectiveTiming, SkipReduceSpeedupIsTwoNMinusOneOverTwoNMinusOneMinusS) {
  const int n = 8;
  const uint64_t count = 8 << 20;    // 32 MiB: bandwidth-bound, alpha is 0.1% of a step
  const double C = 4.0 * count / n;  // 4 MiB chunk: 2 loops of 2 MiB, 4 slices of 512 KiB each
  ExecutorOptions opts;
  for (int s : {1, 4, 7}) {
    double base = ring_time(n, count, opts, 0, true);
    double skipped = ring_time(n, count, opts, s, true);
    // Pipelined and bandwidth-bound (alpha < (K-1) b), a ring of D steps takes D C/B + L alpha
    // (docs/collectives.md), so T(0)/T(s) = (2(n-1) C/B + 2 alpha) / ((2(n-1)-s) C/B + 2 alpha).
    const double exact =
        (2 * (n - 1) * C / kB + 2 * kAlpha) / ((2 * (n - 1) - s) * C / kB + 2 * kAlpha);
    EXPECT_NEAR(base / skipped, exact, 1e-9) << "s=" << s;
    // ... which is the paper's 2(n-1) / (2(n-1) - s) (n=8, s=4 -> 1.4) up to the alpha terms,
    // 2 alpha / ((2(n-1)-s) C/B) < 0.5% here.
    const double paper = 2.0 * (n - 1) / (2.0 * (n - 1) - s);
    EXPECT_NEAR(base / skipped, paper, paper * 5e-3) << "s=" << s;
  }
}

TEST(CollectiveTiming, PipelinedRingFollowsTheSlicedPipelineFormula) {
  // D = 2(n-1) steps, per-rank chunk C = S/n, L = ceil(C / chunk_bytes) loops of K slices; with
  // M = L K slices of C/M bytes, b = C/(M B) and a = alpha + b (per slice):
  //   T = L * max(D K b + alpha, D a + (K-1) b).
  struct Case {
    int n;
    uint64_t count;
    PipelineConfig pipe;
  };
  const std::vector<Case> cases = {
      {8, 8u << 20, {}},                // C = 4 MiB: L = 2, K = 4, bandwidth-bound
      {4, 1u << 20, {}},                // C = 1 MiB: L = 1, K = 2
      {8, 1u << 20, {1024, 2048}},      // C = 512 KiB in 2 KiB loops of 1 KiB: latency-bound
      {13, 13u << 16, {64u << 10, 0}},  // no loops: K = ceil(256 KiB / 64 KiB) = 4
      {5, 5u << 18, {0, 0}},            // slicing off: the bulk-synchronous 2(n-1)(alpha + C/B)
  };
  for (const Case& c : cases) {
    AnalyticalBackend backend(make_flat(c.n, kB, kAlpha));
    PlanRequest req;
    req.ranks = c.n;
    req.count = c.count;
    req.time_only = true;
    req.pipeline = c.pipe;
    Plan plan = build_plan("ring", req);
    ExecutorOptions opts;
    opts.backend = &backend;
    CollectiveReport rep = execute_plan(plan, {}, opts);
    const double C = 4.0 * c.count / c.n, D = 2.0 * (c.n - 1);
    double L = 1, K = 1;
    if (c.pipe.slice_bytes > 0) {
      const double chunk = c.pipe.chunk_bytes ? static_cast<double>(c.pipe.chunk_bytes) : C;
      L = std::ceil(C / chunk);
      K = std::ceil(std::min(C, chunk) / c.pipe.slice_bytes);
    }
    const double b = C / (L * K) / kB, a = kAlpha + b;
    const double expected = L * std::max(D * K * b + kAlpha, D * a + (K - 1) * b);
    EXPECT_NEAR(rep.time_s, expected, expected * 1e-9) << "n=" << c.n << " count=" << c.count;
    EXPECT_EQ(rep.pipeline_loops, c.pipe.slice_bytes ? L : 1) << "n=" << c.n;
    EXPECT_EQ(rep.pipeline_slices, c.pipe.slice_bytes ? K : 1) << "n=" << c.n;
  }
}

TEST(CollectiveTiming, SixtyFourRanksLeaveTheFormulaWhereAChunkSpansTwoSlices) {
  // On 64 ranks the ring sits on 2(n-1)(alpha + C/B) up to 32 MiB and drops to
  // the bandwidth term plus one latency at 64 MiB. A rank's chunk C = S/64 is 512 KiB at 32 MiB:
  // one 512 KiB slice, nothing to pipeline (K = 1), the bulk-synchronous form. At 64 MiB C = 1 MiB
  // is K = 2 slices: while a rank sends its second slice (b = 512 KiB / B = 21 us) the first one's
  // alpha (5 us) has already passed, so the link never idles and T = D K b + alpha = D C/B + alpha.
  // At 512 ranks C = 128 KiB: one slice again, back on the formula.
  const int n = 64;
  const double D = 2.0 * (n - 1);
  const uint64_t count32 = (32u << 20) / 4, count64 = (64u << 20) / 4;
  const double C32 = 4.0 * count32 / n, C64 = 4.0 * count64 / n;
  EXPECT_NEAR(ring_time(n, count32, {}, 0, true), D * (kAlpha + C32 / kB), 1e-12);
  EXPECT_NEAR(ring_time(n, count64, {}, 0, true), D * C64 / kB + kAlpha, 1e-12);
  const int n512 = 512;
  const uint64_t count512 = (64u << 20) / 4;
  EXPECT_NEAR(ring_time(n512, count512, {}, 0, true),
              2.0 * (n512 - 1) * (kAlpha + 4.0 * count512 / n512 / kB), 1e-12);
}

TEST(CollectiveTiming, PipeliningNeverChangesTheData) {
  PlanRequest req;
  req.ranks = 5;
  req.count = 5000;
  Plan sliced = build_plan("ring", req);
  sliced.pipeline = {256, 1024};
  Plan bulk = sliced;
  bulk.pipeline = {0, 0};
  AnalyticalBackend backend(make_flat(5, kB, kAlpha));
  ExecutorOptions opts;
  opts.backend = &backend;
  auto a = testing::run_on_test_data(sliced, opts);
  auto b = testing::run_on_test_data(bulk, opts);
  EXPECT_EQ(a.outputs, b.outputs);
  EXPECT_EQ(a.report.bytes_on_wire, b.report.bytes_on_wire);
  // C = 4000 bytes per rank: 4 loops of 1024-byte chunks, each in 4 slices of 256 bytes.
  EXPECT_EQ(a.report.pipeline_loops, 4u);
  EXPECT_EQ(a.report.pipeline_slices, 4u);
}

TEST(CollectiveTiming, ReductionIsChargedAtMemoryBandwidth) {
  const int n = 4;
  const uint64_t count = 4000;
  ExecutorOptions opts;
  opts.reduce_bandwidth_Bps = 1e12;
  double with = ring_time(n, count, opts);
  double without = ring_time(n, count, {});
  // n-1 reduce-scatter steps each reduce one chunk of count/n FP32 elements: 3 x 4 bytes each
  // (read two, write one) at 1 TB/s.
  double expected = (n - 1) * 3.0 * 4.0 * (count / n) / 1e12;
  EXPECT_NEAR(with - without, expected, 1e-15);
}

TEST(CollectiveTiming, TwoFlowsFromOneRankShareItsLink) {
  AnalyticalBackend backend(make_flat(3, kB, kAlpha));
  std::vector<Flow> flows = {{0, 1, 1000000, 1}, {0, 2, 1000000, 2}};
  StepResult r = backend.time_step(flows);
  // Both leave rank 0 at B/2: alpha + 2 * bytes / B.
  EXPECT_NEAR(r.duration_s, kAlpha + 2e6 / kB, 1e-12);
}

TEST(CollectiveTiming, PipelineGraphChainsSlicesAsARingDoes) {
  // A 3-rank ring of two steps (r -> r+1), 1001 bytes per transfer, 2 loops of 2 slices (m = 4):
  // loop 1's graph holds pieces 2 and 3 of every transfer, [B p / m, B (p+1) / m).
  const int n = 3;
  std::vector<PipelinedStep> steps(2);
  for (int r = 0; r < n; ++r)
    for (PipelinedStep& s : steps) s.flows.push_back({r, (r + 1) % n, 1001, uint64_t(r)});
  steps[1].settle_s = 1e-6;
  const FlowGraph g = pipeline_graph(steps, n, 1, 2, 2);
  ASSERT_EQ(g.flows.size(), 2u * 2u * n);  // steps x slices x transfers, in that order
  EXPECT_NO_THROW(check_flow_graph(g));
  auto index = [&](int step, int slice, int rank) { return (step * 2 + slice) * n + rank; };
  EXPECT_EQ(g.flows[index(0, 0, 0)].bytes, 1001u * 3 / 4 - 1001u * 2 / 4);
  EXPECT_EQ(g.flows[index(0, 1, 0)].bytes, 1001u - 1001u * 3 / 4);
  // Step 0 waits for nothing but program order; on rank 2's connection slice 1 follows slice 0.
  EXPECT_EQ(g.needs_begin[index(0, 1, 2) + 1] - g.needs_begin[index(0, 1, 2)], 0u);
  EXPECT_EQ(g.after_sent[index(0, 0, 2)], -1);
  EXPECT_EQ(g.after_sent[index(0, 1, 2)], index(0, 0, 2));
  // Step 1, slice 1 of rank 2 forwards what rank 1 sent it in step 0's slice 1, and follows its
  // own step 1 slice 0 on the wire (the ring's one connection).
  const int i = index(1, 1, 2);
  ASSERT_EQ(g.needs_begin[i + 1] - g.needs_begin[i], 1u);
  EXPECT_EQ(g.needs[g.needs_begin[i]], uint32_t(index(0, 1, 1)));
  EXPECT_EQ(g.after_sent[i], index(1, 0, 2));
  EXPECT_EQ(g.after_sent[index(1, 0, 2)], index(0, 1, 2));  // step 1 after step 0's last slice
  EXPECT_DOUBLE_EQ(g.settle_s[i], 1e-6);
  // Every byte is sent once over the loops: the pieces of one transfer sum to its bytes.
  uint64_t total = 0;
  for (uint64_t loop = 0; loop < 2; ++loop) {
    const FlowGraph l = pipeline_graph(steps, n, loop, 2, 2);
    for (int k = 0; k < 2; ++k) total += l.flows[index(1, k, 2)].bytes;
  }
  EXPECT_EQ(total, 1001u);
  EXPECT_THROW(pipeline_graph(steps, 2, 0, 2, 2), std::logic_error);  // rank 2 of 2
}

}  // namespace
}  // namespace commlab
