// The commlab codec on several OpenMP threads: the frame is the same byte for byte as on one
// thread, any thread count decodes any frame, and a corrupt multi-chunk frame is an error on every
// thread count (never a crash).
#include <gtest/gtest.h>

#include <algorithm>

#include "codec/codec_factories.h"
#include "codec/frame.h"
#include "codec_test_util.h"

namespace commlab {
namespace {

// 9 MiB and a bit: three 4 MiB chunks, the last one short and ending in a short block.
constexpr size_t kBytes = (size_t(9) << 20) + 4 * 1000;

std::vector<std::byte> input(DType dtype) {
  return test::make_input("masked", kBytes / dtype_size(dtype), dtype);
}

TEST(CommLabThreads, FrameIsTheSameOnAnyThreadCount) {
  for (DType dtype : {DType::kBf16, DType::kFp32}) {
    const std::vector<std::byte> in = input(dtype);
    const std::vector<std::byte> one = test::encode_all(*make_commlab_codec(1), in, dtype);
    ASSERT_LT(one.size(), in.size()) << "the masked input must not go stored";
    for (int threads : {2, 3, 4}) {
      const std::vector<std::byte> many = test::encode_all(*make_commlab_codec(threads), in, dtype);
      EXPECT_EQ(many, one) << threads << " threads, " << dtype_name(dtype);
    }
    // Whatever thread count wrote a frame, any other decodes it exactly.
    for (int threads : {1, 2, 3}) {
      std::vector<std::byte> out(in.size());
      Result<size_t> r = make_commlab_codec(threads)->decode(one, out);
      ASSERT_TRUE(r.ok()) << r.error();
      EXPECT_EQ(out, in) << threads << " threads, " << dtype_name(dtype);
    }
  }
}

TEST(CommLabThreads, EncoderReusedForOtherSizesStaysTheSame) {
  // A codec keeps its per-thread coders and scratch between calls: a small frame after a large
  // one (and the large one again) must not see leftovers.
  auto codec = make_commlab_codec(2);
  const std::vector<std::byte> big = input(DType::kBf16);
  const std::vector<std::byte> small(big.begin(), big.begin() + 300000);
  const std::vector<std::byte> big1 = test::encode_all(*codec, big, DType::kBf16);
  EXPECT_EQ(test::encode_all(*codec, small, DType::kBf16),
            test::encode_all(*make_commlab_codec(1), small, DType::kBf16));
  EXPECT_EQ(test::encode_all(*codec, big, DType::kBf16), big1);
}

// A frame with its payload changed and its checksum rewritten, so the change reaches the blocks.
std::vector<std::byte> with_fixed_crc(std::vector<std::byte> f) {
  const uint32_t payload = frame::get32(f.data() + 16);
  uint32_t crc = frame::crc32c(0, f.data(), 20);
  frame::put32(f.data() + 20, frame::crc32c(crc, f.data() + frame::kHeaderSize, payload));
  return f;
}

TEST(CommLabThreads, CorruptMultiChunkFramesAreErrors) {
  const std::vector<std::byte> in = input(DType::kBf16);
  const std::vector<std::byte> good = test::encode_all(*make_commlab_codec(1), in, DType::kBf16);
  std::vector<std::byte> out(in.size());
  std::vector<bool> rejected_on_one;
  for (int threads : {1, 2}) {
    auto codec = make_commlab_codec(threads);
    // Bytes flipped all over the payload (block headers, stream headers, stream bodies): an error
    // or, where the flip lands in a raw literal byte or goes unnoticed in a code, a wrong but
    // complete decode; the same verdict on any thread count.
    std::vector<bool> rejected;
    for (size_t at = frame::kHeaderSize + 1; at < good.size(); at += good.size() / 97) {
      std::vector<std::byte> bad = good;
      bad[at] ^= std::byte{0x5a};
      rejected.push_back(!codec->decode(with_fixed_crc(bad), out).ok());
    }
    EXPECT_GT(std::count(rejected.begin(), rejected.end(), true), 0) << threads << " threads";
    if (threads == 1) rejected_on_one = rejected;
    EXPECT_EQ(rejected, rejected_on_one) << threads << " threads";
    // The payload cut short (the frame's size fields rewritten to match): always an error.
    for (size_t cut : {size_t(1000), good.size() / 3, good.size() - 1}) {
      std::vector<std::byte> bad(good.begin(), good.begin() + std::ptrdiff_t(cut));
      if (bad.size() < frame::kHeaderSize) continue;
      frame::put32(bad.data() + 16, uint32_t(bad.size() - frame::kHeaderSize));
      EXPECT_FALSE(codec->decode(with_fixed_crc(bad), out).ok()) << threads << " cut " << cut;
    }
    // Trailing bytes after the last block.
    std::vector<std::byte> bad = good;
    bad.push_back(std::byte{0});
    frame::put32(bad.data() + 16, uint32_t(bad.size() - frame::kHeaderSize));
    EXPECT_FALSE(codec->decode(with_fixed_crc(bad), out).ok()) << threads << " trailing";
  }
}

}  // namespace
}  // namespace commlab
