#pragma once
// BF16 and IEEE FP16 conversions with round-to-nearest-even, as GPUs do them. NaN stays NaN
// (quiet), infinities and signed zeros are kept, FP16 subnormals are produced and read.
#include <bit>
#include <cstdint>
#include <cstring>

namespace commlab {

inline uint16_t float_to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even
  return static_cast<uint16_t>(u >> 16);
}

inline float bf16_to_float(uint16_t h) {
  return std::bit_cast<float>(uint32_t(h) << 16);
}

inline uint16_t float_to_fp16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (abs < 0x38800000u) {  // result is subnormal or zero: add 0.5 (as float) to align the bits
    float shifted = std::bit_cast<float>(abs) + 0.5f;
    return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(shifted) - 0x3f000000u));
  }
  uint32_t mant_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
  return static_cast<uint16_t>(sign | (abs >> 13));
}

inline float fp16_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {  // zero or subnormal: mant * 2^-24
    float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace commlab
