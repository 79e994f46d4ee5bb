// Statistical accuracy of the head encodings against the theory (the trimming paper, docs/papers.md): vNMSE at
// d = 2^14 with every packet trimmed to its head, and unbiasedness of the decode.
#include <gtest/gtest.h>

#include <cmath>

#include "codec/lossy/quant_head.h"
#include "codec/lossy/quant_tables.h"
#include "trim_test_util.h"

namespace commlab::trim {
namespace {

using testing::gaussian;
using testing::sq_dist;
using testing::sq_norm;

// Mean over `trials` seeds of ||x^ - x||^2 / ||x||^2 with every packet trimmed to `keep_bits`.
double vnmse(TrimConfig c, size_t d, int keep_bits, int trials) {
  double sum = 0.0;
  std::vector<float> out(d);
  for (int t = 0; t < trials; ++t) {
    auto x = gaussian(d, 7000 + t);
    c.seed = 100 + t;
    auto packets = encode_packets(x, c, 0, 0);
    auto r = decode_packets(testing::trim_all(packets, keep_bits), c, out);
    EXPECT_TRUE(r.ok());
    sum += sq_dist(out, x) / sq_norm(x);
  }
  return sum / trials;
}

TrimConfig config(TrimEncoding e, int bits, size_t per_packet, bool unbiased = true) {
  TrimConfig c;
  c.encoding = e;
  c.head_bits = bits;
  set_coords_per_packet(c, per_packet);
  c.unbiased = unbiased;
  return c;
}

constexpr size_t kD = size_t{1} << 14;
constexpr int kTrials = 24;

TEST(TrimAccuracy, SqHeadsMatchTheirExactExpectedError) {
  // SQ (per-packet min-max grid, stochastic rounding): for a fixed x the expected error is exact
  // (quant_head.h, sq_expected_error): sum over coordinates of
  //   (t - floor t)(v(floor t + 1) - x)^2 + (1 - t + floor t)(v(floor t) - x)^2,
  // v the decoded midpoint of the cells the kept bits leave open. The mean over 64 roundings of
  // 2^14 coordinates lands within 3% of it, for b-bit heads trimmed to k bits.
  const auto x = gaussian(kD, 4242);
  struct Case {
    int bits, keep;
  };
  for (Case k : {Case{1, 1}, Case{2, 2}, Case{2, 1}, Case{4, 2}}) {
    TrimConfig c = config(TrimEncoding::kSq, k.bits, 1024);
    std::vector<float> out(kD);
    double err = 0.0;
    const int trials = 64;
    for (int t = 0; t < trials; ++t) {
      c.seed = 500 + t;
      auto packets = encode_packets(x, c, 0, 0);
      ASSERT_TRUE(decode_packets(testing::trim_all(packets, k.keep), c, out).ok());
      err += sq_dist(out, x) / trials;
    }
    const double want = sq_expected_error(x, 1024, k.bits, k.keep);
    EXPECT_NEAR(err / want, 1.0, 0.03) << k.bits << " bits kept to " << k.keep;
  }
  // 1-bit min-max SQ on Gaussian packets of 1024: (x - min)(max - x) summed is about
  // (max^2 - E x^2) per coordinate, max ~ 3.2 sigma: vNMSE near 9, far above DRIVE's 0.57.
  EXPECT_THROW(sq_expected_error(x, 1024, 2, 3), std::invalid_argument) << "keep more than sent";
  // packet_coords 0 is one packet of all of x (it looped forever).
  EXPECT_EQ(sq_expected_error(x, 0, 1, 1), sq_expected_error(x, kD, 1, 1));
  const double one_bit = sq_expected_error(x, 1024, 1, 1) / sq_norm(x);
  EXPECT_GT(one_bit, 6.0);
  EXPECT_LT(one_bit, 12.0);
}

TEST(TrimAccuracy, DriveUnbiasedOneBitMatchesPiOverTwoMinusOne) {
  // DRIVE (Vargaftik et al., NeurIPS 2021), unbiased scale S = ||x||^2 / ||R(x)||_1: for large d
  // vNMSE -> pi/2 - 1 = 0.5708 (the trimming paper, docs/papers.md). One RHT block of d = 2^14.
  const double want = M_PI / 2 - 1;
  EXPECT_NEAR(vnmse(config(TrimEncoding::kDrive, 1, kD), kD, 1, kTrials), want, 0.02 * want);
  // The same with packets of 2^10 coordinates (16 RHT blocks, each self-contained).
  EXPECT_NEAR(vnmse(config(TrimEncoding::kDrive, 1, 1024), kD, 1, kTrials), want, 0.02 * want);
}

TEST(TrimAccuracy, DriveMinMseScaleGivesOneMinusTwoOverPi) {
  // Min-MSE DRIVE, S = ||R(x)||_1 / d: vNMSE = 1 - ||R(x)||_1^2 / (d ||x||^2) -> 1 - 2/pi = 0.3634.
  const double want = 1 - 2 / M_PI;
  EXPECT_NEAR(vnmse(config(TrimEncoding::kDrive, 1, kD, false), kD, 1, kTrials), want, 0.02 * want);
}

TEST(TrimAccuracy, EdenOneBitMatchesPiOverTwoMinusOne) {
  // EDEN (Vargaftik et al., ICML 2022), unbiased: vNMSE -> D_b / (1 - D_b) with D_b the Lloyd-Max
  // distortion of N(0,1); b = 1: D = 1 - 2/pi, so pi/2 - 1 = 0.5708.
  const double want = M_PI / 2 - 1;
  EXPECT_NEAR(vnmse(config(TrimEncoding::kEden, 1, kD), kD, 1, kTrials), want, 0.02 * want);
  // A 2-bit head trimmed to its top plane (the sign) is the same 1-bit EDEN.
  EXPECT_NEAR(vnmse(config(TrimEncoding::kEden, 2, kD), kD, 1, kTrials), want, 0.02 * want);
}

TEST(TrimAccuracy, EdenTwoBitMatchesLloydMaxTheory) {
  // b = 2: D = 0.1175 (Max 1960), D / (1 - D) = 0.1331 (the trimming paper, docs/papers.md).
  EXPECT_NEAR(eden_unbiased_vnmse(2), 0.1331, 5e-4);
  EXPECT_NEAR(vnmse(config(TrimEncoding::kEden, 2, kD), kD, 2, kTrials), 0.1331, 0.03 * 0.1331);
}

TEST(TrimAccuracy, EdenThreeAndFourBitsMatchLloydMaxTheory) {
  // b = 3: 0.0358, b = 4: 0.0096 (D / (1 - D) with D = 0.03454 and 0.009497).
  EXPECT_NEAR(vnmse(config(TrimEncoding::kEden, 3, kD), kD, 3, kTrials / 2), 0.0358, 0.03 * 0.0358);
  EXPECT_NEAR(vnmse(config(TrimEncoding::kEden, 4, kD), kD, 4, kTrials / 2), 0.0096, 0.03 * 0.0096);
}

TEST(TrimAccuracy, OneBitSqIsFarWorseAndGrowsWithBlockSize) {
  // Min-max 1-bit SQ: vNMSE ~ (range/2)^2 / E[x^2] which grows like log d for Gaussian data
  // (the trimming paper, docs/papers.md: about 7 at d = 256, 12.6 at d = 4096).
  double small = vnmse(config(TrimEncoding::kSq, 1, 256), 4096, 1, 8);
  double large = vnmse(config(TrimEncoding::kSq, 1, 4096), 4096, 1, 8);
  EXPECT_NEAR(small, 7.0, 1.0);
  EXPECT_NEAR(large, 12.6, 1.5);
}

// ||mean of T decodes - x||^2 / ||x||^2: an unbiased decoder gives vNMSE / T on average.
void expect_unbiased(TrimConfig c, size_t d, int keep_bits, int trials) {
  auto x = gaussian(d, 31);
  std::vector<double> mean(d, 0.0);
  std::vector<float> out(d);
  double single = 0.0;
  for (int t = 0; t < trials; ++t) {
    c.seed = 5000 + t;
    auto packets = encode_packets(x, c, 2, 4);
    ASSERT_TRUE(decode_packets(testing::trim_all(packets, keep_bits), c, out).ok());
    single += sq_dist(out, x) / sq_norm(x) / trials;
    for (size_t i = 0; i < d; ++i) mean[i] += out[i] / static_cast<double>(trials);
  }
  double bias = 0.0;
  for (size_t i = 0; i < d; ++i) bias += (mean[i] - x[i]) * (mean[i] - x[i]);
  bias /= sq_norm(x);
  // E||mean - x||^2 / ||x||^2 = vNMSE / T for independent unbiased decodes; allow 1.5x for noise.
  // A biased decoder (e.g. min-MSE scale, vNMSE floor 1 - 2/pi - ...) stays far above this.
  EXPECT_LT(bias, 1.5 * single / trials) << encoding_name(c.encoding) << " bits " << keep_bits;
}

TEST(TrimAccuracy, MeanOfManyDecodesConvergesToX) {
  // SQ's Bernoulli rounding is exactly unbiased. DRIVE/EDEN are exactly unbiased for a uniformly
  // random rotation; the RHT is a structured one with a small residual bias that shrinks with the
  // block (measured at T = 8000: relative squared bias ~4e-5 at d = 128, ~6e-6 at d = 1024), so the
  // RHT cases use realistic 1024-coordinate packets, where it is ~2 % of vNMSE / T at T = 2000.
  expect_unbiased(config(TrimEncoding::kDrive, 1, 1024), 2048, 1, 2000);
  expect_unbiased(config(TrimEncoding::kEden, 1, 1024), 2048, 1, 2000);
  expect_unbiased(config(TrimEncoding::kEden, 2, 1024), 2048, 2, 2000);
  expect_unbiased(config(TrimEncoding::kSq, 1, 128), 512, 1, 2000);
  expect_unbiased(config(TrimEncoding::kSq, 3, 128), 512, 3, 2000);
}

TEST(TrimAccuracy, MinMseScaleIsBiased) {
  // The min-MSE scale shrinks every estimate by E|z|^2-ish factors: the mean of decodes stays at
  // (2/pi) x in the 1-bit case, a bias of (1 - 2/pi)^2 = 0.132 in relative squared norm.
  TrimConfig c = config(TrimEncoding::kDrive, 1, 128, false);
  const size_t d = 512;
  auto x = gaussian(d, 31);
  std::vector<double> mean(d, 0.0);
  std::vector<float> out(d);
  const int trials = 500;
  for (int t = 0; t < trials; ++t) {
    c.seed = 9000 + t;
    auto packets = encode_packets(x, c, 0, 0);
    ASSERT_TRUE(decode_packets(testing::trim_all(packets, 1), c, out).ok());
    for (size_t i = 0; i < d; ++i) mean[i] += out[i] / static_cast<double>(trials);
  }
  double bias = 0.0;
  for (size_t i = 0; i < d; ++i) bias += (mean[i] - x[i]) * (mean[i] - x[i]);
  EXPECT_NEAR(bias / sq_norm(x), std::pow(1 - 2 / M_PI, 2), 0.03);
}

}  // namespace
}  // namespace commlab::trim
