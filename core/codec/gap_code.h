#pragma once
// The commlab zero mask's gap code (docs/formats.md, "Zero mask"): gap symbols and the extra-bit
// stream, LSB-first. Internal to commlab_codec.cpp.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/frame.h"

namespace commlab::gapcode {

// 0..15 literal gaps, then two symbols per power of two up to 2^31.
inline constexpr int kGapSymbols = 72;

// Gap g between consecutive mask flips: symbol and extra bits (docs/formats.md).
inline uint32_t gap_symbol(uint32_t g, uint32_t& extra, int& extra_bits) {
  if (g < 16) {
    extra_bits = 0;
    return g;
  }
  int b = std::bit_width(g) - 1;
  extra_bits = b - 1;
  extra = g & ((1u << (b - 1)) - 1);
  return 16 + 2 * (b - 4) + ((g >> (b - 1)) & 1);
}

struct ExtraWriter {
  std::vector<uint8_t>& out;
  uint64_t acc = 0;
  int n = 0;
  void put(uint32_t v, int bits) {
    acc |= uint64_t(v) << n;
    n += bits;
    while (n >= 8) {
      out.push_back(uint8_t(acc));
      acc >>= 8;
      n -= 8;
    }
  }
  void finish() {
    if (n > 0) out.push_back(uint8_t(acc));
  }
};

struct ExtraReader {
  const std::byte* p;
  size_t size;
  size_t bit = 0;
  bool get(int bits, uint32_t& v) {
    if (bits == 0) {
      v = 0;
      return true;
    }
    if (bit + size_t(bits) > 8 * size) return false;
    if (bit / 8 + 8 <= size) {  // one unaligned load covers any 31 bits at any offset
      v = uint32_t((frame::get64(p + bit / 8) >> (bit % 8)) & ((uint64_t(1) << bits) - 1));
      bit += size_t(bits);
      return true;
    }
    uint64_t window = 0;  // up to 5 bytes cover any 31 bits at any offset
    const size_t first = bit / 8, last = (bit + size_t(bits) - 1) / 8;
    for (size_t b = first; b <= last; ++b) window |= uint64_t(uint8_t(p[b])) << (8 * (b - first));
    v = uint32_t((window >> (bit % 8)) & ((uint64_t(1) << bits) - 1));
    bit += size_t(bits);
    return true;
  }
};

}  // namespace commlab::gapcode
