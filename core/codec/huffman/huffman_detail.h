#pragma once
// Internal to the Huffman coder (huffman.cpp encodes, huffman_decode.cpp decodes): the helpers both
// halves share. Not part of the codec API.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/huffman/huffman.h"
#include "io/status.h"

namespace commlab::entropy::detail {

inline constexpr uint32_t kTableSize = 1u << kMaxCodeBits;

inline size_t sym_bytes(int alphabet) {
  return alphabet > 256 ? 2 : 1;
}

// The low `len` bits of code, reversed (len <= 16), through a byte table: a bit-by-bit loop
// over every symbol of every stream showed up in the decoder's profile.
inline uint32_t reverse_bits(uint32_t code, int len) {
  static constexpr auto kRev8 = [] {
    std::array<uint8_t, 256> t{};
    for (int b = 0; b < 256; ++b) {
      for (int i = 0; i < 8; ++i) t[b] |= uint8_t(((b >> i) & 1) << (7 - i));
    }
    return t;
  }();
  const uint32_t r16 = (uint32_t(kRev8[code & 255]) << 8) | kRev8[(code >> 8) & 255];
  return r16 >> (16 - len);
}

// Segments of a stream of `count` symbols: k covers [k*q, k*q + segment_length(k)).
inline size_t segment_size(size_t count) {
  return (count + kBitStreams - 1) / kBitStreams;
}
inline size_t segment_length(size_t count, int k) {
  size_t q = segment_size(count), begin = std::min(count, k * q);
  return std::min(q, count - begin);
}

// Canonical codes, bit-reversed so the first code bit is the lowest bit written.
void canonical_codes(const uint8_t* lengths, int alphabet, uint16_t* codes);
// Nibble-coded code lengths (docs/formats.md): bytes read, or an error.
Result<size_t> read_lengths(std::span<const std::byte> in, int alphabet, uint8_t* len);

// Decoder tables (huffman_tables.cpp), all with kTableSize entries indexed by the next 11 bits.
// Whether the lengths form a complete code (Kraft sum exactly 1).
bool complete_code(const uint8_t* len, int alphabet);
// One-symbol entries (symbol << 4 | length) of a complete code.
void fill_single(const uint8_t* len, int alphabet, uint16_t* single);
// Two-symbol entries for 16-bit symbols (layout: huffman_decode.cpp, Entry).
void build_pair_table(const uint16_t* single, uint32_t* table);
// Up to four byte symbols per entry: bits used in [0,8), symbols in bytes 1..4, count from bit 40.
// `single` must be followed by 2 readable bytes (the AVX2 gathers read 32 bits at a time).
void build_quad_table(const uint16_t* single, uint64_t* quad);

}  // namespace commlab::entropy::detail
