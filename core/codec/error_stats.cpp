#include "codec/error_stats.h"

#include <cmath>
#include <cstring>

#include "numeric/float16.h"

namespace commlab {

double value_at(std::span<const std::byte> buffer, DType dtype, size_t i) {
  if (dtype == DType::kFp32) {
    float f;
    std::memcpy(&f, buffer.data() + 4 * i, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, buffer.data() + 2 * i, 2);
  return dtype == DType::kBf16 ? bf16_to_float(h) : fp16_to_float(h);
}

ErrorStats compare_values(std::span<const std::byte> original, std::span<const std::byte> decoded,
                          DType dtype) {
  ErrorStats s;
  const size_t w = dtype_size(dtype);
  s.count = original.size() / w;
  s.bit_exact =
      original.size() == decoded.size() &&
      (original.empty() || std::memcmp(original.data(), decoded.data(), original.size()) == 0);
  if (decoded.size() < original.size()) {
    s.changed = s.count;
    s.changed_fraction = s.count ? 1.0 : 0.0;
    return s;
  }
  for (size_t i = 0; i < s.count; ++i) {
    if (std::memcmp(original.data() + i * w, decoded.data() + i * w, w) == 0) continue;
    ++s.changed;
    double a = value_at(original, dtype, i), b = value_at(decoded, dtype, i);
    if (!std::isfinite(a) || !std::isfinite(b)) {
      if (std::isnan(a) || std::isnan(b))
        s.nonfinite_mismatches += std::isnan(a) != std::isnan(b);
      else
        s.nonfinite_mismatches += a != b;  // an infinity on one side at least
      continue;
    }
    double err = std::fabs(b - a);
    s.max_abs_error = std::max(s.max_abs_error, err);
    if (a != 0.0) s.max_rel_error = std::max(s.max_rel_error, err / std::fabs(a));
  }
  if (s.nonfinite_mismatches > 0) s.max_abs_error = s.max_rel_error = INFINITY;
  s.changed_fraction = s.count ? double(s.changed) / double(s.count) : 0.0;
  return s;
}

}  // namespace commlab
