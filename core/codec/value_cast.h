#pragma once
// Values between FP32 and a wire dtype (BF16 / FP16 with round to nearest even, FP32 as is): the
// one conversion codecs, the collective's wire, the CLI, benchmarks and tests share.
#include <cstring>
#include <span>
#include <vector>

#include "codec/codec.h"
#include "numeric/float16.h"

namespace commlab {

// out must hold in.size() * dtype_size(dtype) bytes.
inline void cast_from_float(std::span<const float> in, DType dtype, std::span<std::byte> out) {
  if (dtype == DType::kFp32) {
    if (!in.empty()) std::memcpy(out.data(), in.data(), in.size_bytes());
    return;
  }
  for (size_t i = 0; i < in.size(); ++i) {
    uint16_t h = dtype == DType::kBf16 ? float_to_bf16(in[i]) : float_to_fp16(in[i]);
    std::memcpy(out.data() + 2 * i, &h, 2);
  }
}

// Reads out.size() values of `dtype` from `in`.
inline void cast_to_float(std::span<const std::byte> in, DType dtype, std::span<float> out) {
  if (dtype == DType::kFp32) {
    if (!out.empty()) std::memcpy(out.data(), in.data(), out.size_bytes());
    return;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, in.data() + 2 * i, 2);
    out[i] = dtype == DType::kBf16 ? bf16_to_float(h) : fp16_to_float(h);
  }
}

inline std::vector<std::byte> to_dtype_bytes(std::span<const float> in, DType dtype) {
  std::vector<std::byte> out(in.size() * dtype_size(dtype));
  cast_from_float(in, dtype, out);
  return out;
}

}  // namespace commlab
