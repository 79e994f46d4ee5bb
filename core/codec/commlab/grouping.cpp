#include "codec/commlab/grouping.h"

#include <cstring>

namespace commlab {

void byte_group(const std::byte* in, size_t n, size_t width, std::byte* out) {
  if (width == 2) {
    for (size_t i = 0; i < n; ++i) {
      out[i] = in[2 * i];
      out[n + i] = in[2 * i + 1];
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < width; ++b) out[b * n + i] = in[i * width + b];
  }
}

void byte_ungroup(const std::byte* in, size_t n, size_t width, std::byte* out) {
  if (width == 2) {
    for (size_t i = 0; i < n; ++i) {
      out[2 * i] = in[i];
      out[2 * i + 1] = in[n + i];
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < width; ++b) out[i * width + b] = in[b * n + i];
  }
}

void bit_planes(const uint16_t* in, size_t n, std::byte* out) {
  const size_t plane = (n + 7) / 8;
  std::memset(out, 0, 16 * plane);
  for (size_t i = 0; i < n; ++i) {
    uint16_t w = in[i];
    for (int p = 0; p < 16; ++p) {
      int bit = (w >> (15 - p)) & 1;
      out[p * plane + i / 8] |= std::byte(bit << (i % 8));
    }
  }
}

void bit_unplanes(const std::byte* in, size_t n, uint16_t* out) {
  const size_t plane = (n + 7) / 8;
  for (size_t i = 0; i < n; ++i) {
    uint16_t w = 0;
    for (int p = 0; p < 16; ++p) {
      int bit = (uint8_t(in[p * plane + i / 8]) >> (i % 8)) & 1;
      w |= uint16_t(bit << (15 - p));
    }
    out[i] = w;
  }
}

}  // namespace commlab
