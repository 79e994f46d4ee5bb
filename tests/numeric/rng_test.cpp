// The counter-based RNG (numeric/rng.h) every random choice goes through: a pure function of its
// key and index, uniform, with independent streams per purpose. Each bound below is a fixed
// number of standard errors; the seeds are fixed, so a failure means the mixer changed or broke.
#include "numeric/rng.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace commlab {
namespace {

constexpr int kDraws = 1 << 20;

TEST(CounterRng, IsAPureFunctionOfKeyAndIndex) {
  const CounterRng a(42, Purpose::kTrim, 3, 7);
  const CounterRng b(42, Purpose::kTrim, 3, 7);
  for (uint64_t i : {0ull, 1ull, 1000ull, 1ull << 40}) EXPECT_EQ(a.draw(i), b.draw(i));
  // Any part of the key changes the stream.
  EXPECT_NE(a.key(), CounterRng(43, Purpose::kTrim, 3, 7).key());
  EXPECT_NE(a.key(), CounterRng(42, Purpose::kDataOrder, 3, 7).key());
  EXPECT_NE(a.key(), CounterRng(42, Purpose::kTrim, 4, 7).key());
  EXPECT_NE(a.key(), CounterRng(42, Purpose::kTrim, 3, 8).key());
  // StreamRng is draw(start), draw(start + 1), ...
  StreamRng s(a, 5);
  EXPECT_EQ(s(), a.draw(5));
  EXPECT_EQ(s(), a.draw(6));
}

TEST(CounterRng, UniformHasTheMomentsOfU01) {
  // U(0,1): mean 1/2, variance 1/12. The sample mean's standard error is sqrt(1/12 / n); the
  // sample variance's is about sqrt(1/180 / n) (fourth central moment 1/80 minus 1/144).
  const CounterRng rng(1, Purpose::kGenerator);
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double u = rng.uniform(i);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum_sq += u * u;
  }
  const double mean = sum / kDraws;
  const double var = sum_sq / kDraws - mean * mean;
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / kDraws));
  EXPECT_NEAR(var, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / kDraws));
}

TEST(CounterRng, BelowFillsEveryBucketEvenly) {
  // Pearson's chi-square over 10 buckets has 9 degrees of freedom: mean 9, and P(chi2 > 33.7)
  // is 1e-4. A biased reduction (e.g. draw % n with a bad mixer) lands far above.
  const CounterRng rng(7, Purpose::kDataOrder);
  constexpr int kBuckets = 10;
  std::vector<int> count(kBuckets, 0);
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t b = rng.below(i, kBuckets);
    ASSERT_LT(b, static_cast<uint64_t>(kBuckets));
    ++count[b];
  }
  const double expected = static_cast<double>(kDraws) / kBuckets;
  double chi2 = 0;
  for (int c : count) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 33.7);
}

TEST(CounterRng, PurposesGiveUncorrelatedStreams) {
  // Two independent U(0,1) streams: the sample correlation has standard error 1 / sqrt(n).
  const CounterRng trim(9, Purpose::kTrim), order(9, Purpose::kDataOrder);
  // Neighbouring indices of one stream must not correlate either (lag-1 autocorrelation).
  double sxy = 0, sx = 0, sy = 0, sxx = 0, syy = 0, lag = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double x = trim.uniform(i) - 0.5, y = order.uniform(i) - 0.5;
    sxy += x * y;
    sx += x;
    sy += y;
    sxx += x * x;
    syy += y * y;
    lag += x * (trim.uniform(i + 1) - 0.5);
  }
  const double n = kDraws;
  const double corr = (sxy / n - sx / n * sy / n) /
                      std::sqrt((sxx / n - sx * sx / n / n) * (syy / n - sy * sy / n / n));
  EXPECT_LT(std::abs(corr), 5 / std::sqrt(n));
  EXPECT_LT(std::abs(lag / n / (1.0 / 12)), 5 / std::sqrt(n));
}

TEST(Mix64, FlippingOneInputBitFlipsHalfTheOutput) {
  // Avalanche: each output bit flips with probability 1/2, so a flip changes 32 of 64 bits on
  // average; over 64 x 2000 trials the mean's standard error is sqrt(16 / 128000) ~ 0.011.
  double flipped = 0;
  int trials = 0;
  for (uint64_t x = 0; x < 2000; ++x) {
    const uint64_t base = mix64(x * 0x9e3779b97f4a7c15ull);
    for (int bit = 0; bit < 64; ++bit) {
      flipped += std::popcount(base ^ mix64((x * 0x9e3779b97f4a7c15ull) ^ (1ull << bit)));
      ++trials;
    }
  }
  EXPECT_NEAR(flipped / trials, 32.0, 0.1);
}

TEST(StreamRng, NormalHasMeanZeroAndUnitVariance) {
  // Box-Muller on the stream: N(0,1). Standard errors: mean 1/sqrt(n), variance sqrt(2/n).
  StreamRng s(CounterRng(3, Purpose::kInit));
  constexpr int kNormals = 1 << 18;
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < kNormals; ++i) {
    const double z = s.normal();
    sum += z;
    sum_sq += z * z;
  }
  const double mean = sum / kNormals;
  EXPECT_NEAR(mean, 0.0, 5 / std::sqrt(double(kNormals)));
  EXPECT_NEAR(sum_sq / kNormals - mean * mean, 1.0, 5 * std::sqrt(2.0 / kNormals));
}

}  // namespace
}  // namespace commlab
