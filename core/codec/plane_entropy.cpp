#include "codec/plane_entropy.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "numeric/float16.h"

namespace commlab {

namespace {

double entropy_bits(const std::array<uint64_t, 256>& hist, uint64_t total) {
  if (total == 0) return 0;
  double h = 0;
  const double inv = 1.0 / static_cast<double>(total);
  for (uint64_t c : hist) {
    if (c == 0) continue;
    const double p = static_cast<double>(c) * inv;
    h -= p * std::log2(p);
  }
  return h;
}

}  // namespace

std::vector<double> byte_plane_entropy(std::span<const float> values, DType dtype) {
  const size_t planes = dtype_size(dtype);
  std::vector<std::array<uint64_t, 256>> hist(planes);
  for (auto& h : hist) h.fill(0);
  if (dtype == DType::kFp32) {
    for (float v : values) {
      const uint32_t u = std::bit_cast<uint32_t>(v);
      ++hist[0][u >> 24];
      ++hist[1][(u >> 16) & 0xff];
      ++hist[2][(u >> 8) & 0xff];
      ++hist[3][u & 0xff];
    }
  } else {
    const bool bf16 = dtype == DType::kBf16;
    for (float v : values) {
      const uint16_t h = bf16 ? float_to_bf16(v) : float_to_fp16(v);
      ++hist[0][h >> 8];
      ++hist[1][h & 0xff];
    }
  }
  std::vector<double> out(planes);
  for (size_t p = 0; p < planes; ++p) out[p] = entropy_bits(hist[p], values.size());
  return out;
}

}  // namespace commlab
