#pragma once
// The entropy stage of the commlab codec: canonical, length-limited Huffman codes with per-stream
// tables, four interleaved LSB-first bit streams and a table-driven decoder (one 11-bit lookup per
// symbol). Stream layout: docs/formats.md, "entropy stream". huffman_reference.cpp holds a slow,
// obviously-correct decoder that the tests run on this encoder's output.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "io/status.h"

namespace commlab::entropy {

inline constexpr int kMaxCodeBits = 11;
inline constexpr int kMaxAlphabet = 258;
inline constexpr int kBitStreams = 4;

enum class Mode : uint8_t { kRaw = 0, kConstant = 1, kHuffman = 2 };

// Code lengths (1..kMaxCodeBits; 0 = absent) of a length-limited Huffman code for `freq`. At least
// two symbols must be present. The code is complete (Kraft sum exactly 1).
void huffman_lengths(const uint32_t* freq, int alphabet, uint8_t* lengths);

// Largest encoded size of `count` symbols (raw mode is always possible).
size_t stream_bound(size_t count, int alphabet);

// Encodes the symbols (each < alphabet; alphabet <= 256 for uint8_t) in the smallest of raw,
// constant and Huffman modes. Returns the bytes written or an error if `out` is too small.
// `every8th`, if given, holds the 256 counts of symbols 0, 8, 16, ... of a byte stream (a caller
// that just wrote them, cache-hot, counts them cheaper than a second strided pass); the output
// is the same with or without it. `reuse`, if given, holds 256 code lengths (all 0 = none): when
// that code covers every symbol present and costs at most 1/128 more bits than the stream's own,
// it is used instead (a decoder's TableCache then skips the table build); a new code also gets
// the absent symbols within 4 of the present ones (long codes), so that the next stream of the
// same kind is likely covered; `reuse` receives the lengths of every Huffman stream written.
template <class Sym>
Result<size_t> encode_stream(const Sym* symbols, size_t count, int alphabet,
                             std::span<std::byte> out, const uint32_t* every8th = nullptr,
                             uint8_t* reuse = nullptr);

// The last few lookup tables a decoder built for long byte streams, keyed by their code lengths:
// a stream whose code is the same as an earlier one's (the commlab encoder reuses a block's code
// for the next block when it costs almost nothing) skips the table build. The owner clears it
// at every frame, so a frame's decoding time never depends on the frames before it.
class TableCache {
 public:
  TableCache();
  ~TableCache();
  void clear();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

// Decodes exactly `count` symbols; returns the bytes of `in` the stream occupied. Any malformed
// stream (bad table, incomplete code, overrun, symbol >= alphabet) is an error.
template <class Sym>
Result<size_t> decode_stream(std::span<const std::byte> in, size_t count, int alphabet, Sym* out,
                             TableCache* cache = nullptr);

// Slow reference decoder (huffman_reference.cpp): bit by bit, canonical codes searched linearly.
Result<std::vector<uint16_t>> reference_decode_stream(std::span<const std::byte> in, size_t count,
                                                      int alphabet, size_t* consumed);

}  // namespace commlab::entropy
