#include "codec/lossy/quant_tables.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "io/status.h"

namespace commlab::trim {
namespace {

double pdf(double z) {
  return std::isinf(z) ? 0.0 : std::exp(-0.5 * z * z) * 0.3989422804014327;
}
double cdf(double z) {
  return 0.5 * std::erfc(-z * 0.7071067811865476);
}

// E[Z | a < Z < b] for Z ~ N(0,1).
double cond_mean(double a, double b) {
  double mass = cdf(b) - cdf(a);
  return mass > 0 ? (pdf(a) - pdf(b)) / mass : 0.5 * (a + b);
}

// E[Z^2 | a < Z < b] * P(a < Z < b) = (Phi(b) - Phi(a)) + a phi(a) - b phi(b).
double second_moment_mass(double a, double b) {
  double ta = std::isinf(a) ? 0.0 : a * pdf(a);
  double tb = std::isinf(b) ? 0.0 : b * pdf(b);
  return cdf(b) - cdf(a) + ta - tb;
}

GaussianQuantizer build(int bits) {
  const int cells = 1 << bits;
  std::vector<double> c(cells);
  for (int i = 0; i < cells; ++i) c[i] = -3.0 + 6.0 * (i + 0.5) / cells;
  std::vector<double> t(cells - 1);
  // Lloyd's iteration converges geometrically for the log-concave normal density.
  for (int iter = 0; iter < 5000; ++iter) {
    for (int i = 0; i + 1 < cells; ++i) t[i] = 0.5 * (c[i] + c[i + 1]);
    for (int i = 0; i < cells; ++i) {
      double a = i == 0 ? -INFINITY : t[i - 1];
      double b = i == cells - 1 ? INFINITY : t[i];
      c[i] = cond_mean(a, b);
    }
  }
  for (int i = 0; i + 1 < cells; ++i) t[i] = 0.5 * (c[i] + c[i + 1]);
  t[(cells - 1) / 2] = 0.0;  // exact symmetry: the top bit is the sign
  GaussianQuantizer q;
  q.bits = bits;
  q.thresholds = t;
  for (int k = 0; k <= bits; ++k) {
    const int groups = 1 << k;
    const int width = cells >> k;  // cells per group
    q.level[k].resize(groups);
    double distortion = 0.0;
    for (int g = 0; g < groups; ++g) {
      double a = g == 0 ? -INFINITY : t[g * width - 1];
      double b = g == groups - 1 ? INFINITY : t[(g + 1) * width - 1];
      double m = cond_mean(a, b);
      q.level[k][g] = m;
      // E[(Z - m)^2; cell] = E[Z^2; cell] - m^2 P(cell) since m is the conditional mean.
      distortion += second_moment_mass(a, b) - m * m * (cdf(b) - cdf(a));
    }
    q.distortion[k] = distortion;
  }
  return q;
}

}  // namespace

const GaussianQuantizer& lloyd_max_quantizer(int bits) {
  static const std::array<GaussianQuantizer, kMaxEdenBits> table = [] {
    std::array<GaussianQuantizer, kMaxEdenBits> t;
    for (int b = 1; b <= kMaxEdenBits; ++b) t[b - 1] = build(b);
    return t;
  }();
  if (bits < 1 || bits > kMaxEdenBits) {
    throw bad_input("Lloyd-Max quantizer: bits must be 1..4, got " + std::to_string(bits));
  }
  return table[bits - 1];
}

double eden_unbiased_vnmse(int bits) {
  double d = lloyd_max_quantizer(bits).distortion[bits];
  return d / (1.0 - d);
}

}  // namespace commlab::trim
