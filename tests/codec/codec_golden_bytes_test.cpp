// The lossless codecs' frames byte for byte: an FNV-1a digest per (codec, data, dtype, size)
// against committed values. ctest runs this binary again under COMMLAB_CODEC_ISA = scalar, sse
// and avx2 (codec/cpu_features.h), so every fast path must write exactly the widest path's bytes.
// A deliberate format change regenerates the table from the failure messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/codec_factories.h"
#include "numeric/float16.h"
#include "numeric/tensor_gen.h"

namespace commlab {
namespace {

uint64_t fnv1a(const std::byte* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<uint8_t>(p[i])) * 0x100000001b3ull;
  return h;
}

std::vector<std::byte> bytes_of(const std::vector<float>& v, DType dtype) {
  std::vector<std::byte> out(v.size() * dtype_size(dtype));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == DType::kFp32) {
      std::memcpy(out.data() + 4 * i, &v[i], 4);
    } else {
      const uint16_t h = dtype == DType::kBf16 ? float_to_bf16(v[i]) : float_to_fp16(v[i]);
      std::memcpy(out.data() + 2 * i, &h, 2);
    }
  }
  return out;
}

struct GoldenCase {
  const char* codec;
  const char* dist;
  DType dtype;
  size_t count;
  uint64_t digest;
};

// Generated on the native path (AVX-512 VBMI2) at commit time; see the file comment.
const GoldenCase kCases[] = {
#include "codec_golden_bytes.inc"
};

TEST(CodecGoldenBytes, EveryFrameIsTheCommittedOne) {
  std::map<std::string, std::unique_ptr<Codec>> codecs;
  for (const GoldenCase& c : kCases) {
    auto& codec = codecs[c.codec];
    if (!codec)
      codec = std::string(c.codec) == "commlab" ? make_commlab_codec(2) : make_codec(c.codec);
    const std::vector<std::byte> in = bytes_of(generate_tensor(c.dist, c.count, 11), c.dtype);
    std::vector<std::byte> frame(codec->bound(in.size()));
    codec->reset();
    auto size = codec->encode(in, c.dtype, frame);
    ASSERT_TRUE(size.ok()) << c.codec;
    const uint64_t digest = fnv1a(frame.data(), size.value());
    EXPECT_EQ(digest, c.digest) << "{\"" << c.codec << "\", \"" << c.dist << "\", DType::k"
                                << (c.dtype == DType::kBf16   ? "Bf16"
                                    : c.dtype == DType::kFp16 ? "Fp16"
                                                              : "Fp32")
                                << ", " << c.count << ", 0x" << std::hex << digest << "ull},";
    // And it still round-trips on this path.
    std::vector<std::byte> back(in.size());
    auto n = codec->decode(std::span<const std::byte>(frame.data(), size.value()), back);
    ASSERT_TRUE(n.ok()) << c.codec;
    EXPECT_TRUE(back == in) << c.codec << " " << c.dist << " " << c.count;
  }
}

}  // namespace
}  // namespace commlab
