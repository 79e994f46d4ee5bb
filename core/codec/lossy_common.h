#pragma once
// Shared by the stateful lossy baselines (top-k, PowerSGD): values of any dtype as FP32 and back.
#include <cstring>
#include <span>
#include <vector>

#include "codec/codec.h"
#include "numeric/float16.h"

namespace commlab {

inline void to_float(std::span<const std::byte> in, DType dtype, std::vector<float>& out) {
  const size_t n = in.size() / dtype_size(dtype);
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (dtype == DType::kFp32) {
      std::memcpy(&out[i], in.data() + 4 * i, 4);
    } else {
      uint16_t h;
      std::memcpy(&h, in.data() + 2 * i, 2);
      out[i] = dtype == DType::kBf16 ? bf16_to_float(h) : fp16_to_float(h);
    }
  }
}

inline void from_float(const std::vector<float>& v, DType dtype, std::span<std::byte> out) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == DType::kFp32) {
      std::memcpy(out.data() + 4 * i, &v[i], 4);
    } else {
      uint16_t h = dtype == DType::kBf16 ? float_to_bf16(v[i]) : float_to_fp16(v[i]);
      std::memcpy(out.data() + 2 * i, &h, 2);
    }
  }
}

}  // namespace commlab
