// Time-to-accuracy statistics (scenario/run/tta_stats.h) on inputs whose answers are worked out by
// hand: the paired log-t interval of the speedup, its censoring-aware estimate when a run missed,
// the censored median with its order-statistic interval, the paired accuracy difference, and the
// causal smoothed crossing.
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

TEST(TtaStats, APairBothMissedCountsAsATieAtZero) {
  // One pair both reached (ratio 2), one where neither did: both pairs count (pairs = pairs_run =
  // 2, censored 1), so the censoring-aware method applies. d = (ln 2, 0): Walsh averages 0,
  // ln 2 / 2, ln 2; the Hodges-Lehmann estimate is their median ln 2 / 2: exp = sqrt(2).
  const PairedSpeedup sp = paired_log_speedup({2, kNaN}, {1, -1});
  EXPECT_EQ(sp.pairs, 2);
  EXPECT_EQ(sp.pairs_run, 2);
  EXPECT_EQ(sp.censored, 1);
  EXPECT_EQ(sp.both_missed, 1);
  EXPECT_EQ(sp.method, kCensoredSpeedupMethod);
  EXPECT_NEAR(sp.estimate, std::sqrt(2.0), 1e-12);
  // n = 2 < 6: no signed-rank interval.
  EXPECT_TRUE(std::isnan(sp.lo));
  EXPECT_EQ(sp.verdict, "undetermined");
  // Every pair missed by both: nothing orders the arms, no estimate.
  const PairedSpeedup none = paired_log_speedup({kNaN, -1}, {kInf, kNaN});
  EXPECT_EQ(none.pairs, 2);
  EXPECT_TRUE(std::isnan(none.estimate));
  EXPECT_EQ(none.verdict, "undetermined");
}

// Six seeds with ratios base / arm = 1.1, 1.2, ..., 1.6 (arm times 10, 20, ..., 60).
std::vector<double> six_arm() {
  return {10, 20, 30, 40, 50, 60};
}
std::vector<double> six_base() {
  return times_with_ratios(six_arm(), {1.1, 1.2, 1.3, 1.4, 1.5, 1.6});
}

TEST(TtaStats, AnArmsMissLowersTheEstimate) {
  // Nothing missed: the paired log-t geometric mean (1.1 * 1.2 * ... * 1.6)^(1/6) = 1.339089.
  const PairedSpeedup all = paired_log_speedup(six_base(), six_arm());
  EXPECT_EQ(all.method, "paired-log-t");
  EXPECT_EQ(all.censored, 0);
  EXPECT_NEAR(all.estimate, 1.339089, 1e-6);
  // The arm misses the seed of ratio 1.6. Dropping that pair (the survivors-only mean) would give
  // (1.1 * 1.2 * 1.3 * 1.4 * 1.5)^(1/5) = 1.292252; ranked worst it counts against the arm.
  std::vector<double> arm = six_arm();
  arm[5] = kNaN;
  const PairedSpeedup miss = paired_log_speedup(six_base(), arm);
  EXPECT_EQ(miss.pairs, 6);
  EXPECT_EQ(miss.pairs_run, 6);
  EXPECT_EQ(miss.censored, 1);
  EXPECT_EQ(miss.arm_missed, 1);
  EXPECT_EQ(miss.method, kCensoredSpeedupMethod);
  // d = ln(1.1), ..., ln(1.5) and d_6 = -inf. Of the M = 21 Walsh averages 6 hold d_6 (-inf) and
  // sort first; the median W_(11) is the 5th smallest of the 15 among l_k = ln(1.1 .. 1.5):
  //   0.095310 (l1), 0.138816 (l1,l2), 0.178837 (l1,l3), 0.182322 (l2), 0.215891 (l1,l4), ...
  // so the estimate is exp((ln 1.1 + ln 1.4) / 2) = sqrt(1.54) = 1.240967.
  EXPECT_NEAR(miss.estimate, std::sqrt(1.1 * 1.4), 1e-12);
  EXPECT_LT(miss.estimate, 1.292252);
  // n = 6, no ties or zeros: exact, k = 1 (P(T+ <= 0) = 1/64 <= 0.025 < P(T+ <= 1) = 2/64):
  // [W_(1), W_(21)] = [-inf, ln 1.5]: speedup [0, 1.5], within noise.
  EXPECT_EQ(miss.lo, 0.0);
  EXPECT_NEAR(miss.hi, 1.5, 1e-12);
  EXPECT_EQ(miss.verdict, "within noise");
}

TEST(TtaStats, ABaselinesMissRaisesTheEstimate) {
  // The baseline misses the seed of ratio 1.1 (d_1 = +inf). Survivors only: (1.2 * ... *
  // 1.6)^(1/5) = 1.392813. Of the 21 Walsh averages the 6 holding d_1 sort last; the median W_(11)
  // is the 11th smallest of the 15 among ln(1.2 .. 1.6):
  //   0.182322, 0.222343, 0.259397, 0.262364, 0.293893, 0.299418, 0.326163, 0.333915, 0.336472,
  //   0.366184, 0.370969 = (ln 1.4 + ln 1.5) / 2: estimate sqrt(2.1) = 1.449138.
  std::vector<double> base = six_base();
  base[0] = kInf;
  const PairedSpeedup sp = paired_log_speedup(base, six_arm());
  EXPECT_EQ(sp.baseline_missed, 1);
  EXPECT_NEAR(sp.estimate, std::sqrt(1.4 * 1.5), 1e-12);
  EXPECT_GT(sp.estimate, 1.392813);
  // Every d > 0: T+ = 21, P(T+ >= 21) = 1/64, p = 2/64; k = 1: [W_(1), W_(21)] = [ln 1.2, +inf]:
  // speedup [1.2, +inf): faster.
  EXPECT_NEAR(sp.p_value, 2.0 / 64, 1e-12);
  EXPECT_NEAR(sp.lo, 1.2, 1e-12);
  EXPECT_TRUE(std::isinf(sp.hi));
  EXPECT_EQ(sp.verdict, "faster");
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
  // (0.81), at t = 2.8 s: early by 0.2 s against the trend's 3.0 s, the noise decides it.
  const SmoothedCrossing raw = smoothed_crossing(e, 0.8, 1);
  ASSERT_TRUE(raw.reached);
  EXPECT_NEAR(raw.time_s, 2.8, 1e-12);
  // Trailing window 5 (evaluations k-4..k): the trend averages to 0.5 + 0.01 (k - 2) and the
  // wiggle to 0.03 (-1)^k / 5 = +-0.006: s_k = 0.48 + 0.01 k + 0.006 (-1)^k;
  // s_30 = 0.786, s_31 = 0.784 < 0.8 <= s_32 = 0.806: the crossing is evaluation 32 itself,
  // t = 3.2 s, iteration 320 (the trend's 3.0 s plus the trailing lag of (5 - 1) / 2 evaluations).
  const SmoothedCrossing sm = smoothed_crossing(e, 0.8);
  ASSERT_TRUE(sm.reached);
  EXPECT_NEAR(sm.time_s, 3.2, 1e-12);
  EXPECT_DOUBLE_EQ(sm.iterations, 320);
}

TEST(TtaStats, OneLuckyEvaluationDoesNotReachTheTarget) {
  // Flat at 0.70 with one evaluation at 0.90: the single-evaluation rule says reached; the
  // trailing 5-point average peaks at 0.70 + 0.20 / 5 = 0.74 < 0.8.
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
  // A rising start 0.1, 0.5, 0.9 (times 1, 2, 3 s), target 0.4: s_0 = 0.1, s_1 = (0.1 + 0.5) / 2
  // = 0.3, s_2 = (0.1 + 0.5 + 0.9) / 3 = 0.5 >= 0.4: evaluation 2, t = 3 s.
  const SmoothedCrossing rise = smoothed_crossing({{1, 1, 0.1}, {2, 2, 0.5}, {3, 3, 0.9}}, 0.4);
  ASSERT_TRUE(rise.reached);
  EXPECT_DOUBLE_EQ(rise.time_s, 3);
  // No evaluations: not reached.
  EXPECT_FALSE(smoothed_crossing({}, 0.8).reached);
}

TEST(TtaStats, ACrossingIsNeverDatedBeforeTheEvaluationThatShowsIt) {
  // Accuracy 0.5 (with a +-0.02 wiggle) until evaluation k, 0.95 from k on (evaluations every 10
  // iterations, 0.01 s apart). Whatever the window and target, the crossing is at or after k's
  // iteration: a centred window would read the jump from evaluations before k, and interpolation
  // toward k-1 would date it between k-1 and k.
  for (int k : {1, 4, 9, 20}) {
    std::vector<EvalPoint> e;
    for (int i = 0; i < 40; ++i)
      e.push_back({10 * (i + 1), 0.01 * (i + 1), i < k ? 0.5 + 0.02 * (i % 2) : 0.95});
    for (double target : {0.55, 0.6, 0.8, 0.9, 0.94})
      for (int window : {1, 2, 3, 5, 9}) {
        const SmoothedCrossing c = smoothed_crossing(e, target, window);
        ASSERT_TRUE(c.reached) << k << " " << target << " " << window;
        EXPECT_GE(c.iterations, e[k].iteration) << k << " " << target << " " << window;
        EXPECT_GE(c.time_s, e[k].sim_time_s) << k << " " << target << " " << window;
        // The iteration window of (window - 1) evaluations' span: the same evaluations.
        const SmoothedCrossing w = smoothed_crossing_over_iterations(e, target, 10 * (window - 1));
        EXPECT_GE(w.iterations, e[k].iteration) << k << " " << target << " " << window;
        EXPECT_EQ(w.iterations, c.iterations) << k << " " << target << " " << window;
      }
  }
}

TEST(TtaStats, AnIterationWindowOfFourCadencesIsTheFiveEvaluationWindow) {
  // Evaluations every e = 10 iterations from t_0 = 0, W = 40: [t_k - 40, t_k] holds evaluations
  // max(0, k - 4) .. k, the trailing 5-evaluation window of smoothed_crossing exactly.
  const std::vector<EvalPoint> e = wiggly_line();
  const SmoothedCrossing by_evals = smoothed_crossing(e, 0.8);
  const SmoothedCrossing by_iterations = smoothed_crossing_over_iterations(e, 0.8, 40);
  ASSERT_TRUE(by_iterations.reached);
  EXPECT_DOUBLE_EQ(by_iterations.time_s, by_evals.time_s);
  EXPECT_DOUBLE_EQ(by_iterations.iterations, by_evals.iterations);
  // tta_crossing picks the window: 0 is the 5-evaluation window, W > 0 the iteration one. W = 10
  // holds evaluations k-1 and k: s_k = 0.495 + 0.01 k (the wiggle cancels); s_30 = 0.795,
  // s_31 = 0.805 >= 0.8: t = 3.1 s.
  EXPECT_DOUBLE_EQ(tta_crossing(e, 0.8, 0).time_s, by_evals.time_s);
  EXPECT_NEAR(tta_crossing(e, 0.8, 10).time_s, 3.1, 1e-12);
}

TEST(TtaStats, AnIterationWindowDoesNotMoveWithTheCadence) {
  // a(t) = 0.5 + 0.001 t crosses 0.8 at t = 300. Evaluated every e iterations from e, the window
  // [t - 40, t] holds the J + 1 evaluations t, t - e, ..., t - J e (J = floor(40 / e)), whose mean
  // is a(t - J e / 2): the crossing is the first evaluation at or after 300 + J e / 2, within
  // one cadence e of it, and J e / 2 is within e / 2 of W / 2 = 20 whatever e is.
  for (int every : {1, 3, 7, 10}) {
    std::vector<EvalPoint> line;
    for (int t = every; t <= 600; t += every) line.push_back({t, 1e-3 * t, 0.5 + 1e-3 * t});
    const SmoothedCrossing c = smoothed_crossing_over_iterations(line, 0.8, 40);
    ASSERT_TRUE(c.reached) << every;
    const double lag = (40 / every) * every / 2.0;
    EXPECT_GE(c.iterations, 300 + lag) << every;
    EXPECT_LE(c.iterations, 300 + lag + every) << every;
  }
  // a(t) = 1 - 0.5 exp(-t/100) crosses 0.8 at t* = 100 ln 2.5 = 91.63. A trailing window of 5
  // evaluations lags by 2e iterations (2 at e = 1, 20 at e = 10); one of W = 40 iterations by
  // about 20 at both (measured: 94 and 120 against 113 and 120).
  auto curve = [](int every) {
    std::vector<EvalPoint> e;
    for (int t = every; t <= 600; t += every) e.push_back({t, 0, 1 - 0.5 * std::exp(-t / 100.0)});
    return e;
  };
  const double fixed_1 = smoothed_crossing_over_iterations(curve(1), 0.8, 40).iterations;
  const double fixed_10 = smoothed_crossing_over_iterations(curve(10), 0.8, 40).iterations;
  const double evals_1 = smoothed_crossing(curve(1), 0.8).iterations;
  const double evals_10 = smoothed_crossing(curve(10), 0.8).iterations;
  // t* + lag, plus up to 1.5 iterations of the concave curve's extra lag and the cadence.
  EXPECT_NEAR(evals_1, 91.63 + 2, 1.5);
  EXPECT_NEAR(fixed_1, 91.63 + 20, 1.5);
  // e = 10, W = 40 = 4e: the same 5 evaluations.
  EXPECT_EQ(fixed_10, evals_10);
  EXPECT_LT(std::abs(fixed_10 - fixed_1), 0.5 * std::abs(evals_10 - evals_1));
}

}  // namespace
}  // namespace commlab
