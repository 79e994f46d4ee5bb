// Fuzzes every codec's decoder. Input: [codec index][mode][frame...]. The codec is
// codec_names()[index % count], so one target reaches every registered codec (the seed corpus
// holds real frames of each). Mode bit 0 rewrites the frame checksum so mutations reach the
// payload decoder; bit 1 first decodes a valid frame of its own so stateful codecs (xor-prev,
// top-k, PowerSGD) decode against existing state; bit 2 gives an output buffer one element short.
// A decoder may return an error, never crash, read or write out of bounds, or allocate without
// bound.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "fuzz_common.h"

using namespace commlab;

namespace {

struct Codecs {
  std::vector<std::string> names = codec_names();
  std::vector<std::unique_ptr<Codec>> codecs;
  Codecs() {
    for (const auto& n : names) codecs.push_back(make_codec(n));
  }
};

void prime(Codec& codec) {
  // A small valid stream so that a later decode sees state (previous tensor, residuals).
  std::vector<float> x(64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
  auto in = std::as_bytes(std::span<const float>(x));
  std::vector<std::byte> frame(codec.bound(in.size()));
  auto n = codec.encode(in, DType::kFp32, frame);
  if (!n) return;
  std::vector<std::byte> out(in.size());
  (void)codec.decode(std::span<const std::byte>(frame).first(*n), out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Codecs all;
  if (size < 2) return 0;
  const size_t index = data[0] % all.codecs.size();
  const uint8_t mode = data[1];
  std::vector<std::byte> frame(size - 2);
  if (!frame.empty()) std::memcpy(frame.data(), data + 2, frame.size());
  if (mode & 1) fuzz::fix_frame_crc(frame);

  Codec& codec = *all.codecs[index];
  codec.reset();
  if (mode & 2) prime(codec);

  size_t want = 0;
  if (auto r = frame_original_size(frame); r.ok()) want = *r;
  size_t cap = std::min(want, fuzz::kMaxDecodeBytes);
  if ((mode & 4) && cap >= 2) cap -= 2;
  std::vector<std::byte> out(cap);
  Result<size_t> r = codec.decode(frame, out);
  if (r.ok() && *r > out.size()) __builtin_trap();  // claims more than it may have written
  return 0;
}
