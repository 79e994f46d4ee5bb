#pragma once
// Rank statistics of paired comparisons where a run may miss its target (scenario/run/tta_stats.h
// uses them): the Hodges-Lehmann estimate of a paired difference with its Wilcoxon signed-rank
// interval and p-value, the two-sided p-value of Student's t, and Holm's step-down adjustment of
// several p-values. Pure functions; no Qt, no engine.
#include <vector>

namespace commlab {

// A paired log ratio d = f + c * L in the limit L -> +infinity: the value a pair gets when a run
// that missed the target is given the common time C = e^L, worse than any observed time.
//   both reached:          d = ln(base / arm)                    f = ln(base / arm), c = 0
//   arm missed only:       d = ln(base / C) = ln(base) - L       f = ln(base),       c = -1
//   baseline missed only:  d = ln(C / arm) = L - ln(arm)         f = -ln(arm),       c = +1
//   both missed:           d = ln(C / C) = 0                     f = 0,              c = 0
// Sums and averages of such values stay of this form (the L terms add), so every Walsh average,
// its order and its sign are those of the limit, and none depends on the choice of C.
struct LimitValue {
  double f = 0;
  double c = 0;  // coefficient of L; the value is -inf (c < 0), +inf (c > 0) or f (c == 0)
  double value() const;
};
bool operator<(const LimitValue& a, const LimitValue& b);

// The one-sample Hodges-Lehmann estimate and the Wilcoxon signed-rank test of "median 0" over n
// paired values d_1..d_n. The M = n(n+1)/2 Walsh averages (d_i + d_j) / 2, i <= j, sorted:
//   estimate = their median (the mean of the two middle ones when M is even);
//   ci95 = [W_(k), W_(M+1-k)] for the largest k with P(T+ <= k-1) <= 0.025 under H0, where T+ is
//     the signed-rank statistic: the sum of the midranks r_i of |d_i| over the positive d_i, plus
//     half the ranks of the zeros (zeros are kept, not dropped: a tie at zero counts);
//   p = the two-sided p-value of the observed T+.
// The null distribution of T+ is exact (every sign pattern of ranks 1..n equally likely) when
// n <= kExactSignedRankMax and no |d| is zero or tied; otherwise it is normal with mean M/2 and
// variance sum_{d_i != 0} r_i^2 / 4 over the midranks r_i of |d_i| (zeros keep their rank and no
// variance: the ties correction n(n+1)(2n+1)/24 - sum (t^3 - t)/48 with zeros included), with a
// continuity correction of 1/2. No interval when even k = 1 covers less than 95% (n <= 5 exact).
inline constexpr int kExactSignedRankMax = 25;
struct SignedRank {
  int n = 0;
  LimitValue estimate;  // meaningless with n = 0
  LimitValue lo, hi;    // meaningless without an interval (k = 0)
  int order_lo = 0;     // k (1-based); 0 without an interval
  int order_hi = 0;     // M + 1 - k
  double coverage = 0;  // 1 - 2 P(T+ <= k-1); NaN without an interval
  double t_plus = 0;    // the observed T+
  double p_value = 1;   // two-sided
  bool exact = true;    // the exact null distribution (else normal with the ties correction)
  bool has_interval() const { return order_lo > 0; }
};
SignedRank signed_rank(const std::vector<LimitValue>& d);

// The null distribution of T+ for n untied, nonzero values: P(T+ <= t) for t = 0..n(n+1)/2, from
// the counts of subsets of {1..n} with each sum over 2^n.
std::vector<double> signed_rank_cdf(int n);

// Two-sided p-value of Student's t: P(|T| >= |t|) with df degrees of freedom (df >= 1; NaN
// below), from the regularized incomplete beta function I_{df/(df+t^2)}(df/2, 1/2).
double t_two_sided_p(double t, int df);

// Holm's step-down adjustment of m p-values (any order; NaN entries are left out and stay NaN):
// with p_(1) <= ... <= p_(m), adjusted p_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)). Rejecting
// where the adjusted value is <= 0.05 holds the family-wise error rate at 5%.
std::vector<double> holm_adjust(const std::vector<double>& p);

}  // namespace commlab
