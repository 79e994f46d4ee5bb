#include "scenario/run/tta_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "scenario/run/rank_stats.h"
#include "scenario/run/seed_stats.h"

namespace commlab {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool reached_time(double v) {
  return std::isfinite(v) && v >= 0;
}

// The verdict of an interval.
std::string interval_verdict(const PairedSpeedup& r) {
  if (!r.has_interval()) return "undetermined";
  if (r.lo > 1) return "faster";
  if (r.hi < 1) return "slower";
  return "within noise";
}

// P(B = i) for B ~ Bin(n, 1/2), through logs so that large n does not underflow 2^-n.
double binomial_half_pmf(int n, int i) {
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) -
                  n * std::log(2.0));
}

}  // namespace

bool PairedSpeedup::has_interval() const {
  // An end may be unbounded by misses (lo 0, hi +inf); NaN is no interval.
  return pairs >= 2 && !std::isnan(lo) && !std::isnan(hi);
}

bool PairedDelta::has_interval() const {
  return pairs >= 2 && std::isfinite(lo) && std::isfinite(hi);
}

bool CensoredTta::has_interval() const {
  return order_lo > 0;
}

namespace {

bool reached_pair_time(double v) {
  return std::isfinite(v) && v > 0;
}

// The paired log-t estimate over pairs that all reached: exp(mean d) with the Student-t interval.
void log_t_speedup(const std::vector<double>& d, PairedSpeedup* r) {
  const Interval iv = mean_ci95(d);  // mean d +- t_{0.975, n-1} s_d / sqrt(n)
  r->estimate = iv.n > 0 ? std::exp(iv.mean) : kNaN;
  r->lo = iv.has_interval() ? std::exp(iv.lo()) : kNaN;
  r->hi = iv.has_interval() ? std::exp(iv.hi()) : kNaN;
  r->p_value = kNaN;
  if (!iv.has_interval()) return;
  // t = mean d / (s_d / sqrt(n)) = t_{0.975, n-1} mean d / half_width; s_d = 0: p 1 at mean 0
  // (identical arms), else 0.
  if (iv.half_width > 0)
    r->p_value = t_two_sided_p(t_quantile_975(iv.n - 1) * iv.mean / iv.half_width, iv.n - 1);
  else
    r->p_value = iv.mean == 0 ? 1.0 : 0.0;
}

// The censoring-aware estimate: Hodges-Lehmann with the Wilcoxon interval, misses ranked worst.
void signed_rank_speedup(const std::vector<LimitValue>& d, PairedSpeedup* r) {
  r->method = kCensoredSpeedupMethod;
  r->estimate = r->lo = r->hi = r->p_value = kNaN;
  if (r->both_missed == r->pairs) return;  // no run reached: nothing orders the arms
  const SignedRank sr = signed_rank(d);
  r->estimate = std::exp(sr.estimate.value());  // exp(-inf) = 0, exp(+inf) = +inf
  r->p_value = sr.p_value;
  if (!sr.has_interval()) return;
  r->lo = std::exp(sr.lo.value());
  r->hi = std::exp(sr.hi.value());
}

}  // namespace

PairedSpeedup paired_log_speedup(const std::vector<double>& baseline_tta,
                                 const std::vector<double>& arm_tta) {
  PairedSpeedup r;
  std::vector<double> d;
  std::vector<LimitValue> limit;  // every pair, a miss at the common worse time (rank_stats.h)
  const size_t n = std::min(baseline_tta.size(), arm_tta.size());
  for (size_t k = 0; k < n; ++k) {
    const double b = baseline_tta[k], a = arm_tta[k];
    const bool b_ok = reached_pair_time(b), a_ok = reached_pair_time(a);
    if (b_ok && a_ok) d.push_back(std::log(b / a));
    if (b_ok && a_ok) limit.push_back({d.back(), 0});
    if (b_ok && !a_ok) ++r.arm_missed, limit.push_back({std::log(b), -1});
    if (!b_ok && a_ok) ++r.baseline_missed, limit.push_back({-std::log(a), 1});
    if (!b_ok && !a_ok) ++r.both_missed, limit.push_back({0, 0});
  }
  r.pairs = r.pairs_run = static_cast<int>(n);
  r.censored = r.arm_missed + r.baseline_missed + r.both_missed;
  if (r.censored == 0)
    log_t_speedup(d, &r);
  else
    signed_rank_speedup(limit, &r);
  r.verdict = interval_verdict(r);
  return r;
}

PairedDelta paired_delta(const std::vector<double>& baseline, const std::vector<double>& arm) {
  std::vector<double> d;
  const size_t n = std::min(baseline.size(), arm.size());
  for (size_t k = 0; k < n; ++k)
    if (std::isfinite(baseline[k]) && std::isfinite(arm[k])) d.push_back(arm[k] - baseline[k]);
  const Interval iv = mean_ci95(d);
  PairedDelta r;
  r.pairs = iv.n;
  r.estimate = iv.mean;  // NaN with no pair
  r.lo = iv.has_interval() ? iv.lo() : kNaN;
  r.hi = iv.has_interval() ? iv.hi() : kNaN;
  return r;
}

int median_interval_rank(int n, double* coverage) {
  // Coverage of [x_(j), x_(n+1-j)]: P(j <= B <= n-j) = 1 - 2 P(B < j) (symmetric binomial). It
  // falls as j grows; keep the largest j (narrowest interval) still at >= 0.95.
  int best = 0;
  double best_coverage = kNaN, below = 0;  // below = P(B < j)
  for (int j = 1; 2 * j <= n; ++j) {
    below += binomial_half_pmf(n, j - 1);
    const double c = 1 - 2 * below;
    if (c < 0.95) break;
    best = j;
    best_coverage = c;
  }
  if (coverage) *coverage = best_coverage;
  return best;
}

CensoredTta censored_tta(const std::vector<double>& per_seed) {
  CensoredTta r;
  std::vector<double> x;
  for (double v : per_seed) {
    const bool ok = reached_time(v);
    r.reached += ok ? 1 : 0;
    x.push_back(ok ? v : kInf);
  }
  r.seeds = static_cast<int>(x.size());
  r.estimate = r.lo = r.hi = r.coverage = kNaN;
  if (x.empty()) return r;
  std::sort(x.begin(), x.end());
  const size_t n = x.size();
  // Median: x_((n+1)/2) for odd n, (x_(n/2) + x_(n/2+1)) / 2 for even n (0-based below); +inf
  // (more than half, or for even n half or more, did not reach) is not an estimate.
  const double median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
  r.estimate = std::isfinite(median) ? median : kNaN;
  const int j = median_interval_rank(r.seeds, &r.coverage);
  if (j == 0) return r;
  r.order_lo = j;
  r.order_hi = r.seeds + 1 - j;
  r.lo = std::isfinite(x[j - 1]) ? x[j - 1] : kNaN;  // +inf lower end: nothing is known
  r.hi = x[n - j];                                   // +inf: unbounded above
  return r;
}

namespace {

// The trailing moving average of accuracy over evaluations [max(0, i - window + 1), i]: only
// evaluations at or before i (window <= 1: none but i itself).
std::vector<double> smooth(const std::vector<EvalPoint>& evals, int window) {
  const int n = static_cast<int>(evals.size());
  const int back = std::max(0, window - 1);
  std::vector<double> s(evals.size());
  for (int i = 0; i < n; ++i) {
    const int a = std::max(0, i - back);
    double sum = 0;
    for (int k = a; k <= i; ++k) sum += evals[k].accuracy;
    s[i] = sum / (i - a + 1);
  }
  return s;
}

// The trailing window over iterations: evaluations with iteration in [t_i - W, t_i], found by
// binary search over the (increasing) iterations and summed in order, so that s_i depends only on
// the evaluations in its window (train/eval_schedule.h computes the same sum online and relies on
// it).
std::vector<double> smooth_over_iterations(const std::vector<EvalPoint>& evals,
                                           int window_iterations) {
  const size_t n = evals.size();
  const double width = std::max(0, window_iterations);
  auto by_iteration = [](const EvalPoint& e, double t) { return e.iteration < t; };
  std::vector<double> s(n);
  for (size_t i = 0; i < n; ++i) {
    const double t = evals[i].iteration;
    const size_t a =
        std::lower_bound(evals.begin(), evals.end(), t - width, by_iteration) - evals.begin();
    double sum = 0;
    for (size_t k = a; k <= i; ++k) sum += evals[k].accuracy;
    s[i] = sum / static_cast<double>(i - a + 1);  // a <= i
  }
  return s;
}

// The first evaluation i with s_i >= target: its own time and iteration, the moment the crossing
// is known (interpolating back toward evaluation i-1 would date it before the evaluation that
// shows it).
SmoothedCrossing first_crossing(const std::vector<EvalPoint>& evals, const std::vector<double>& s,
                                double target) {
  SmoothedCrossing r;
  r.time_s = r.iterations = kNaN;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!(s[i] >= target)) continue;
    r.reached = true;
    r.time_s = evals[i].sim_time_s;
    r.iterations = evals[i].iteration;
    return r;
  }
  return r;
}

}  // namespace

SmoothedCrossing smoothed_crossing(const std::vector<EvalPoint>& evals, double target, int window) {
  return first_crossing(evals, smooth(evals, window), target);
}

SmoothedCrossing smoothed_crossing_over_iterations(const std::vector<EvalPoint>& evals,
                                                   double target, int window_iterations) {
  return first_crossing(evals, smooth_over_iterations(evals, window_iterations), target);
}

SmoothedCrossing tta_crossing(const std::vector<EvalPoint>& evals, double target,
                              int window_iterations) {
  return window_iterations > 0 ? smoothed_crossing_over_iterations(evals, target, window_iterations)
                               : smoothed_crossing(evals, target);
}

}  // namespace commlab
