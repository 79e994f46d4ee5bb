// Rank statistics (scenario/run/rank_stats.h) on inputs whose answers are worked out by hand: the
// Hodges-Lehmann estimate and the Wilcoxon signed-rank interval and p-value (exact and normal with
// ties), values at +-infinity in the limit, Student's t p-value and Holm's adjustment.
#include "scenario/run/rank_stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace commlab {
namespace {

std::vector<LimitValue> finite(const std::vector<double>& d) {
  std::vector<LimitValue> v;
  for (double x : d) v.push_back({x, 0});
  return v;
}

TEST(RankStats, HodgesLehmannOfFiveValues) {
  // d = (-0.1, 0.2, 0.4, 0.5, 0.9). The 15 Walsh averages (d_i + d_j) / 2, i <= j, sorted:
  //   -0.1, 0.05, 0.15, 0.2, 0.2, 0.3, 0.35, 0.4, 0.4, 0.45, 0.5, 0.55, 0.65, 0.7, 0.9;
  // the median W_(8) = 0.4 (the pair (-0.1, 0.9) and d_3 itself).
  const SignedRank sr = signed_rank(finite({-0.1, 0.2, 0.4, 0.5, 0.9}));
  EXPECT_EQ(sr.n, 5);
  EXPECT_NEAR(sr.estimate.value(), 0.4, 1e-12);
  // Ranks of |d|: 0.1 -> 1, 0.2 -> 2, 0.4 -> 3, 0.5 -> 4, 0.9 -> 5; T+ = 2 + 3 + 4 + 5 = 14.
  EXPECT_TRUE(sr.exact);
  EXPECT_DOUBLE_EQ(sr.t_plus, 14);
  // Exact: P(T+ >= 14) = P(T+ <= 1) = 2/32 (the subsets {} and {1}); p = 2 * 2/32 = 0.125.
  EXPECT_NEAR(sr.p_value, 0.125, 1e-12);
  // n = 5: even k = 1 covers only 1 - 2/32 = 0.9375 < 0.95: no interval.
  EXPECT_FALSE(sr.has_interval());
}

TEST(RankStats, WilcoxonIntervalOfSevenValues) {
  // d = (-3, -1, 2, 4, 6, 7, 10). The 28 Walsh averages sorted:
  //   -3, -2, -1, -0.5, 0.5, 0.5, 1.5, 1.5, 2, 2, 2.5, 3, 3, 3.5,
  //   4, 4, 4.5, 4.5, 5, 5.5, 6, 6, 6.5, 7, 7, 8, 8.5, 10.
  // HL = (W_(14) + W_(15)) / 2 = (3.5 + 4) / 2 = 3.75.
  const SignedRank sr = signed_rank(finite({-3, -1, 2, 4, 6, 7, 10}));
  EXPECT_NEAR(sr.estimate.value(), 3.75, 1e-12);
  // Exact null of T+ for n = 7 (subsets of {1..7} by sum, over 128): P(T+ <= 0, 1, 2, 3) = 1, 2,
  // 3, 5 / 128; the largest k with P(T+ <= k-1) <= 0.025 is k = 3 (3/128 = 0.0234), coverage
  // 1 - 2 * 3/128 = 0.953125: [W_(3), W_(26)] = [-1, 8].
  EXPECT_EQ(sr.order_lo, 3);
  EXPECT_EQ(sr.order_hi, 26);
  EXPECT_NEAR(sr.coverage, 1 - 6.0 / 128, 1e-12);
  EXPECT_NEAR(sr.lo.value(), -1, 1e-12);
  EXPECT_NEAR(sr.hi.value(), 8, 1e-12);
  // Ranks of |d| = 3, 1, 2, 4, 6, 7, 10: 3, 1, 2, 4, 5, 6, 7; T+ = 2 + 4 + 5 + 6 + 7 = 24;
  // P(T+ >= 24) = P(T+ <= 4) = 7/128 (sums 0..4: 1, 1, 1, 2, 2 subsets): p = 14/128.
  EXPECT_DOUBLE_EQ(sr.t_plus, 24);
  EXPECT_NEAR(sr.p_value, 14.0 / 128, 1e-12);
}

TEST(RankStats, TheExactNullDistribution) {
  // n = 3: subset sums of {1, 2, 3}: 0, 1, 2, 3, 3, 4, 5, 6 -> P(T+ <= t) = 1, 2, 3, 5, 6, 7, 8
  // / 8.
  const std::vector<double> cdf = signed_rank_cdf(3);
  ASSERT_EQ(cdf.size(), 7u);
  EXPECT_DOUBLE_EQ(cdf[0], 1.0 / 8);
  EXPECT_DOUBLE_EQ(cdf[3], 5.0 / 8);
  EXPECT_DOUBLE_EQ(cdf[6], 1.0);
}

TEST(RankStats, TiesAndZerosUseTheCorrectedNormal) {
  // d = (0, 1, 1, 2, 2, 2, 3, 3, 4, -5): a zero and ties: normal approximation. Midranks of |d|:
  // 0 -> 1; 1, 1 -> 2.5; 2, 2, 2 -> 5; 3, 3 -> 7.5; 4 -> 9; 5 -> 10.
  const SignedRank sr = signed_rank(finite({0, 1, 1, 2, 2, 2, 3, 3, 4, -5}));
  EXPECT_FALSE(sr.exact);
  // T+ = 2.5*2 + 5*3 + 7.5*2 + 9 + 1/2 (the zero counts half) = 44.5.
  EXPECT_DOUBLE_EQ(sr.t_plus, 44.5);
  // Var = sum over nonzero d of r^2 / 4 = (2 * 6.25 + 3 * 25 + 2 * 56.25 + 81 + 100) / 4 = 95.25,
  // which is n(n+1)(2n+1)/24 - sum (t^3 - t)/48 - 1/4 (the zero's rank) = 96.25 - 36/48 - 0.25;
  // M/2 = 27.5; z = (|44.5 - 27.5| - 0.5) / sqrt(95.25) = 1.690641; p = erfc(z / sqrt 2) =
  // 0.090905.
  const double z = (44.5 - 27.5 - 0.5) / std::sqrt(95.25);
  EXPECT_NEAR(sr.p_value, std::erfc(z / std::sqrt(2.0)), 1e-12);
  // k = floor(27.5 + 0.5 - 1.959964 * 9.759611) = floor(8.871) = 8.
  EXPECT_EQ(sr.order_lo, 8);
  EXPECT_EQ(sr.order_hi, 55 + 1 - 8);
  // All zeros: T+ is M/2 whatever the signs: p = 1, no interval.
  const SignedRank zeros = signed_rank(finite({0, 0, 0, 0, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(zeros.p_value, 1);
  EXPECT_FALSE(zeros.has_interval());
  EXPECT_DOUBLE_EQ(zeros.estimate.value(), 0);
}

TEST(RankStats, ValuesAtInfinityOrderInTheLimit) {
  // a = ln(4) - L (c = -1) and b = L - ln(2) (c = +1): (a + b) / 2 = (ln 4 - ln 2) / 2 = ln(2) / 2,
  // finite whatever L is; a alone is -inf, b alone +inf.
  const SignedRank sr = signed_rank({{std::log(4.0), -1}, {-std::log(2.0), 1}});
  // Walsh averages: a (-inf), (a + b) / 2 = ln(2) / 2, b (+inf): the median is ln(2) / 2.
  EXPECT_NEAR(sr.estimate.value(), std::log(2.0) / 2, 1e-12);
  const LimitValue minus_half_l{100, -0.5}, finite_value{-100, 0};
  EXPECT_TRUE(std::isinf(minus_half_l.value()));
  // 100 - L/2 < -100 for every large L: the coefficient of L decides first.
  EXPECT_TRUE(minus_half_l < finite_value);
}

TEST(RankStats, StudentTPValues) {
  // P(|T| >= t_{0.975, df}) = 0.05 by definition of the quantile: t_{0.975,3} = 3.182446,
  // t_{0.975,10} = 2.228139.
  EXPECT_NEAR(t_two_sided_p(3.182446, 3), 0.05, 1e-6);
  EXPECT_NEAR(t_two_sided_p(-2.228139, 10), 0.05, 1e-6);
  // df = 1 is Cauchy: P(|T| >= 1) = 1 - 2 atan(1) / pi = 0.5. df = 2: P(|T| >= t) =
  // 1 - t / sqrt(2 + t^2); t = 2: 1 - 2 / sqrt(6) = 0.183503.
  EXPECT_NEAR(t_two_sided_p(1, 1), 0.5, 1e-12);
  EXPECT_NEAR(t_two_sided_p(2, 2), 1 - 2 / std::sqrt(6.0), 1e-12);
  EXPECT_DOUBLE_EQ(t_two_sided_p(0, 5), 1);
  EXPECT_TRUE(std::isnan(t_two_sided_p(1, 0)));
}

TEST(RankStats, HolmStepDown) {
  // p = (0.01, 0.04, 0.03, NaN, 0.5); m = 4 tests. Sorted 0.01, 0.03, 0.04, 0.5:
  //   4 * 0.01 = 0.04; max(0.04, 3 * 0.03 = 0.09) = 0.09; max(0.09, 2 * 0.04 = 0.08) = 0.09;
  //   max(0.09, 1 * 0.5) = 0.5. The NaN stays NaN.
  const std::vector<double> adj = holm_adjust({0.01, 0.04, 0.03, std::nan(""), 0.5});
  EXPECT_NEAR(adj[0], 0.04, 1e-12);
  EXPECT_NEAR(adj[1], 0.09, 1e-12);
  EXPECT_NEAR(adj[2], 0.09, 1e-12);
  EXPECT_TRUE(std::isnan(adj[3]));
  EXPECT_NEAR(adj[4], 0.5, 1e-12);
  // Capped at 1: 3 * 0.6 = 1.8 -> 1.
  EXPECT_DOUBLE_EQ(holm_adjust({0.6, 0.7, 0.8})[0], 1);
}

}  // namespace
}  // namespace commlab
