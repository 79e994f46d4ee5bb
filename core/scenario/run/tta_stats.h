#pragma once
// Time-to-accuracy statistics over seeds, the ones a paper's reviewer accepts (docs/scenario.md,
// "Seeds and intervals"): a run's TTA as a median with non-reaching seeds at +infinity and a
// distribution-free interval; the speedup against the baseline as a paired geometric mean with a
// Student-t interval on the log ratios, or, when a run missed the target, a Hodges-Lehmann
// estimate with a Wilcoxon signed-rank interval that ranks the misses worst; the paired difference
// of final accuracy; and the crossing itself, taken on a trailing (causal) smoothed accuracy curve
// so that one lucky evaluation does not decide it and no later evaluation dates it earlier. Pure
// functions; no Qt, no engine. A time that was "not reached" is NaN, +inf or negative.
#include <string>
#include <vector>

namespace commlab {

// Paired speedup of an arm over the baseline, seed k against seed k (same data order and initial
// weights), over the pairs_run = min(sizes) seeds run in both arms. A time that was not reached
// (NaN, +inf, <= 0) is a miss; `censored` counts the pairs where either run missed.
// No censored pair: the paired log-t interval, method "paired-log-t":
//   d_k = ln(base_k / arm_k),  estimate = exp(mean d),
//   ci95 = exp(mean d -+ t_{0.975, n-1} s_d / sqrt(n))   (s_d: sample sd of d, n - 1 denominator),
//   p = P(|T_{n-1}| >= |mean d| sqrt(n) / s_d) (1 with s_d = 0 and mean 0, 0 with s_d = 0 else).
// A censored pair: every pair still counts, method kCensoredSpeedupMethod. A miss is given a
// common time worse than any observed one (rank_stats.h, LimitValue: an arm's miss makes d_k
// -inf, the baseline's +inf, both a tie at zero), and estimate and ci95 are exp of the
// Hodges-Lehmann estimate and the Wilcoxon signed-rank interval of the d_k (signed_rank); an end
// at -inf is a speedup of 0, at +inf unbounded; p is the signed-rank test's. Every pair missed by
// both runs: no estimate.
// verdict: "faster" when lo > 1, "slower" when hi < 1, else "within noise"; without an interval
// (fewer than 2 pairs for log-t, fewer than 6 for the signed-rank interval): "undetermined". With
// s_d = 0 the log-t interval is [estimate, estimate]: "faster" or "slower" unless the estimate is
// exactly 1 (two identical arms), which is "within noise". The misses are also counted by kind
// (arm_missed, baseline_missed, both_missed).
// `pairs` equals `pairs_run`: no pair is left out.
inline constexpr const char* kCensoredSpeedupMethod =
    "hodges-lehmann/wilcoxon, misses ranked worst";
struct PairedSpeedup {
  int pairs = 0;
  int pairs_run = 0;
  int censored = 0;
  double estimate = 0;    // NaN with no pair
  double lo = 0, hi = 0;  // NaN without an interval; lo 0 or hi +inf: unbounded by misses
  double p_value = 0;     // two-sided, against a speedup of 1; NaN without a test
  std::string verdict;
  int arm_missed = 0;       // arm not reached, baseline reached
  int baseline_missed = 0;  // baseline not reached, arm reached
  int both_missed = 0;
  std::string method = "paired-log-t";
  bool has_interval() const;
};
PairedSpeedup paired_log_speedup(const std::vector<double>& baseline_tta,
                                 const std::vector<double>& arm_tta);

// Paired difference arm - baseline (e.g. final test accuracy), seed k against seed k, over the
// pairs where both are finite: estimate = mean of (arm_k - base_k), ci95 = estimate -+
// t_{0.975, n-1} s / sqrt(n). NaN where unknown (no pair; interval with fewer than 2).
struct PairedDelta {
  int pairs = 0;
  double estimate = 0, lo = 0, hi = 0;
  bool has_interval() const;
};
PairedDelta paired_delta(const std::vector<double>& baseline, const std::vector<double>& arm);

// One run's TTA over N seeds with censoring: a seed that did not reach the target sits at +inf.
//   estimate = the median of the N values (for even N the midpoint of the two middle ones); NaN
//   when it is +inf, i.e. when half or more of the seeds (more than half for odd N) did not reach.
//   ci95 = [x_(j), x_(N+1-j)] for the largest j with P(j <= B <= N-j) >= 0.95, B ~ Bin(N, 1/2):
//   the distribution-free interval for the median from order statistics (coverage >= 95%, exact
//   `coverage` given). N < 6 has no such j (N = 5: 1 - 2/32 = 0.9375): no interval. An end that
//   is a non-reaching seed is +inf (written as null: unbounded).
struct CensoredTta {
  int seeds = 0, reached = 0;
  double estimate = 0;             // NaN: not estimable
  double lo = 0, hi = 0;           // NaN without an interval; hi = +inf when unbounded
  double coverage = 0;             // P(j <= B <= N-j); NaN without an interval
  int order_lo = 0, order_hi = 0;  // j and N+1-j (1-based); 0 without an interval
  bool has_interval() const;
};
inline constexpr const char* kCensoredTtaMethod =
    "median, unreached at +inf; order-statistic 95% interval";
CensoredTta censored_tta(const std::vector<double>& per_seed);

// The order-statistic interval alone: j (1-based) of the narrowest [x_(j), x_(N+1-j)] with
// coverage >= 95% and that coverage, or j = 0 when N < 6.
int median_interval_rank(int n, double* coverage);

// One evaluation of a run: where test accuracy was measured.
struct EvalPoint {
  int iteration = 0;
  double sim_time_s = 0;
  double accuracy = 0;
};

// The default smoothing window, in evaluations. A trailing 5-point average moves by at most 1/5 of
// one evaluation's excess over its neighbours, so a single lucky evaluation (noise of the eval
// subset) cannot by itself declare the target reached.
inline constexpr int kTtaSmoothingWindow = 5;

// The target crossing on the smoothed accuracy curve, causal: s_i = the mean accuracy over the
// evaluations [i - window + 1, i] that exist (a trailing window: evaluation i and the window - 1
// before it; shrunk at the start of the run, s_0 = a_0; window <= 1: no smoothing). Nothing after
// evaluation i is read, so the crossing is dated when it could be observed. The first i with
// s_i >= target is the crossing, at evaluation i's own time and iteration (no interpolation back
// toward i-1: that would date it before the evaluation that shows it). On a curve rising at a
// steady slope the trailing mean lags by (window - 1) / 2 evaluations, the same number of
// iterations in every arm evaluated at the same cadence.
// Not reached: reached false, time_s and iterations NaN.
struct SmoothedCrossing {
  bool reached = false;
  double time_s = 0;
  double iterations = 0;
};
SmoothedCrossing smoothed_crossing(const std::vector<EvalPoint>& evals, double target,
                                   int window = kTtaSmoothingWindow);

// The same crossing on a curve smoothed over a trailing window of W iterations instead of a number
// of evaluations (training.tta_window), so that the smoothing does not change with
// training.eval_every and a cadence study can hold it fixed: s_i = the mean accuracy of the
// evaluations whose iteration lies in [t_i - W, t_i]. With evaluations every e iterations and
// W = 4e this is the 5-evaluation window exactly. W <= 0: no smoothing.
SmoothedCrossing smoothed_crossing_over_iterations(const std::vector<EvalPoint>& evals,
                                                   double target, int window_iterations);

// A run's crossing: over training.tta_window iterations when it is > 0, else over
// kTtaSmoothingWindow evaluations.
SmoothedCrossing tta_crossing(const std::vector<EvalPoint>& evals, double target,
                              int window_iterations);

}  // namespace commlab
