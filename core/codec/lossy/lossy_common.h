#pragma once
// Shared by the stateful lossy baselines (top-k, PowerSGD): values of any dtype as FP32 and back.
#include <cstring>
#include <span>
#include <vector>

#include "codec/codec.h"
#include "codec/value_cast.h"

namespace commlab {

inline void to_float(std::span<const std::byte> in, DType dtype, std::vector<float>& out) {
  out.resize(in.size() / dtype_size(dtype));
  cast_to_float(in, dtype, out);
}

inline void from_float(const std::vector<float>& v, DType dtype, std::span<std::byte> out) {
  cast_from_float(v, dtype, out);
}

}  // namespace commlab
