#pragma once
// Test inputs shared by the codec tests: buffers of BF16/FP16/FP32 values with the patterns that
// break codecs (zeros, runs, NaN/Inf/subnormal/-0, random bits) and gradient-like data.
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/value_cast.h"
#include "numeric/float16.h"
#include "numeric/rng.h"
#include "numeric/tensor_gen.h"

namespace commlab::test {

inline std::vector<std::byte> to_dtype(const std::vector<float>& v, DType dtype) {
  return to_dtype_bytes(v, dtype);
}

// Named input patterns of `count` elements.
inline std::vector<std::byte> make_input(const std::string& pattern, size_t count, DType dtype) {
  const size_t w = dtype_size(dtype);
  std::vector<std::byte> out(count * w);
  if (pattern == "zeros") return out;
  if (pattern == "random-bits") {
    CounterRng rng(42, Purpose::kCodec);
    for (size_t i = 0; i < out.size(); ++i) out[i] = std::byte(rng.draw(i) & 0xff);
    return out;
  }
  if (pattern == "equal") return to_dtype(std::vector<float>(count, 0.0123f), dtype);
  if (pattern == "specials") {
    // NaN, +-Inf, subnormals (FP32, FP16 and BF16 ranges), -0, +0, in a repeating mix with runs.
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              1e-40f,
                              -1e-40f,
                              3e-8f,
                              -0.0f,
                              0.0f,
                              0.0f,
                              1.5e-3f};
    std::vector<float> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = specials[(i * 7 + i / 13) % 10];
    for (size_t i = count / 2; i < count && i < count / 2 + 40; ++i) v[i] = 0.0f;  // a long run
    return to_dtype(v, dtype);
  }
  if (pattern == "gaussian" || pattern == "sparse") {
    auto v = generate_tensor(pattern == "gaussian" ? "gaussian" : "sparse:0.6", count, 3);
    return to_dtype(v, dtype);
  }
  if (pattern == "masked") {
    // A weight gradient's zero structure: dead units zero the same columns of every row of 300
    // (the commlab mask's period), and whole rows are zero (inputs that were zero: runs, P = 1).
    auto v = generate_tensor("gaussian", count, 4);
    for (size_t i = 0; i < count; ++i) {
      if ((i % 300) % 7 == 3 || (i / 300) % 50 == 7) v[i] = 0.0f;
    }
    return to_dtype(v, dtype);
  }
  throw std::invalid_argument("unknown test pattern " + pattern);
}

inline std::vector<std::byte> encode_all(Codec& codec, std::span<const std::byte> in, DType dtype) {
  std::vector<std::byte> out(codec.bound(in.size()));
  Result<size_t> r = codec.encode(in, dtype, out);
  if (!r.ok()) throw std::runtime_error(codec.name() + ": " + r.error());
  out.resize(*r);
  return out;
}

inline std::vector<std::string> lossless_codecs() {
  std::vector<std::string> names;
  for (const auto& n : codec_names()) {
    if (make_codec(n)->lossless()) names.push_back(n);
  }
  return names;
}

// Lossless codecs that accept `dtype` (netzip-lossless is 16-bit only).
inline bool accepts(const std::string& name, DType dtype) {
  return !(name.rfind("netzip-lossless", 0) == 0 && dtype == DType::kFp32);
}

}  // namespace commlab::test
