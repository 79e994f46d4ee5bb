#include "numeric/tensor_gen.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "numeric/rng.h"

namespace commlab {
namespace {

enum class Dist { kGaussian, kLaplace, kStudentT, kSparse };

struct Spec {
  Dist dist;
  double zero_fraction = 0.0;
};

[[noreturn]] void unknown(std::string_view dist) {
  throw bad_input("unknown distribution '" + std::string(dist) +
                  "' (expected gaussian, laplace, student-t, sparse:F)");
}

Spec parse(std::string_view dist) {
  if (dist == "gaussian") return {Dist::kGaussian};
  if (dist == "laplace") return {Dist::kLaplace};
  if (dist == "student-t") return {Dist::kStudentT};
  if (dist.substr(0, 7) == "sparse:") {
    std::string frac(dist.substr(7));
    size_t used = 0;
    double f = 0.0;
    try {
      f = std::stod(frac, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (frac.empty() || used != frac.size() || !(f >= 0.0 && f <= 1.0)) {
      throw bad_input("bad sparse fraction '" + frac + "' in '" + std::string(dist) +
                      "' (expected sparse:F with F in [0, 1])");
    }
    return {Dist::kSparse, f};
  }
  unknown(dist);
}

// Uniform in (0, 1]: safe under log().
double open_uniform(const CounterRng& rng, uint64_t i) {
  return 1.0 - rng.uniform(i);
}

// Standard normal k of element i from draws (8i+2k, 8i+2k+1) by Box-Muller.
double normal(const CounterRng& rng, uint64_t i, uint64_t k) {
  double u1 = open_uniform(rng, 8 * i + 2 * k);
  double u2 = rng.uniform(8 * i + 2 * k + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

double sample(const Spec& spec, const CounterRng& rng, uint64_t i) {
  switch (spec.dist) {
    case Dist::kGaussian: return normal(rng, i, 0) * kGeneratorStd;
    case Dist::kLaplace: {
      // Laplace(b) has variance 2 b^2: b = std / sqrt(2). Inverse CDF on a symmetric uniform.
      double u = rng.uniform(8 * i) - 0.5;
      double b = kGeneratorStd / std::sqrt(2.0);
      double mag = -b * std::log(1.0 - 2.0 * std::fabs(u));
      return u < 0 ? -mag : mag;
    }
    case Dist::kStudentT: {
      // t_3 = Z / sqrt(chi2_3 / 3); its variance is nu / (nu - 2) = 3, so divide by sqrt(3).
      double z = normal(rng, i, 0);
      double a = normal(rng, i, 1), b = normal(rng, i, 2), c = normal(rng, i, 3);
      double chi2 = a * a + b * b + c * c;
      return z / std::sqrt(chi2 / 3.0) / std::sqrt(3.0) * kGeneratorStd;
    }
    case Dist::kSparse:
      // Draw 8i+7 is unused by normal(.., 0), so the zero mask is independent of the value.
      if (rng.uniform(8 * i + 7) < spec.zero_fraction) return 0.0;
      return normal(rng, i, 0) * kGeneratorStd;
  }
  return 0.0;
}

}  // namespace

void validate_distribution(std::string_view dist) {
  (void)parse(dist);
}

std::vector<float> generate_tensor(std::string_view dist, size_t count, uint64_t seed) {
  return generate_tensor_range(dist, 0, count, seed);
}

std::vector<float> generate_tensor_range(std::string_view dist, uint64_t first, size_t count,
                                         uint64_t seed) {
  Spec spec = parse(dist);
  CounterRng rng(seed, Purpose::kGenerator);
  std::vector<float> out(count);
  const auto n = static_cast<int64_t>(count);
#pragma omp parallel for schedule(static) if (n > (1 << 16))
  for (int64_t i = 0; i < n; ++i)
    out[i] = static_cast<float>(sample(spec, rng, first + uint64_t(i)));
  return out;
}

}  // namespace commlab
