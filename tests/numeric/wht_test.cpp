// Walsh-Hadamard transform and RHT: algebraic identities and a naive O(d^2) reference.
#include "numeric/wht.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <vector>

#include "numeric/rng.h"

namespace commlab {
namespace {

std::vector<float> gaussian(size_t n, uint64_t seed) {
  StreamRng rng(CounterRng(seed, Purpose::kGenerator));
  std::vector<float> x(n);
  for (float& v : x) v = static_cast<float>(rng.normal());
  return x;
}

// Row j of the Sylvester-Hadamard matrix: H_ij = (-1)^popcount(i & j).
double naive_row(const std::vector<float>& x, size_t j) {
  double s = 0.0;
  for (size_t i = 0; i < x.size(); ++i) s += (std::popcount(i & j) & 1) ? -x[i] : x[i];
  return s;
}

TEST(Wht, MatchesNaiveReferenceOnSmallSizes) {
  for (size_t d = 1; d <= 512; d *= 2) {
    auto x = gaussian(d, d);
    auto y = x;
    fwht(y);
    for (size_t j = 0; j < d; ++j) {
      EXPECT_NEAR(y[j], naive_row(x, j), 1e-4 * std::sqrt(static_cast<double>(d))) << d << " " << j;
    }
  }
}

TEST(Wht, BlockedStagesMatchNaiveRowsBeyondTheL1Block) {
  // 2^13, 2^14 and 2^15 exercise one outer stage, one radix-4 sweep, and radix-4 plus one stage.
  for (size_t d : {size_t{1} << 13, size_t{1} << 14, size_t{1} << 15}) {
    auto x = gaussian(d, 7);
    auto y = x;
    fwht(y);
    CounterRng pick(3, Purpose::kGenerator);
    for (int r = 0; r < 48; ++r) {
      size_t j = pick.below(r, d);
      EXPECT_NEAR(y[j], naive_row(x, j), 2e-4 * std::sqrt(static_cast<double>(d))) << d << " " << j;
    }
  }
}

TEST(Wht, AppliedTwiceIsDTimesIdentity) {
  // H H = d I for the Sylvester construction.
  for (size_t d = 1; d <= (size_t{1} << 16); d *= 4) {
    auto x = gaussian(d, 11);
    auto y = x;
    fwht(y);
    fwht(y);
    for (size_t i = 0; i < d; ++i) ASSERT_NEAR(y[i], d * x[i], 1e-5 * d * (1 + std::fabs(x[i])));
  }
}

TEST(Wht, RejectsSizesThatAreNotPowersOfTwo) {
  std::vector<float> x(12);
  EXPECT_THROW(fwht(x), std::invalid_argument);
  EXPECT_EQ(next_pow2(1000), 1024u);
  EXPECT_EQ(next_pow2(1024), 1024u);
  EXPECT_EQ(next_pow2(0), 1u);
}

TEST(Rht, IsAnOrthonormalRotationWithAnExactInverse) {
  const size_t d = 4096;
  auto x = gaussian(d, 5);
  auto y = x;
  const uint64_t key = rademacher_key(42, 3, 9);
  rht_forward(y, key);
  double nx = 0, ny = 0;
  for (size_t i = 0; i < d; ++i) nx += double(x[i]) * x[i], ny += double(y[i]) * y[i];
  // ||R x|| = ||x||: H/sqrt(d) and D are orthogonal.
  EXPECT_NEAR(ny / nx, 1.0, 1e-5);
  rht_inverse(y, key);
  for (size_t i = 0; i < d; ++i) ASSERT_NEAR(y[i], x[i], 1e-5);
}

TEST(Rht, SignsDependOnTheKeyAndAreBalanced) {
  const size_t d = 1 << 14;
  std::vector<float> a(d, 1.0f), b(d, 1.0f);
  apply_rademacher(a, rademacher_key(1));
  apply_rademacher(b, rademacher_key(2));
  double sum = 0;
  size_t same = 0;
  for (size_t i = 0; i < d; ++i) sum += a[i], same += a[i] == b[i];
  // Sum of d fair signs: mean 0, std sqrt(d) = 128; 5 sigma.
  EXPECT_LT(std::fabs(sum), 5 * 128);
  // Two keys agree on half the signs (std 64).
  EXPECT_NEAR(static_cast<double>(same), d / 2.0, 5 * 64);
  std::vector<float> c(d, 1.0f);
  apply_rademacher(c, rademacher_key(1));
  EXPECT_EQ(a, c);  // both ends derive the same signs from the same key
}

TEST(Rht, PaddedRotationKeepsTheNorm) {
  auto x = gaussian(1000, 9);
  auto y = rht_padded(x, rademacher_key(4));
  ASSERT_EQ(y.size(), 1024u);
  double nx = 0, ny = 0;
  for (float v : x) nx += double(v) * v;
  for (float v : y) ny += double(v) * v;
  EXPECT_NEAR(ny / nx, 1.0, 1e-5);
}

}  // namespace
}  // namespace commlab
