// Time-to-accuracy statistics (scenario/run/tta_stats.h) on inputs whose answers are worked out by
// hand: the paired log-t interval of the speedup, its censoring rule, the censored median with its
// order-statistic interval, the paired accuracy difference, and the smoothed crossing.
#include "scenario/run/tta_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "scenario/run/seed_stats.h"

namespace commlab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Baseline times = ratio * arm times, so the per-seed speedups are exactly the ratios.
std::vector<double> times_with_ratios(const std::vector<double>& arm,
                                      const std::vector<double>& ratio) {
  std::vector<double> base;
  for (size_t k = 0; k < arm.size(); ++k) base.push_back(ratio[k] * arm[k]);
  return base;
}

TEST(TtaStats, PairedLogTIntervalOfKnownRatios) {
  const std::vector<double> arm = {10, 20, 30, 40};
  const PairedSpeedup sp = paired_log_speedup(times_with_ratios(arm, {1.2, 1.3, 1.25, 1.1}), arm);
  EXPECT_EQ(sp.pairs, 4);
  // d = ln(1.2, 1.3, 1.25, 1.1) = (0.182322, 0.262364, 0.223144, 0.095310); mean d = 0.190785;
  // estimate = exp(0.190785) = (1.2 * 1.3 * 1.25 * 1.1)^(1/4) = 2.145^(1/4) = 1.210199.
  EXPECT_NEAR(sp.estimate, 1.210199, 1e-6);
  // s_d = sqrt(sum (d - mean)^2 / 3) = sqrt(0.0153577 / 3) = 0.0715489; half-width
  // t_{0.975,3} s_d / sqrt(4) = 3.182446 * 0.0715489 / 2 = 0.113850;
  // lo = exp(0.190785 - 0.113850) = exp(0.076935) = 1.079971.
  EXPECT_NEAR(sp.lo, 1.079971, 1e-6);
  // hi = exp(0.190785 + 0.113850) = exp(0.304635) = 1.356130.
  EXPECT_NEAR(sp.hi, 1.356130, 1e-6);
  // lo > 1: faster.
  EXPECT_EQ(sp.verdict, "faster");
  EXPECT_EQ(sp.method, "paired-log-t");
  // The inverse ratios (the arm is the baseline's inverse): estimate 1/1.210199, "slower".
  const PairedSpeedup inv = paired_log_speedup(arm, times_with_ratios(arm, {1.2, 1.3, 1.25, 1.1}));
  // exp(-mean d) = 1 / 1.210199 = 0.826310; hi = 1 / 1.079971 = 0.925951 < 1.
  EXPECT_NEAR(inv.estimate, 1 / 1.210199, 1e-6);
  EXPECT_NEAR(inv.hi, 1 / 1.079971, 1e-6);
  EXPECT_EQ(inv.verdict, "slower");
}

TEST(TtaStats, IdenticalArmsAreExactlyOneAndWithinNoise) {
  const std::vector<double> t = {0.021, 0.025, 0.030};
  const PairedSpeedup sp = paired_log_speedup(t, t);
  // d_k = ln(t_k / t_k) = 0 for every k: estimate exp(0) = 1 exactly, s_d = 0, interval [1, 1].
  EXPECT_EQ(sp.estimate, 1.0);
  EXPECT_EQ(sp.lo, 1.0);
  EXPECT_EQ(sp.hi, 1.0);
  // lo > 1 and hi < 1 both false at exactly 1: "within noise" (the documented zero-variance case).
  EXPECT_EQ(sp.verdict, "within noise");
  // A constant ratio 2 has s_d = 0 as well: interval [2, 2], lo > 1: faster.
  const PairedSpeedup twice = paired_log_speedup({2, 4, 6}, {1, 2, 3});
  // exp(ln 2) = 2 on both ends.
  EXPECT_NEAR(twice.lo, 2.0, 1e-12);
  EXPECT_NEAR(twice.hi, 2.0, 1e-12);
  EXPECT_EQ(twice.verdict, "faster");
}

TEST(TtaStats, FewerThanTwoPairsAreUndetermined) {
  // One pair both reached (ratio 2), one where neither did: pairs = 1, no interval.
  const PairedSpeedup sp = paired_log_speedup({2, kNaN}, {1, -1});
  EXPECT_EQ(sp.pairs, 1);
  // exp(ln 2) = 2 with no t interval (n - 1 = 0 degrees of freedom).
  EXPECT_NEAR(sp.estimate, 2.0, 1e-12);
  EXPECT_TRUE(std::isnan(sp.lo));
  EXPECT_EQ(sp.verdict, "undetermined");
  EXPECT_EQ(sp.both_missed, 1);
}

TEST(TtaStats, AMissedTargetDemotesTheVerdictItContradicts) {
  // Pairs 0-3 have the known ratios (faster, lo = 1.079971 > 1); on seed 4 the arm never reached
  // the target while the baseline did (+inf): faster is demoted to within noise.
  std::vector<double> arm = {10, 20, 30, 40, kInf};
  std::vector<double> base = times_with_ratios({10, 20, 30, 40}, {1.2, 1.3, 1.25, 1.1});
  base.push_back(50);
  const PairedSpeedup sp = paired_log_speedup(base, arm);
  // The interval is over the 4 pairs that both reached: the same 1.210199 [1.079971, 1.356130].
  EXPECT_EQ(sp.pairs, 4);
  EXPECT_NEAR(sp.lo, 1.079971, 1e-6);
  EXPECT_EQ(sp.arm_missed, 1);
  EXPECT_EQ(sp.baseline_missed, 0);
  EXPECT_EQ(sp.verdict, "within noise");
  // Symmetric: the slower arm (inverse ratios, hi = 0.925951 < 1) with a seed the baseline missed
  // but the arm reached: slower is demoted.
  std::vector<double> slow = times_with_ratios({10, 20, 30, 40}, {1.2, 1.3, 1.25, 1.1});
  slow.push_back(50);
  const PairedSpeedup sl = paired_log_speedup({10, 20, 30, 40, kNaN}, slow);
  EXPECT_EQ(sl.baseline_missed, 1);
  EXPECT_EQ(sl.verdict, "within noise");
  // A baseline miss does not demote a faster verdict (it only strengthens it).
  std::vector<double> base2 = times_with_ratios({10, 20, 30, 40}, {1.2, 1.3, 1.25, 1.1});
  base2.push_back(-1);
  EXPECT_EQ(paired_log_speedup(base2, {10, 20, 30, 40, 50}).verdict, "faster");
}

TEST(TtaStats, PairedDeltaOfFinalAccuracy) {
  // d = arm - base = (0.01, 0.00, 0.02) (the NaN pair is left out): mean 0.01.
  const PairedDelta d = paired_delta({0.80, 0.82, 0.84, 0.9}, {0.81, 0.82, 0.86, kNaN});
  EXPECT_EQ(d.pairs, 3);
  EXPECT_NEAR(d.estimate, 0.01, 1e-12);
  // s = sqrt((0 + 0.0001 + 0.0001) / 2) = 0.01; half-width 4.302653 * 0.01 / sqrt(3) = 0.024841.
  EXPECT_NEAR(d.hi - d.estimate, 0.024841, 1e-6);
  EXPECT_NEAR(d.estimate - d.lo, 0.024841, 1e-6);
}

TEST(TtaStats, OrderStatisticIntervalRanks) {
  double c = 0;
  // N = 8: j = 1 covers 1 - 2 * P(B = 0) = 1 - 2/256 = 0.992188; j = 2 would cover
  // 1 - 2 (1 + 8)/256 = 0.929688 < 0.95. Interval [x_(1), x_(8)].
  EXPECT_EQ(median_interval_rank(8, &c), 1);
  EXPECT_NEAR(c, 1 - 2.0 / 256, 1e-12);
  // N = 10: j = 2 covers 1 - 2 (1 + 10)/1024 = 0.978516; j = 3: 1 - 2 (1 + 10 + 45)/1024 =
  // 0.890625.
  EXPECT_EQ(median_interval_rank(10, &c), 2);
  EXPECT_NEAR(c, 1 - 22.0 / 1024, 1e-12);
  // N = 6: j = 1 covers 1 - 2/64 = 0.96875; N = 5: 1 - 2/32 = 0.9375 < 0.95, no interval.
  EXPECT_EQ(median_interval_rank(6, &c), 1);
  EXPECT_NEAR(c, 1 - 2.0 / 64, 1e-12);
  EXPECT_EQ(median_interval_rank(5, &c), 0);
  EXPECT_TRUE(std::isnan(c));
}

TEST(TtaStats, CensoredMedianAndItsInterval) {
  // N = 8 reached, sorted 1..8: median (x_(4) + x_(5)) / 2 = 4.5; interval [x_(1), x_(8)] = [1, 8].
  const CensoredTta all = censored_tta({5, 2, 8, 1, 7, 3, 6, 4});
  EXPECT_EQ(all.reached, 8);
  EXPECT_DOUBLE_EQ(all.estimate, 4.5);
  EXPECT_EQ(all.order_lo, 1);
  EXPECT_EQ(all.order_hi, 8);
  EXPECT_DOUBLE_EQ(all.lo, 1);
  EXPECT_DOUBLE_EQ(all.hi, 8);
  // The seed at 2 never reaches (+inf): sorted 1, 3, 4, 5, 6, 7, 8, +inf; median (5 + 6) / 2 = 5.5
  // (leaving the seed out would give the median of 7 values, 5: censoring moves it up); the upper
  // end x_(8) = +inf is unbounded.
  const CensoredTta miss = censored_tta({5, -1, 8, 1, 7, 3, 6, 4});
  EXPECT_EQ(miss.reached, 7);
  EXPECT_DOUBLE_EQ(miss.estimate, 5.5);
  EXPECT_DOUBLE_EQ(miss.lo, 1);
  EXPECT_TRUE(std::isinf(miss.hi));
  // N = 10, 1..10: median (5 + 6) / 2 = 5.5, interval [x_(2), x_(9)] = [2, 9].
  const CensoredTta ten = censored_tta({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(ten.estimate, 5.5);
  EXPECT_DOUBLE_EQ(ten.lo, 2);
  EXPECT_DOUBLE_EQ(ten.hi, 9);
}

TEST(TtaStats, CensoredMedianIsUnknownWhenHalfOrMoreMissed) {
  // N = 5 with 2 missed: sorted 1, 2, 3, inf, inf: median x_(3) = 3; N < 6: no interval.
  const CensoredTta two = censored_tta({3, kNaN, 1, kInf, 2});
  EXPECT_EQ(two.reached, 3);
  EXPECT_DOUBLE_EQ(two.estimate, 3);
  EXPECT_FALSE(two.has_interval());
  // N = 5 with 3 missed: x_(3) = +inf: no estimate.
  EXPECT_TRUE(std::isnan(censored_tta({1, -1, -1, -1, 2}).estimate));
  // N = 4 with 2 missed: (x_(2) + x_(3)) / 2 = (2 + inf) / 2: no estimate.
  EXPECT_TRUE(std::isnan(censored_tta({1, 2, -1, -1}).estimate));
  // One seed that reached: its value; none: NaN.
  EXPECT_DOUBLE_EQ(censored_tta({0.25}).estimate, 0.25);
  EXPECT_TRUE(std::isnan(censored_tta({}).estimate));
}

// Accuracy 0.5 + 0.01 k + 0.03 (-1)^k at evaluation k (iteration 10 k, time 0.1 k s): a linear
// trend crossing 0.8 at k = 30 (t = 3.0 s) with an alternating +-0.03 evaluation noise.
std::vector<EvalPoint> wiggly_line() {
  std::vector<EvalPoint> e;
  for (int k = 0; k <= 60; ++k)
    e.push_back({10 * k, 0.1 * k, 0.5 + 0.01 * k + 0.03 * (k % 2 ? -1 : 1)});
  return e;
}

TEST(TtaStats, SmoothedCrossingOfAWigglyLine) {
  const std::vector<EvalPoint> e = wiggly_line();
  // Single evaluations (window 1): the first k with 0.5 + 0.01 k + 0.03 (-1)^k >= 0.8 is k = 28
  // (0.81); interpolating from k = 27 (0.74): f = (0.8 - 0.74) / (0.81 - 0.74) = 6/7,
  // t = 2.7 + 0.1 * 6/7 = 2.785714 s: early by 0.21 s, the noise decides it.
  const SmoothedCrossing raw = smoothed_crossing(e, 0.8, 1);
  ASSERT_TRUE(raw.reached);
  EXPECT_NEAR(raw.time_s, 2.7 + 0.1 * 6 / 7, 1e-9);
  EXPECT_LT(raw.time_s, 2.8);
  // Window 5: the trend is averaged exactly and the wiggle to 0.03 (-1)^k / 5 = +-0.006:
  // s_k = 0.5 + 0.01 k + 0.006 (-1)^k; s_29 = 0.784 < 0.8 <= s_30 = 0.806;
  // f = (0.8 - 0.784) / (0.806 - 0.784) = 8/11, t = 2.9 + 0.1 * 8/11 = 2.972727 s.
  const SmoothedCrossing sm = smoothed_crossing(e, 0.8);
  ASSERT_TRUE(sm.reached);
  EXPECT_NEAR(sm.time_s, 2.9 + 0.1 * 8 / 11, 1e-9);
  // Tolerance against the analytic crossing t = 3.0: the residual wiggle 0.006 over the slope
  // 0.01 per evaluation is 0.6 evaluations = 0.06 s.
  EXPECT_NEAR(sm.time_s, 3.0, 0.06);
  // Iterations interpolate the same way: 290 + 10 * 8/11 = 297.2727.
  EXPECT_NEAR(sm.iterations, 290 + 10.0 * 8 / 11, 1e-9);
}

TEST(TtaStats, OneLuckyEvaluationDoesNotReachTheTarget) {
  // Flat at 0.70 with one evaluation at 0.90: the single-evaluation rule says reached; the
  // 5-point average peaks at 0.70 + 0.20 / 5 = 0.74 < 0.8.
  std::vector<EvalPoint> e;
  for (int k = 0; k < 20; ++k) e.push_back({k, 0.1 * k, k == 10 ? 0.9 : 0.7});
  EXPECT_TRUE(smoothed_crossing(e, 0.8, 1).reached);
  const SmoothedCrossing sm = smoothed_crossing(e, 0.8);
  EXPECT_FALSE(sm.reached);
  EXPECT_TRUE(std::isnan(sm.time_s));
  // Above the target from the first evaluation: its own time (no evaluation before it).
  const SmoothedCrossing first = smoothed_crossing({{5, 0.5, 0.9}, {10, 1.0, 0.95}}, 0.8);
  ASSERT_TRUE(first.reached);
  EXPECT_DOUBLE_EQ(first.time_s, 0.5);
  EXPECT_DOUBLE_EQ(first.iterations, 5);
  // A rising start 0.1, 0.5, 0.9 (times 1, 2, 3 s), target 0.4: s_0 = a_0 = 0.1 (the window
  // shrinks symmetrically at the start), s_1 = (0.1 + 0.5 + 0.9) / 3 = 0.5 >= 0.4;
  // f = (0.4 - 0.1) / (0.5 - 0.1) = 0.75, t = 1 + 0.75 * (2 - 1) = 1.75 s, not t_0 = 1 s.
  const SmoothedCrossing rise = smoothed_crossing({{1, 1, 0.1}, {2, 2, 0.5}, {3, 3, 0.9}}, 0.4);
  ASSERT_TRUE(rise.reached);
  EXPECT_NEAR(rise.time_s, 1.75, 1e-12);
  // No evaluations: not reached.
  EXPECT_FALSE(smoothed_crossing({}, 0.8).reached);
}

TEST(TtaStats, AnIterationWindowOfFourCadencesIsTheFiveEvaluationWindow) {
  // Evaluations every e = 10 iterations from t_0 = 0, W = 40: h_k = min(20, 10 k) covers
  // evaluations k - min(2, k) .. k + 2, the 5-evaluation window of smoothed_crossing exactly.
  const std::vector<EvalPoint> e = wiggly_line();
  const SmoothedCrossing by_evals = smoothed_crossing(e, 0.8);
  const SmoothedCrossing by_iterations = smoothed_crossing_over_iterations(e, 0.8, 40);
  ASSERT_TRUE(by_iterations.reached);
  EXPECT_DOUBLE_EQ(by_iterations.time_s, by_evals.time_s);
  EXPECT_DOUBLE_EQ(by_iterations.iterations, by_evals.iterations);
  // tta_crossing picks the window: 0 is the 5-evaluation window, W > 0 the iteration one. W = 10
  // (h = 5, less than the spacing) smooths nothing: the single-evaluation crossing 2.785714 s.
  EXPECT_DOUBLE_EQ(tta_crossing(e, 0.8, 0).time_s, by_evals.time_s);
  EXPECT_NEAR(tta_crossing(e, 0.8, 10).time_s, 2.7 + 0.1 * 6 / 7, 1e-9);
}

TEST(TtaStats, AnIterationWindowDoesNotMoveWithTheCadence) {
  // a(t) = 0.5 + 0.001 t crosses 0.8 at t = 300. Evaluated every e iterations from e, the
  // evaluations within [t - h, t + h] sit symmetrically around t, so their mean is a(t) exactly
  // and the interpolated crossing is t = 300 whatever e is (W = 40 iterations). With the
  // evaluation window the smoothing widens with e (4e iterations) but a line is still a line, so
  // the difference shows on a curve: a(t) = 1 - 0.5 exp(-t / 100) below.
  for (int every : {1, 3, 7, 10}) {
    std::vector<EvalPoint> line;
    for (int t = every; t <= 600; t += every) line.push_back({t, 1e-3 * t, 0.5 + 1e-3 * t});
    const SmoothedCrossing c = smoothed_crossing_over_iterations(line, 0.8, 40);
    ASSERT_TRUE(c.reached) << every;
    EXPECT_NEAR(c.iterations, 300, 1e-9) << every;
  }
  // a(t) = 1 - 0.5 exp(-t/100) crosses 0.8 at t* = 100 ln 2.5 = 91.63. A centred mean over
  // offsets j e (|j e| <= H) multiplies the exp term by f = mean of cosh(j e / 100) ~ 1 + mean of
  // (j e)^2 / 2e4, so the smoothed crossing is t* + 100 ln f:
  //   5 evaluations: e = 1: f = 1 + 10/1e5 (t = 91.64), e = 10: f = 1 + 1000/1e5 (t = 92.62);
  //   W = 40 iterations: e = 1: f = 1 + 5740/8.2e5 (t = 92.33), e = 10: f = 1.01 (t = 92.62).
  // Measured after interpolation: 91.64 / 92.72 (1.08 apart) against 92.33 / 92.72 (0.40 apart).
  auto curve = [](int every) {
    std::vector<EvalPoint> e;
    for (int t = every; t <= 600; t += every) e.push_back({t, 0, 1 - 0.5 * std::exp(-t / 100.0)});
    return e;
  };
  const double fixed_1 = smoothed_crossing_over_iterations(curve(1), 0.8, 40).iterations;
  const double fixed_10 = smoothed_crossing_over_iterations(curve(10), 0.8, 40).iterations;
  const double evals_1 = smoothed_crossing(curve(1), 0.8).iterations;
  const double evals_10 = smoothed_crossing(curve(10), 0.8).iterations;
  EXPECT_NEAR(fixed_1, 91.63 + 100 * std::log(1 + 5740 / 8.2e5), 0.05);
  EXPECT_NEAR(evals_1, 91.63 + 100 * std::log(1 + 10 / 1e5), 0.05);
  // The t = 10 crossings interpolate linearly between evaluations 10 apart on a convex curve:
  // a little later than the analytic 92.62.
  EXPECT_NEAR(fixed_10, evals_10, 1e-9);
  EXPECT_NEAR(fixed_10, 91.63 + 100 * std::log(1.01), 0.3);
  EXPECT_LT(std::abs(fixed_10 - fixed_1), 0.5 * std::abs(evals_10 - evals_1));
}

}  // namespace
}  // namespace commlab
