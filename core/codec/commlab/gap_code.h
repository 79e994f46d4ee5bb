#pragma once
// The commlab zero mask's gap code (docs/formats.md, "Zero mask"): gap symbols and the extra-bit
// stream, LSB-first. Internal to commlab_codec.cpp.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "codec/frame.h"

namespace commlab::gapcode {

// 0..15 literal gaps, then two symbols per power of two up to 2^31.
inline constexpr int kGapSymbols = 72;

// Gap g between consecutive mask flips: symbol and extra bits (docs/formats.md). Branch-free:
// the gaps of a mask are short and long at random, and mispredicted branches were most of the
// encoder's gap coding.
inline uint32_t gap_symbol(uint32_t g, uint32_t& extra, int& extra_bits) {
  const int b = std::bit_width(g | 15) - 1;  // the power of two of the gap when g >= 16
  const uint32_t big = g >= 16, all = 0u - big;
  extra_bits = int(uint32_t(b - 1) & all);
  extra = g & ((1u << extra_bits) - 1);
  const uint32_t long_symbol = 16 + 2 * uint32_t(b - 4) + ((g >> (b - 1)) & 1);
  return (long_symbol & all) | (g & ~all);
}

// LSB-first writer of the extra bits: one unaligned 8-byte store per value and no branches, so
// the buffer needs 8 bytes of room past the last byte written.
struct ExtraWriter {
  uint8_t* p;
  uint64_t acc = 0;
  int n = 0;
  void put(uint32_t v, int bits) {
    acc |= uint64_t(v) << n;
    n += bits;
    std::memcpy(p, &acc, 8);
    p += n >> 3;
    acc >>= n & ~7;
    n &= 7;
  }
  // One past the last byte (the partial last byte is already stored).
  uint8_t* finish() {
    std::memcpy(p, &acc, 8);
    return p + (n > 0);
  }
};

struct ExtraReader {
  const std::byte* p;
  size_t size;
  size_t bit = 0;
  bool get(int bits, uint32_t& v) {
    if (bit / 8 + 8 <= size) {  // one unaligned load covers any 31 bits at any offset
      v = uint32_t((frame::get64(p + bit / 8) >> (bit % 8)) & ((uint64_t(1) << bits) - 1));
      bit += size_t(bits);
      return true;
    }
    if (bits == 0) {
      v = 0;
      return true;
    }
    if (bit + size_t(bits) > 8 * size) return false;
    uint64_t window = 0;  // up to 5 bytes cover any 31 bits at any offset
    const size_t first = bit / 8, last = (bit + size_t(bits) - 1) / 8;
    for (size_t b = first; b <= last; ++b) window |= uint64_t(uint8_t(p[b])) << (8 * (b - first));
    v = uint32_t((window >> (bit % 8)) & ((uint64_t(1) << bits) - 1));
    bit += size_t(bits);
    return true;
  }
};

}  // namespace commlab::gapcode
