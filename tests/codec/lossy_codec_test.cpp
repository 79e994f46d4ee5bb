// The lossy codecs: netzip-paper's loss is real and reported; casts, top-k and PowerSGD behave as
// their definitions say.
#include <gtest/gtest.h>

#include <cmath>

#include "codec/codec.h"
#include "codec/error_stats.h"
#include "codec/placement.h"
#include "codec_test_util.h"

namespace commlab {
namespace {

std::vector<std::byte> round_trip(Codec& codec, const std::vector<std::byte>& in, DType dtype) {
  auto frame = test::encode_all(codec, in, dtype);
  std::vector<std::byte> out(in.size());
  Result<size_t> r = codec.decode(frame, out);
  EXPECT_TRUE(r.ok()) << r.error();
  return out;
}

TEST(ErrorStats, NonFiniteValuesCountAndMakeTheErrorInfinite) {
  // original {1, inf, nan, 2, nan}, decoded {1, 5, nan, inf, 3}: inf -> 5, 2 -> inf and nan -> 3
  // are infinitely wrong; nan -> nan is the same non-number; 3 of 5 values changed.
  const std::vector<float> a{1.0f, INFINITY, NAN, 2.0f, NAN}, b{1.0f, 5.0f, NAN, INFINITY, 3.0f};
  auto bytes = [](const std::vector<float>& v) {
    return std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data()), v.size() * 4);
  };
  ErrorStats e = compare_values(bytes(a), bytes(b), DType::kFp32);
  EXPECT_EQ(e.nonfinite_mismatches, 3u);
  EXPECT_EQ(e.changed, 3u);
  EXPECT_TRUE(std::isinf(e.max_abs_error));
  EXPECT_FALSE(e.bit_exact);
  // Finite values only: the usual maximum, no mismatch.
  const std::vector<float> c{1.0f, 2.0f}, d{1.5f, 2.0f};
  e = compare_values(bytes(c), bytes(d), DType::kFp32);
  EXPECT_EQ(e.nonfinite_mismatches, 0u);
  EXPECT_DOUBLE_EQ(e.max_abs_error, 0.5);
}

TEST(NetzipPaper, ChangesValuesOfGradientLikeData) {
  // The published delta computes G - D_min in FP32 and rounds it to BF16. D_min is the most
  // negative gradient (about -4.5 sigma here), so G - D_min is a positive number of magnitude
  // ~|D_min| whose BF16 grid (8 significant bits at that magnitude) is far coarser than the grid of
  // a small G: adding D_min back cannot restore G's low bits. Most values change.
  auto in = test::make_input("gaussian", 20000, DType::kBf16);
  auto codec = make_codec("netzip-paper");
  EXPECT_FALSE(codec->lossless());
  auto out = round_trip(*codec, in, DType::kBf16);
  ErrorStats e = compare_values(in, out, DType::kBf16);
  EXPECT_GT(e.changed_fraction, 0.5);
  EXPECT_GT(e.max_abs_error, 0.0);
  // Each step rounds once to BF16 at magnitude <= 2 |D_min| (~1e-2): error <= 2 * 2^-8 * 2^-6.
  EXPECT_LT(e.max_abs_error, 2.0 * std::ldexp(1.0, -14));
}

TEST(NetzipLossless, IsBitExactWhereThePaperIsNot) {
  auto in = test::make_input("gaussian", 20000, DType::kBf16);
  for (const char* name : {"netzip-lossless", "netzip-lossless-bits"}) {
    auto out = round_trip(*make_codec(name), in, DType::kBf16);
    EXPECT_EQ(out, in) << name;
  }
}

TEST(Casts, RoundToNearestEvenAndHalveTheBytes) {
  auto in = test::make_input("gaussian", 1000, DType::kFp32);
  for (const char* name : {"cast-bf16", "cast-fp16"}) {
    auto codec = make_codec(name);
    auto frame = test::encode_all(*codec, in, DType::kFp32);
    EXPECT_EQ(frame.size(), 24 + in.size() / 2);
    auto out = round_trip(*codec, in, DType::kFp32);
    ErrorStats e = compare_values(in, out, DType::kFp32);
    // One round-to-nearest to p significant bits errs by at most 2^-p relative: BF16 has p = 8.
    // (FP16 has p = 11 only in its normal range; gradient tails below 6.1e-5 are FP16 subnormals.)
    if (std::string(name) == "cast-bf16") EXPECT_LE(e.max_rel_error, std::ldexp(1.0, -8));
    if (std::string(name) == "cast-fp16") EXPECT_GT(e.max_rel_error, std::ldexp(1.0, -11));
    EXPECT_GT(e.changed_fraction, 0.9);
  }
}

TEST(TopK, KeepsTheLargestEntriesAndFeedsTheRestBack) {
  std::vector<float> v(1000, 0.0f);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 100) * 1e-3f;
  auto in = test::to_dtype(v, DType::kFp32);
  auto codec = make_codec("topk");  // k = ceil(1% of 1000) = 10
  auto out = round_trip(*codec, in, DType::kFp32);
  std::vector<float> got(v.size());
  std::memcpy(got.data(), out.data(), out.size());
  size_t nonzero = 0;
  for (float g : got) nonzero += g != 0.0f;
  EXPECT_EQ(nonzero, 10u);
  for (float g : got) {
    if (g != 0.0f) EXPECT_FLOAT_EQ(g, 0.099f);  // the ten entries equal to the maximum
  }
  // Error feedback: the second call ranks gradient + residual. The 0.098 entries were held back
  // once, so they carry 2 * 0.098 = 0.196 and win over the 0.099 entries sent last time.
  auto out2 = round_trip(*codec, in, DType::kFp32);
  float at99, at98;
  std::memcpy(&at99, out2.data() + 4 * 99, 4);
  std::memcpy(&at98, out2.data() + 4 * 98, 4);
  EXPECT_EQ(at99, 0.0f);
  EXPECT_FLOAT_EQ(at98, 2 * 0.098f);
}

TEST(PowerSgd, RecoversARankOneMatrix) {
  // n = 64 * 64 lays out as a 64 x 64 matrix M = u v^T; one power iteration from any Q with
  // (v, Q) != 0 spans u exactly, so P Q^T reproduces M up to float rounding.
  std::vector<float> v(64 * 64);
  for (size_t r = 0; r < 64; ++r) {
    for (size_t c = 0; c < 64; ++c) v[r * 64 + c] = float(r + 1) * 1e-3f * float(c % 7 + 1);
  }
  auto in = test::to_dtype(v, DType::kFp32);
  auto out = round_trip(*make_codec("powersgd"), in, DType::kFp32);
  ErrorStats e = compare_values(in, out, DType::kFp32);
  EXPECT_LT(e.max_rel_error, 1e-4);
}

}  // namespace
}  // namespace commlab

namespace commlab {
namespace {

TEST(Placement, EveryCodecHasACostAndTheNicRunsAtLineRate) {
  for (const auto& name : codec_names()) {
    EXPECT_TRUE(codec_cost(name, Placement::kCpu).supported) << name;
    EXPECT_TRUE(codec_cost(name, Placement::kGpu).supported) << name;
  }
  // 400 Gbit/s = 50 GB/s: 1 MB takes 1 us of pipeline + 1e6 / 50e9 s = 21 us.
  CodecCost nic = codec_cost("netzip-paper", Placement::kNic, 400.0);
  EXPECT_NEAR(codec_seconds(nic, 1000000, true), 21e-6, 1e-9);
  EXPECT_FALSE(codec_cost("zstd-19", Placement::kNic).supported);
  EXPECT_TRUE(std::isinf(codec_seconds(codec_cost("zstd-19", Placement::kNic), 10, true)));
  // Cores work on independent blocks: twice the cores, twice the throughput.
  EXPECT_DOUBLE_EQ(codec_cost("commlab", Placement::kCpu, 400, 2).encode_gbps,
                   2 * codec_cost("commlab", Placement::kCpu, 400, 1).encode_gbps);
  EXPECT_THROW(codec_cost("gzip", Placement::kCpu), std::invalid_argument);
}

}  // namespace
}  // namespace commlab
