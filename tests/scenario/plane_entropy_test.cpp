// Byte-plane entropy (codec/plane_entropy.h) on inputs whose entropy is known exactly, and the
// per-bucket entropy the collective reducer reports to the trainer's samples.
#include "codec/plane_entropy.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "numeric/float16.h"
#include "scenario/runner.h"

namespace commlab {
namespace {

TEST(PlaneEntropy, ConstantValuesHaveNoEntropy) {
  const std::vector<float> v(1000, 0.0f);
  for (DType d : {DType::kBf16, DType::kFp16, DType::kFp32}) {
    const std::vector<double> h = byte_plane_entropy(v, d);
    // One symbol per plane: H = -1 * log2(1) = 0.
    ASSERT_EQ(h.size(), dtype_size(d));
    for (double x : h) EXPECT_DOUBLE_EQ(x, 0.0);
  }
  EXPECT_EQ(byte_plane_entropy({}, DType::kBf16), (std::vector<double>{0.0, 0.0}));
}

TEST(PlaneEntropy, UniformLowByteIsEightBitsAndTwoHighBytesOneBit) {
  // BF16 words 0x3f00..0x3fff and 0xbf00..0xbfff (exactly representable): the high byte takes two
  // values equally often (H = 1 bit), the low byte all 256 values equally often (H = log2 256 = 8).
  std::vector<float> v;
  for (uint32_t hi : {0x3fu, 0xbfu})
    for (uint32_t lo = 0; lo < 256; ++lo) v.push_back(bf16_to_float(uint16_t(hi << 8 | lo)));
  const std::vector<double> h = byte_plane_entropy(v, DType::kBf16);
  ASSERT_EQ(h.size(), 2u);
  EXPECT_NEAR(h[0], 1.0, 1e-12);
  EXPECT_NEAR(h[1], 8.0, 1e-12);
}

TEST(PlaneEntropy, Fp32PlanesAreReadMostSignificantFirst) {
  // Byte 3 (MSB) constant 0x40, byte 2 four values (2 bits), byte 1 constant, byte 0 two values
  // (1 bit): 16 words with each combination once.
  std::vector<float> v;
  for (uint32_t b2 = 0; b2 < 4; ++b2)
    for (uint32_t b0 = 0; b0 < 2; ++b0)
      for (int rep = 0; rep < 2; ++rep)
        v.push_back(std::bit_cast<float>(0x40000000u | b2 << 16 | 0x7700u | b0));
  const std::vector<double> h = byte_plane_entropy(v, DType::kFp32);
  ASSERT_EQ(h.size(), 4u);
  EXPECT_NEAR(h[0], 0.0, 1e-12);
  EXPECT_NEAR(h[1], 2.0, 1e-12);
  EXPECT_NEAR(h[2], 0.0, 1e-12);
  EXPECT_NEAR(h[3], 1.0, 1e-12);
}

TEST(PlaneEntropy, TrainingSamplesCarryEachBucketsPlanes) {
  // A short training run with a BF16 wire: every bucket reports two planes in [0, 8], and on a
  // real gradient the sign + exponent byte is far more predictable than the mantissa byte (the
  // reason byte grouping pays; measured about 3-4 vs 7-8 bits on the MLP).
  RunConfig c;
  c.training.iterations = 2;
  c.training.ranks = 2;
  c.collective.wire = DType::kBf16;
  c.workload.max_train = 1024;
  RunSession session(c);
  const Sample& s = session.step();
  ASSERT_FALSE(s.buckets.empty());
  for (const BucketSample& b : s.buckets) {
    SCOPED_TRACE(b.name);
    ASSERT_EQ(b.plane_entropy.size(), 2u);
    EXPECT_GT(b.plane_entropy[0], 0.0);
    EXPECT_LE(b.plane_entropy[1], 8.0);
    // A bucket of 10 biases has 10 distinct words: both planes can be log2(10).
    if (b.elements >= 1000) EXPECT_LT(b.plane_entropy[0] + 1.0, b.plane_entropy[1]);
  }
}

}  // namespace
}  // namespace commlab
