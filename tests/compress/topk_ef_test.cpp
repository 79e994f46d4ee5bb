// Top-k with error feedback (core/compress/topk_ef.h): exactly k pairs, the exact invariant
// residual + sent == g + e_prev, the wire packing, and error feedback's telescoping sum.
#include "compress/topk_ef.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "numeric/rng.h"

namespace commlab {
namespace {

std::vector<float> gaussian(size_t n, uint64_t seed, float mean = 0) {
  StreamRng rng(CounterRng(seed, Purpose::kGenerator));
  std::vector<float> v(n);
  for (float& x : v) x = mean + static_cast<float>(rng.normal());
  return v;
}

std::vector<float> dense(const SparseSet& s, size_t n) {
  std::vector<float> d(n, 0.0f);
  for (size_t j = 0; j < s.index.size(); ++j) d[s.index[j]] = s.value[j];
  return d;
}

TEST(TopKCount, IsCeilOfFractionTimesSizeWithinOneAndSize) {
  EXPECT_EQ(topk_count(0.1, 1000), 100u);
  EXPECT_EQ(topk_count(0.1, 1001), 101u);  // ceil(100.1)
  EXPECT_EQ(topk_count(1e-9, 10), 1u);
  EXPECT_EQ(topk_count(1.0, 7), 7u);
  EXPECT_EQ(topk_count(0.5, 0), 0u);
  EXPECT_EQ(sparse_wire_bytes(10, DType::kBf16), 60u);  // 10 * (4 + 2)
  EXPECT_EQ(sparse_wire_bytes(10, DType::kFp32), 80u);  // 10 * (4 + 4)
}

TEST(TopKErrorFeedback, KeepsExactlyTheKLargestMagnitudes) {
  const size_t n = 1000;
  TopKErrorFeedback topk(0.1, DType::kFp32);
  const std::vector<float> g = gaussian(n, 3);
  SparseSet s;
  topk.compress(g, s);
  ASSERT_EQ(s.index.size(), 100u);
  ASSERT_EQ(s.value.size(), 100u);
  float smallest_kept = INFINITY;
  for (size_t j = 0; j < s.index.size(); ++j) {
    if (j > 0) EXPECT_LT(s.index[j - 1], s.index[j]);  // ascending, no duplicates
    EXPECT_EQ(s.value[j], g[s.index[j]]);              // fp32: sent unchanged, e_prev = 0
    smallest_kept = std::min(smallest_kept, std::fabs(s.value[j]));
  }
  const std::vector<float> sent = dense(s, n);
  for (size_t i = 0; i < n; ++i)
    if (sent[i] == 0.0f) EXPECT_LE(std::fabs(g[i]), smallest_kept) << i;
}

// e_t + sent_t == g_t + e_{t-1}, exactly in FP32, every element and step (BF16 rounding of the
// sent values included: a - bf16(a) is exactly representable).
TEST(TopKErrorFeedback, ResidualPlusSentIsGradientPlusPreviousResidualExactly) {
  for (DType wire : {DType::kFp32, DType::kBf16}) {
    const size_t n = 4099;
    TopKErrorFeedback topk(0.03, wire);
    std::vector<float> previous(n, 0.0f);
    for (int t = 0; t < 20; ++t) {
      const std::vector<float> g = gaussian(n, 100 + t);
      SparseSet s;
      topk.compress(g, s);
      ASSERT_EQ(s.index.size(), topk_count(0.03, n));
      const std::vector<float> sent = dense(s, n);
      const auto e = topk.residual();
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(e[i] + sent[i], g[i] + previous[i]) << "t " << t << " i " << i;
      previous.assign(e.begin(), e.end());
    }
  }
}

// Sum of sent over T steps = sum of g - e_T (telescoping), and e stays bounded: with a common
// mean the gradients' sum grows like T, so the relative gap falls like 1/T.
TEST(TopKErrorFeedback, SentSumConvergesToGradientSum) {
  const size_t n = 2000;
  TopKErrorFeedback topk(0.02, DType::kFp32);
  std::vector<double> sum_g(n, 0), sum_sent(n, 0);
  double gap_at_50 = 0, max_residual = 0;
  for (int t = 1; t <= 400; ++t) {
    const std::vector<float> g = gaussian(n, 7000 + t, 0.3f);
    SparseSet s;
    topk.compress(g, s);
    for (size_t i = 0; i < n; ++i) sum_g[i] += g[i];
    for (size_t j = 0; j < s.index.size(); ++j) sum_sent[s.index[j]] += s.value[j];
    double gap = 0, ref = 0, res = 0;
    for (size_t i = 0; i < n; ++i) {
      gap += (sum_sent[i] - sum_g[i]) * (sum_sent[i] - sum_g[i]);
      ref += sum_g[i] * sum_g[i];
      res += double(topk.residual()[i]) * topk.residual()[i];
    }
    max_residual = std::max(max_residual, std::sqrt(res));
    if (t == 50) gap_at_50 = std::sqrt(gap / ref);
    if (t == 400) {
      EXPECT_LT(std::sqrt(gap / ref), gap_at_50 / 4);  // ~1/T: 8x more steps
      EXPECT_LT(std::sqrt(gap / ref), 0.1);
      // The gap is the residual (telescoping), up to float rounding of the running sums.
      EXPECT_NEAR(std::sqrt(gap), std::sqrt(res), 1e-3 * std::sqrt(res));
    }
  }
  // ||e|| stays bounded (340 here): never sending would let it grow like the mean's sum,
  // 0.3 * 400 * sqrt(n) = 5367 at T = 400.
  EXPECT_LT(max_residual, 5367 / 4.0);
}

TEST(SparseWire, PackThenAddRoundTrips) {
  SparseSet s{{0, 5, 9}, {1.5f, -2.25f, 3.0f}};
  for (DType wire : {DType::kFp32, DType::kBf16}) {
    std::vector<std::byte> bytes(sparse_wire_bytes(3, wire));
    pack_sparse(s, wire, bytes);
    std::vector<float> d(10, 1.0f);
    add_packed_sparse(bytes, 3, wire, d);
    EXPECT_EQ(d[0], 2.5f);  // values exact in bf16 too
    EXPECT_EQ(d[5], -1.25f);
    EXPECT_EQ(d[9], 4.0f);
    EXPECT_EQ(d[1], 1.0f);
    std::vector<float> small(5, 0.0f);
    EXPECT_THROW(add_packed_sparse(bytes, 3, wire, small), std::out_of_range);
  }
}

}  // namespace
}  // namespace commlab
