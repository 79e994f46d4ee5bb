// The time plane of a collective on the flat alpha-beta network, against closed forms.
#include <gtest/gtest.h>

#include "collective/algorithms.h"
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
  const uint64_t count = 8 << 20;  // 32 MiB: bandwidth-bound, alpha is 0.1% of a step
  ExecutorOptions opts;
  for (int s : {1, 4, 7}) {
    double base = ring_time(n, count, opts, 0, true);
    double skipped = ring_time(n, count, opts, s, true);
    // Every step costs the same, so T(0)/T(s) = 2(n-1) / (2(n-1) - s): n=8, s=4 -> 1.4.
    EXPECT_NEAR(base / skipped, 2.0 * (n - 1) / (2.0 * (n - 1) - s), 1e-9) << "s=" << s;
  }
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

}  // namespace
}  // namespace commlab
