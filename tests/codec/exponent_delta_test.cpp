// commlab format version 3: exponent prediction from one row earlier
// (codec/commlab/exponent_delta.h) and the decoder's per-frame table cache
// (codec/huffman/huffman.h). Round trips through the whole codec on data made of scaled rows, the
// shape of an MLP weight gradient.
#include "codec/commlab/exponent_delta.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "codec/codec.h"
#include "codec/huffman/huffman.h"
#include "codec/value_cast.h"
#include "numeric/rng.h"

namespace commlab {
namespace {

// rows x cols values: row r = s_r * base (s_r in [0.5, 4)), with dead columns (15%, at random)
// and 1 row in 16 exactly zero, like x_i^T delta for a pixel i active in one image. With
// shared = false every row has its own base (the same dead columns): nothing to predict.
std::vector<float> scaled_rows(size_t rows, size_t cols, bool shared) {
  CounterRng rng(7, Purpose::kCodec);
  std::vector<float> v(rows * cols, 0.0f);
  for (size_t r = 0; r < rows; ++r) {
    if (r % 16 == 5) continue;
    const float s = 0.5f + 3.5f * float(rng.uniform(r));
    const uint64_t b = shared ? 0 : 1000000 * (r + 1);
    for (size_t c = 0; c < cols; ++c) {
      if (rng.uniform(c + 100000) < 0.15) continue;  // dead column
      // Log-uniform magnitudes over 12 binades, random signs: plain exponents cost ~3.6 bits.
      const float mag = 1e-3f * std::exp2(-12.0f * float(rng.uniform(b + c + 300000)));
      v[r * cols + c] = s * (rng.draw(b + c + 200000) & 1 ? mag : -mag);
    }
  }
  return v;
}

std::vector<std::byte> round_trip(const std::vector<std::byte>& in, DType d, size_t* size) {
  auto enc = make_codec("commlab"), dec = make_codec("commlab");
  std::vector<std::byte> frame(enc->bound(in.size())), out(in.size());
  Result<size_t> n = enc->encode(in, d, frame);
  EXPECT_TRUE(n.ok());
  *size = n.ok() ? *n : 0;
  EXPECT_TRUE(dec->decode(std::span(frame).first(*size), out).ok());
  return out;
}

TEST(ExponentDelta, ScaledRowsRoundTripBitExactAndCompressBetter) {
  for (DType d : {DType::kBf16, DType::kFp16, DType::kFp32}) {
    SCOPED_TRACE(dtype_name(d));
    // 3 blocks of rows of 256 (period 256 in the zero mask: dead columns, zero rows).
    const auto in = to_dtype_bytes(scaled_rows(600, 256, true), d);
    size_t with = 0;
    EXPECT_EQ(round_trip(in, d, &with), in);
    const auto other = to_dtype_bytes(scaled_rows(600, 256, false), d);
    size_t without = 0;
    EXPECT_EQ(round_trip(other, d, &without), other);
    // A scaled row's exponents differ from the row above's by a near-constant offset (0-3
    // binades, +-1 for the mantissa product): ~2.5 bits per nonzero against ~3.6 for the plain
    // exponents, 1 bit of 16 (BF16) or 32: at least 2% of the frame.
    EXPECT_LT(double(with), 0.98 * double(without));
  }
}

TEST(ExponentDelta, DecodeInvertsEncodeIncludingWrapAndZeros) {
  // Exponent differences of every value mod 256 (including 0x80 with a nonzero mantissa, which
  // is fine) between rows q apart, zeros in both rows, against the scalar definition.
  const uint32_t q = 16;
  std::vector<uint16_t> x(4096);
  CounterRng rng(3, Purpose::kCodec);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = rng.uniform(i) < 0.2 ? uint16_t(0) : uint16_t(rng.draw(i + 5000) | 1);
  }
  std::vector<std::byte> y(x.size() * 2);
  ASSERT_TRUE(expdelta::encode<uint16_t>(reinterpret_cast<const std::byte*>(x.data()), x.size(), q,
                                         y.data()));
  // Encoded words: zeros stay zeros, nonzeros stay nonzero (all mantissas odd here).
  for (size_t i = 0; i < x.size(); ++i) {
    uint16_t w;
    std::memcpy(&w, &y[2 * i], 2);
    EXPECT_EQ(w == 0, x[i] == 0) << i;
  }
  expdelta::decode<uint16_t>(y.data(), x.size(), q);
  EXPECT_EQ(std::memcmp(y.data(), x.data(), y.size()), 0);
}

TEST(ExponentDelta, RefusesAWordItWouldTurnIntoZero) {
  // +2^-1 (0x3f00) one row below +2^-129... as BF16 words: exponents 126 and 254 - 128 apart
  // ((126 - 254) mod 256 = 128, XOR 0x80 = 0) with zero sign and mantissa: the coded word would
  // be 0x0000, a zero element to the decoder.
  std::vector<uint16_t> x(64, 0x3c00);
  x[0] = 0x7f00;   // exponent 254
  x[16] = 0x3f00;  // exponent 126
  std::vector<std::byte> y(x.size() * 2);
  EXPECT_FALSE(expdelta::encode<uint16_t>(reinterpret_cast<const std::byte*>(x.data()), x.size(),
                                          16, y.data()));
  // The codec then codes that block plainly and still round-trips.
  std::vector<std::byte> in(x.size() * 2);
  std::memcpy(in.data(), x.data(), in.size());
  size_t size = 0;
  EXPECT_EQ(round_trip(in, DType::kBf16, &size), in);
}

TEST(TableCache, SameCodeTwiceDecodesTheSameWithAndWithoutTheCache) {
  // Two long streams with the same symbol counts get the same code; the second decode with the
  // cache must use the cached tables and still give the symbols.
  std::vector<uint8_t> s(40000);
  for (size_t i = 0; i < s.size(); ++i) s[i] = uint8_t(100 + (i * i) % 11 + (i % 3));
  std::vector<std::byte> buf(entropy::stream_bound(s.size(), 256) + 64);
  Result<size_t> n = entropy::encode_stream(s.data(), s.size(), 256, std::span(buf));
  ASSERT_TRUE(n.ok());
  entropy::TableCache cache;
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<uint8_t> out(s.size());
    Result<size_t> used =
        entropy::decode_stream(std::span(buf).first(*n), s.size(), 256, out.data(), &cache);
    ASSERT_TRUE(used.ok());
    EXPECT_EQ(*used, *n);
    EXPECT_EQ(out, s) << pass;
  }
  cache.clear();
  std::vector<uint8_t> out(s.size());
  EXPECT_TRUE(
      entropy::decode_stream(std::span(buf).first(*n), s.size(), 256, out.data(), &cache).ok());
  EXPECT_EQ(out, s);
}

}  // namespace
}  // namespace commlab
