#pragma once
// Regroupings that put similar bits next to each other before a general-purpose compressor:
// byte grouping (all bytes 0 of every element, then all bytes 1, ...) and 16 bit-planes of 16-bit
// words (all bit 15s, then all bit 14s, ...), as NetZIP does. Formats in docs/formats.md.
#include <cstddef>
#include <cstdint>

namespace commlab {

// n elements of `width` bytes: out[b * n + i] = in[i * width + b].
void byte_group(const std::byte* in, size_t n, size_t width, std::byte* out);
void byte_ungroup(const std::byte* in, size_t n, size_t width, std::byte* out);

// Bytes used by the bit planes of n 16-bit words: 16 * ceil(n / 8).
inline size_t bit_planes_size(size_t n) {
  return 16 * ((n + 7) / 8);
}
// Plane p (0 = bit 15) occupies bytes [p * ceil(n/8), ...); bit j of plane byte k is word 8k+j.
void bit_planes(const uint16_t* in, size_t n, std::byte* out);
void bit_unplanes(const std::byte* in, size_t n, uint16_t* out);

}  // namespace commlab
