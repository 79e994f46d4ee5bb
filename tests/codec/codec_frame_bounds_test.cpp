// A frame's original size comes from its header, which an attacker writes (the checksum is no
// secret): frame::parse bounds it by what the payload can physically decode to (frame.h,
// max_original_size), so neither frame_original_size, by which callers size their buffers, nor a
// decoder trusts a short frame claiming gigabytes.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/frame.h"
#include "codec_test_util.h"

namespace commlab {
namespace {

// A frame of `codec` around `payload` with a valid checksum, claiming `original` bytes.
std::vector<std::byte> forge(frame::CodecId codec, DType dtype, uint64_t original,
                             const std::vector<std::byte>& payload) {
  std::vector<std::byte> out(frame::kHeaderSize + payload.size());
  if (!payload.empty())
    std::memcpy(out.data() + frame::kHeaderSize, payload.data(), payload.size());
  frame::finish(out, frame::Header{codec, dtype, 0, original, uint32_t(payload.size())});
  return out;
}

// The same frame claiming `original` bytes (checksum recomputed).
std::vector<std::byte> reclaim(std::vector<std::byte> f, uint64_t original) {
  frame::put64(f.data() + 8, original);
  uint32_t crc = frame::crc32c(0, f.data(), 20);
  crc = frame::crc32c(crc, f.data() + frame::kHeaderSize, f.size() - frame::kHeaderSize);
  frame::put32(f.data() + 20, crc);
  return f;
}

constexpr uint64_t kTiB = uint64_t{1} << 40, kGiB = uint64_t{1} << 30;

TEST(CodecFrameBounds, Lz4FrameOf35BytesClaimingATebibyteIsRefused) {
  // 11 payload bytes: at most 255 x 11 = 2805 decoded bytes (LZ4's largest ratio).
  const std::vector<std::byte> payload(11, std::byte{0x1f});
  for (uint64_t claim : {kTiB, kGiB, uint64_t{2806}}) {
    const std::vector<std::byte> f = forge(frame::CodecId::kLz4, DType::kBf16, claim, payload);
    ASSERT_EQ(f.size(), 35u);
    Result<size_t> size = frame_original_size(f);
    ASSERT_FALSE(size.ok()) << claim;
    EXPECT_NE(size.error().find("holds at most 2805"), std::string::npos) << size.error();
  }
}

TEST(CodecFrameBounds, TopKFrameOf108BytesClaimingGibibytesIsRefused) {
  // k = 10 kept values (4 + 80 payload bytes): n <= 100 (k + 1) = 1100 values of 4 bytes.
  std::vector<std::byte> payload(84);
  frame::put32(payload.data(), 10);
  for (uint32_t j = 0; j < 10; ++j) frame::put32(payload.data() + 4 + 4 * j, j);
  for (uint64_t claim : {5 * kGiB, kGiB}) {
    const std::vector<std::byte> f = forge(frame::CodecId::kTopK, DType::kFp32, claim, payload);
    ASSERT_EQ(f.size(), 108u);
    Result<size_t> size = frame_original_size(f);
    ASSERT_FALSE(size.ok()) << claim;
    EXPECT_NE(size.error().find("holds at most 4400"), std::string::npos) << size.error();
    std::vector<std::byte> out(4400);
    EXPECT_FALSE(make_codec("topk")->decode(f, out).ok());
  }
}

TEST(CodecFrameBounds, EveryCodecRefusesItsOwnFrameClaimingAGibibyte) {
  for (const std::string& name : codec_names()) {
    SCOPED_TRACE(name);
    const DType dtype = name.rfind("cast", 0) == 0 ? DType::kFp32 : DType::kBf16;
    const std::vector<std::byte> in = test::make_input("gaussian", 4096, dtype);
    const std::vector<std::byte> good = test::encode_all(*make_codec(name), in, dtype);
    Result<size_t> size = frame_original_size(good);
    ASSERT_TRUE(size.ok()) << size.error();
    EXPECT_EQ(*size, in.size());
    for (uint64_t claim : {kGiB, uint64_t{1} << 33, ~uint64_t{0} - 1}) {
      const std::vector<std::byte> bad = reclaim(good, claim);
      EXPECT_FALSE(frame_original_size(bad).ok()) << claim;
      std::vector<std::byte> out(in.size());
      EXPECT_FALSE(make_codec(name)->decode(bad, out).ok()) << claim;
    }
  }
}

TEST(CodecFrameBounds, HighlyCompressibleFramesStayWithinTheirBounds) {
  // All zeros is every codec's best ratio; 1 MiB of it (8 commlab blocks) must still decode.
  for (const std::string& name : codec_names()) {
    SCOPED_TRACE(name);
    const DType dtype = name.rfind("cast", 0) == 0 ? DType::kFp32 : DType::kBf16;
    const std::vector<std::byte> in =
        test::make_input("zeros", (1u << 20) / dtype_size(dtype), dtype);
    const std::vector<std::byte> f = test::encode_all(*make_codec(name), in, dtype);
    Result<size_t> size = frame_original_size(f);
    ASSERT_TRUE(size.ok()) << size.error();
    std::vector<std::byte> out(in.size());
    EXPECT_TRUE(make_codec(name)->decode(f, out).ok());
  }
}

TEST(CodecFrameBounds, ZstdClaimMustMatchItsRecordedContentSize) {
  const std::vector<std::byte> in = test::make_input("gaussian", 4096, DType::kBf16);
  const std::vector<std::byte> good = test::encode_all(*make_codec("zstd-1"), in, DType::kBf16);
  ASSERT_EQ(frame::get64(good.data() + 8), in.size());
  ASSERT_FALSE(uint8_t(good[5]) & frame::kFlagStored);
  const std::vector<std::byte> bigger = reclaim(good, in.size() + 2);
  EXPECT_FALSE(frame_original_size(bigger).ok());
}

}  // namespace
}  // namespace commlab
