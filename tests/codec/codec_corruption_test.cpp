// A corrupt or truncated frame is an error, never a crash or an out-of-bounds read (run this under
// -DCOMMLAB_SANITIZE=ON to check the latter). The golden set is one small frame per codec over data
// that exercises every stream kind (zero runs, single zeros, dense exponents, specials).
#include <gtest/gtest.h>

#include "codec/codec.h"
#include "codec/frame.h"
#include "codec_test_util.h"

namespace commlab {
namespace {

struct Golden {
  std::string codec;
  DType dtype;
  std::vector<std::byte> input;
  std::vector<std::byte> frame;
};

std::vector<Golden> golden_set() {
  std::vector<Golden> set;
  for (const auto& name : codec_names()) {
    DType dtype = name.rfind("cast", 0) == 0 ? DType::kFp32 : DType::kBf16;
    // Half gradient-like, half specials with runs: every commlab stream kind is present.
    auto in = test::make_input("sparse", 200, dtype);
    auto tail = test::make_input("specials", 120, dtype);
    in.insert(in.end(), tail.begin(), tail.end());
    auto codec = make_codec(name);
    set.push_back({name, dtype, in, test::encode_all(*codec, in, dtype)});
  }
  // commlab's other zero-mask mode: gaps after a period (dead columns) instead of a bitmap.
  auto masked = test::make_input("masked", 1200, DType::kBf16);
  set.push_back({"commlab", DType::kBf16, masked,
                 test::encode_all(*make_codec("commlab"), masked, DType::kBf16)});
  return set;
}

TEST(CodecCorruption, EveryTruncationIsAnError) {
  for (const Golden& g : golden_set()) {
    SCOPED_TRACE(g.codec);
    std::vector<std::byte> out(g.input.size());
    for (size_t len = 0; len < g.frame.size(); ++len) {
      // A copy of exactly `len` bytes, so any read past it is caught by the sanitizer.
      std::vector<std::byte> cut(g.frame.begin(), g.frame.begin() + len);
      EXPECT_FALSE(make_codec(g.codec)->decode(cut, out).ok()) << "length " << len;
    }
  }
}

TEST(CodecCorruption, EverySingleBitFlipIsAnError) {
  // The frame's CRC-32C covers header and payload; CRC-32C detects every single-bit error.
  for (const Golden& g : golden_set()) {
    SCOPED_TRACE(g.codec);
    std::vector<std::byte> out(g.input.size());
    for (size_t bit = 0; bit < 8 * g.frame.size(); ++bit) {
      auto bad = g.frame;
      bad[bit / 8] ^= std::byte(1 << (bit % 8));
      EXPECT_FALSE(make_codec(g.codec)->decode(bad, out).ok()) << "bit " << bit;
    }
  }
}

TEST(CodecCorruption, PayloadParsersSurviveFlipsBehindAValidChecksum) {
  // An adversary can recompute the CRC: then the payload parser itself must stay in bounds and
  // either fail or produce some output of the right size. Every bit of the payload is flipped.
  for (const Golden& g : golden_set()) {
    SCOPED_TRACE(g.codec);
    std::vector<std::byte> out(g.input.size());
    const size_t payload = g.frame.size() - frame::kHeaderSize;
    for (size_t bit = 0; bit < 8 * payload; ++bit) {
      auto bad = g.frame;
      bad[frame::kHeaderSize + bit / 8] ^= std::byte(1 << (bit % 8));
      uint32_t crc = frame::crc32c(0, bad.data(), 20);
      crc = frame::crc32c(crc, bad.data() + frame::kHeaderSize, payload);
      frame::put32(bad.data() + 20, crc);
      Result<size_t> r = make_codec(g.codec)->decode(bad, out);
      if (r.ok()) EXPECT_EQ(*r, g.input.size());
    }
  }
}

TEST(CodecCorruption, Crc32cMatchesTheStandardCheckValue) {
  // CRC-32C("123456789") = 0xE3069283 (RFC 3720, appendix B.4).
  const char* s = "123456789";
  EXPECT_EQ(frame::crc32c(0, reinterpret_cast<const std::byte*>(s), 9), 0xE3069283u);
}

TEST(CodecCorruption, Crc32cOfThreeLanesEqualsTheSerialCrc) {
  // Buffers of >= 12 KiB are checksummed in three interleaved lanes joined by GF(2) algebra; the
  // CRC is a property of the bytes, so it must equal the CRC fed 1000 bytes at a time (serial).
  for (size_t n : {size_t(12288), size_t(100003), size_t(262144 + 5)}) {
    std::vector<std::byte> buf(n);
    for (size_t i = 0; i < n; ++i) buf[i] = std::byte((i * 2654435761u) >> 13);
    uint32_t serial = 0;
    for (size_t i = 0; i < n; i += 1000) {
      serial = frame::crc32c(serial, buf.data() + i, std::min<size_t>(1000, n - i));
    }
    EXPECT_EQ(frame::crc32c(0, buf.data(), n), serial) << n;
  }
}

}  // namespace
}  // namespace commlab
