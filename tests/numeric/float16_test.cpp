// BF16 and FP16 conversions (numeric/float16.h): round to nearest with ties to even, NaN kept a
// NaN, infinities, signed zeros and FP16 subnormals, checked at the boundaries and exhaustively.
#include "numeric/float16.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace commlab {
namespace {

TEST(Bf16, TiesRoundToEven) {
  // BF16 keeps 7 mantissa bits: near 1.0 its step is 2^-7, so 1 + 2^-8 lies halfway between
  // 1.0 (mantissa 0, even) and 1 + 2^-7 (mantissa 1, odd): it goes to 1.0 = 0x3f80.
  EXPECT_EQ(float_to_bf16(1.0f + 0x1.0p-8f), 0x3f80);
  // 1 + 3 x 2^-8 lies halfway between mantissas 1 (odd) and 2 (even): it goes to 0x3f82.
  EXPECT_EQ(float_to_bf16(1.0f + 3 * 0x1.0p-8f), 0x3f82);
  // Just above the halfway point rounds up.
  EXPECT_EQ(float_to_bf16(1.0f + 0x1.0p-8f + 0x1.0p-20f), 0x3f81);
  // Just below it rounds down.
  EXPECT_EQ(float_to_bf16(1.0f + 0x1.0p-8f - 0x1.0p-20f), 0x3f80);
}

TEST(Bf16, SpecialValuesKeepTheirKind) {
  // A NaN whose payload sits only in the low 16 bits would truncate to infinity: it must stay NaN.
  const float low_payload_nan = std::bit_cast<float>(0x7f800001u);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(low_payload_nan))));
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(float_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
  // FLT_MAX = (2 - 2^-23) x 2^127 is above BF16's largest finite (2 - 2^-7) x 2^127 by more than
  // half a step, so round to nearest gives infinity (as IEEE rounding does on overflow).
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);
}

TEST(Bf16, EveryPatternRoundTripsAndConversionIsNearest) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const float f = bf16_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(f)))) << h;
      continue;
    }
    ASSERT_EQ(float_to_bf16(f), h) << "pattern " << h;
  }
  // Nearest: for floats between two BF16 neighbours, the result is the closer one (distance
  // compared in double, exact for these values).
  for (uint32_t u = 0x3f800000u; u < 0x3f800000u + (1u << 20); u += 37) {
    const float f = std::bit_cast<float>(u);
    const uint16_t r = float_to_bf16(f);
    const double got = bf16_to_float(r);
    const double below = bf16_to_float(static_cast<uint16_t>(u >> 16));
    const double above = bf16_to_float(static_cast<uint16_t>((u >> 16) + 1));
    ASSERT_LE(std::abs(got - f), std::min(std::abs(below - f), std::abs(above - f))) << u;
  }
}

TEST(Fp16, LimitsAndOverflow) {
  // FP16's largest finite is (2 - 2^-10) x 2^15 = 65504 = 0x7bff; its next step would be 65536,
  // so 65520 is the halfway point and ties to even (65536, an infinity) while 65519 stays finite.
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00);
  EXPECT_EQ(float_to_fp16(-1e9f), 0xfc00);
  EXPECT_EQ(float_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_fp16(1.0f), 0x3c00);
}

TEST(Fp16, SubnormalsRoundToEven) {
  // The smallest subnormal is 2^-24 = 0x0001. 2^-25 lies halfway between 0 (even) and 2^-24:
  // it goes to 0. 3 x 2^-25 lies halfway between 1 and 2 (even): it goes to 0x0002.
  EXPECT_EQ(float_to_fp16(0x1.0p-24f), 0x0001);
  EXPECT_EQ(float_to_fp16(0x1.0p-25f), 0x0000);
  EXPECT_EQ(float_to_fp16(3 * 0x1.0p-25f), 0x0002);
  EXPECT_FLOAT_EQ(fp16_to_float(0x0001), 0x1.0p-24f);
  EXPECT_FLOAT_EQ(fp16_to_float(0x03ff), 1023 * 0x1.0p-24f);  // largest subnormal
}

TEST(Fp16, EveryPatternRoundTrips) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const float f = fp16_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(f)))) << h;
      continue;
    }
    ASSERT_EQ(float_to_fp16(f), h) << "pattern " << h;
  }
}

}  // namespace
}  // namespace commlab
