#include "scenario/run/rank_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace commlab {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kZ975 = 1.959963984540054;  // the standard normal's 97.5% quantile

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

bool is_zero(const LimitValue& v) {
  return v.c == 0 && v.f == 0;
}
bool is_positive(const LimitValue& v) {
  return v.c > 0 || (v.c == 0 && v.f > 0);
}
LimitValue magnitude(const LimitValue& v) {
  return v.c < 0 || (v.c == 0 && v.f < 0) ? LimitValue{-v.f, -v.c} : v;
}
bool same(const LimitValue& a, const LimitValue& b) {
  return a.c == b.c && a.f == b.f;
}

// Midranks (1-based) of |d_i|: tied magnitudes share the mean of the ranks they span. `ties`
// is set when two magnitudes are equal.
std::vector<double> midranks(const std::vector<LimitValue>& d, bool* ties) {
  const size_t n = d.size();
  std::vector<LimitValue> mag(n);
  for (size_t i = 0; i < n; ++i) mag[i] = magnitude(d[i]);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return mag[a] < mag[b]; });
  std::vector<double> rank(n);
  *ties = false;
  for (size_t a = 0; a < n;) {
    size_t b = a + 1;
    while (b < n && same(mag[order[b]], mag[order[a]])) ++b;
    if (b - a > 1) *ties = true;
    for (size_t k = a; k < b; ++k) rank[order[k]] = (a + 1 + b) / 2.0;  // mean of a+1 .. b
    a = b;
  }
  return rank;
}

// The sorted Walsh averages (d_i + d_j) / 2, i <= j.
std::vector<LimitValue> walsh_averages(const std::vector<LimitValue>& d) {
  std::vector<LimitValue> w;
  w.reserve(d.size() * (d.size() + 1) / 2);
  for (size_t i = 0; i < d.size(); ++i)
    for (size_t j = i; j < d.size(); ++j)
      w.push_back({(d[i].f + d[j].f) / 2, (d[i].c + d[j].c) / 2});
  std::sort(w.begin(), w.end());
  return w;
}

// The continued fraction of the incomplete beta function (modified Lentz).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  auto guard = [&](double v) { return std::abs(v) < kTiny ? kTiny : v; };
  double c = 1, d = 1 / guard(1 - (a + b) * x / (a + 1)), h = d;
  for (int m = 1; m <= 500; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
    d = 1 / guard(1 + aa * d);
    c = guard(1 + aa / c);
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
    d = 1 / guard(1 + aa * d);
    c = guard(1 + aa / c);
    h *= d * c;
    if (std::abs(d * c - 1) < kEps) break;
  }
  return h;
}

// The regularized incomplete beta function I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

}  // namespace

double LimitValue::value() const {
  if (c < 0) return -std::numeric_limits<double>::infinity();
  if (c > 0) return std::numeric_limits<double>::infinity();
  return f;
}

bool operator<(const LimitValue& a, const LimitValue& b) {
  return a.c != b.c ? a.c < b.c : a.f < b.f;
}

std::vector<double> signed_rank_cdf(int n) {
  const int m = n * (n + 1) / 2;
  std::vector<double> count(static_cast<size_t>(m) + 1, 0.0);
  count[0] = 1;
  // Subsets of {1..k} by their sum, k = 1..n: a subset either leaves k out or adds it.
  for (int k = 1; k <= n; ++k)
    for (int s = k * (k + 1) / 2; s >= k; --s) count[s] += count[s - k];
  std::vector<double> cdf(count.size());
  double acc = 0;
  const double total = std::ldexp(1.0, n);
  for (size_t s = 0; s < count.size(); ++s) cdf[s] = (acc += count[s]) / total;
  return cdf;
}

SignedRank signed_rank(const std::vector<LimitValue>& d) {
  SignedRank r;
  r.n = static_cast<int>(d.size());
  r.coverage = kNan;
  if (d.empty()) return r;
  const std::vector<LimitValue> w = walsh_averages(d);
  const size_t m = w.size();
  const LimitValue &a = w[(m - 1) / 2], &b = w[m / 2];
  r.estimate = {(a.f + b.f) / 2, (a.c + b.c) / 2};
  bool ties = false;
  const std::vector<double> rank = midranks(d, &ties);
  double var = 0;
  bool zeros = false;
  for (size_t i = 0; i < d.size(); ++i) {
    if (is_positive(d[i])) r.t_plus += rank[i];
    if (is_zero(d[i])) r.t_plus += rank[i] / 2, zeros = true;
    if (!is_zero(d[i])) var += rank[i] * rank[i] / 4;
  }
  const double mean = m / 2.0;
  r.exact = r.n <= kExactSignedRankMax && !ties && !zeros;
  int k = 0;
  if (r.exact) {
    const std::vector<double> cdf = signed_rank_cdf(r.n);
    const int t = static_cast<int>(r.t_plus);  // an integer without ties or zeros
    const double below = cdf[t], above = 1 - (t > 0 ? cdf[t - 1] : 0.0);
    r.p_value = std::min(1.0, 2 * std::min(below, above));
    // The largest k with P(T+ <= k-1) <= 0.025: the interval [W_(k), W_(M+1-k)].
    while (k < static_cast<int>(m / 2) && cdf[k] <= 0.025) ++k;
    if (k > 0) r.coverage = 1 - 2 * cdf[k - 1];
  } else {
    const double sd = std::sqrt(var);
    if (!(sd > 0)) return r;  // every d is zero: T+ is M/2 whatever the signs, p = 1
    // P(T+ <= k-1) ~ Phi((k - 1/2 - M/2) / sd) <= 0.025  <=>  k <= M/2 + 1/2 - z sd.
    k = std::min(static_cast<int>(std::floor(mean + 0.5 - kZ975 * sd)), static_cast<int>(m / 2));
    const double z = std::max(0.0, std::abs(r.t_plus - mean) - 0.5) / sd;
    r.p_value = std::erfc(z / std::sqrt(2.0));
    if (k > 0) r.coverage = 1 - 2 * normal_cdf((k - 0.5 - mean) / sd);
  }
  if (k <= 0) return r;
  r.order_lo = k;
  r.order_hi = static_cast<int>(m) + 1 - k;
  r.lo = w[static_cast<size_t>(k - 1)];
  r.hi = w[m - static_cast<size_t>(k)];
  return r;
}

double t_two_sided_p(double t, int df) {
  if (df < 1 || std::isnan(t)) return kNan;
  if (std::isinf(t)) return 0;
  // P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
  return incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<size_t> order;
  for (size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(p.size(), kNan);
  const size_t m = order.size();
  double running = 0;
  for (size_t j = 0; j < m; ++j) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - j) * p[order[j]]));
    adjusted[order[j]] = running;
  }
  return adjusted;
}

}  // namespace commlab
