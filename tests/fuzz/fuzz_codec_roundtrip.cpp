// Round trip of every codec on the fuzzer's values (zstd's round-trip fuzzers): the input's bytes
// are the values themselves, encoded, decoded and compared. Input: [codec index][mode][values].
// The codec is codec_names()[index % count]; mode bit 0 selects FP32 values (4 bytes each), else
// BF16 (2 bytes each). What must hold:
//   - a lossless codec (Codec::lossless()) gives back every bit;
//   - cast-bf16 / cast-fp16 give the round-to-nearest-even cast of each value
//     (numeric/float16.h), bit for bit, NaN for NaN;
//   - topk gives each value either exactly (bit for bit; NaN as a NaN) or as 0, and (no NaN among
//   them) keeps
//     no value smaller in magnitude than one it dropped;
//   - every other lossy codec (netzip-paper, powersgd) decodes to exactly the input's size.
// An encoder may refuse an input (a dtype it does not take, or non-finite values): that ends the
// execution. A decoder refusing its own encoder's frame is a finding.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/error_stats.h"
#include "numeric/float16.h"

using namespace commlab;

namespace {

// Values per execution stay small so an execution stays fast (a frame of every codec).
constexpr size_t kMaxValues = 16384;

struct Codecs {
  std::vector<std::string> names = codec_names();
  std::vector<std::unique_ptr<Codec>> codecs;
  Codecs() {
    for (const auto& n : names) codecs.push_back(make_codec(n));
  }
};

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// The cast a cast codec must give: RNE to the narrow type and back (NaN stays NaN).
bool cast_matches(float in, float out, bool to_bf16) {
  const float want = to_bf16 ? bf16_to_float(float_to_bf16(in)) : fp16_to_float(float_to_fp16(in));
  return std::isnan(want) ? std::isnan(out) : same_bits(want, out);
}

void check_topk(std::span<const std::byte> in, std::span<const std::byte> out, DType dtype,
                size_t n) {
  // With a NaN among the values the magnitude order is not a strict weak order, so which values
  // are kept is unspecified; each is still the value or 0.
  bool nan = false;
  for (size_t i = 0; i < n; ++i) nan = nan || std::isnan(value_at(in, dtype, i));
  double smallest_kept = INFINITY, largest_dropped = 0;
  for (size_t i = 0; i < n; ++i) {
    // value_at widens to double: back to float, every number is the same value, a NaN a NaN.
    const float x = static_cast<float>(value_at(in, dtype, i)),
                y = static_cast<float>(value_at(out, dtype, i));
    // A NaN is kept as a NaN (a cast back to BF16 may quiet it).
    if ((same_bits(x, y) || (std::isnan(x) && std::isnan(y))) && y != 0.0f) {
      smallest_kept = std::min(smallest_kept, std::fabs(double(x)));
    } else if (y == 0.0f) {
      if (!std::isnan(x)) largest_dropped = std::max(largest_dropped, std::fabs(double(x)));
    } else {
      __builtin_trap();  // neither the value nor 0
    }
  }
  if (!nan && smallest_kept < largest_dropped)
    __builtin_trap();  // dropped a larger value than it kept
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Codecs all;
  if (size < 2) return 0;
  const size_t index = data[0] % all.codecs.size();
  const DType dtype = (data[1] & 1) ? DType::kFp32 : DType::kBf16;
  const size_t width = dtype == DType::kFp32 ? 4 : 2;
  const size_t n = std::min((size - 2) / width, kMaxValues);
  if (n == 0) return 0;
  std::vector<std::byte> in(n * width);
  std::memcpy(in.data(), data + 2, in.size());

  const std::string& name = all.names[index];
  Codec& codec = *all.codecs[index];
  codec.reset();
  std::vector<std::byte> frame(codec.bound(in.size()));
  const Result<size_t> encoded = codec.encode(in, dtype, frame);
  if (!encoded.ok()) return 0;
  if (*encoded > frame.size()) __builtin_trap();
  codec.reset();  // stateful codecs decode a first frame as a fresh receiver would
  std::vector<std::byte> out(in.size());
  const Result<size_t> decoded =
      codec.decode(std::span<const std::byte>(frame).first(*encoded), out);
  if (!decoded.ok() || *decoded != in.size()) __builtin_trap();

  if (codec.lossless()) {
    if (std::memcmp(in.data(), out.data(), in.size()) != 0) __builtin_trap();
  } else if (name == "cast-bf16" || name == "cast-fp16") {
    for (size_t i = 0; i < n; ++i)
      if (!cast_matches(static_cast<float>(value_at(in, dtype, i)),
                        static_cast<float>(value_at(out, dtype, i)), name == "cast-bf16"))
        __builtin_trap();
  } else if (name == "topk") {
    check_topk(in, out, dtype, n);
  }
  return 0;
}
