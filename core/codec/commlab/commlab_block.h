#pragma once
// The commlab codec's block coder (docs/formats.md, "CommLab entropy blocks"): one block of at most
// 128 KiB to its zero mask, exponent stream and literal streams and back. A Coder holds one
// thread's scratch and the encoder's choices carried from one block to the next (zero-mask period,
// exponent prediction distance, exponent code); start() forgets them, so a run of blocks coded
// after it does not depend on the blocks before it. Internal to the commlab codec.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/huffman/huffman.h"
#include "io/status.h"

// The encoder's zero-mask period search (docs/formats.md, "Zero mask"): the shift whose mask one
// period earlier predicts the most zeros of a block.
namespace commlab::zperiod {

// Scratch reused from block to block (no allocation once grown).
struct Scratch {
  std::vector<uint32_t> zeros;   // the first zeros of the block
  std::vector<uint64_t> sample;  // their bits (mask words with the later zeros cleared)
  std::vector<uint64_t> first;   // the bits of the first 32 of them
};

// Period whose shifted mask predicts the most zeros, judged on up to 256 zeros of the block;
// candidates are the distances from the first zero to the next ones, plus `last` (the previous
// block's period). 0 when none predicts clearly more than half of them. mask holds words(n) words
// (bits past n clear).
uint32_t find(const uint64_t* mask, size_t n, uint32_t last, Scratch& s);

}  // namespace commlab::zperiod

namespace commlab::cblock {

inline constexpr size_t kBlockBytes = 128 * 1024;
inline constexpr size_t kBlockHeader = 20;
inline constexpr uint32_t kBitmapFlag = 1u << 31;  // in the period word: the flips are a bitmap

// Bytes of the block at in[0...] (n elements, `lits` literal streams) without decoding it: where
// the next block starts. An error when its streams run past in; the decoder checks the rest.
Result<size_t> block_size(std::span<const std::byte> in, size_t n, int lits);

class Coder {
 public:
  // Forgets the carried state and the decoder's cached tables.
  void start();
  // One block of W words (uint16_t: BF16/FP16, uint32_t: FP32); bytes written to out.
  template <class W>
  Result<size_t> encode(std::span<const std::byte> in, std::span<std::byte> out);
  // The block at in[0...] into out (its size says n); bytes of in it occupied.
  template <class W>
  Result<size_t> decode(std::span<const std::byte> in, std::span<std::byte> out);

 private:
  // Codes the `flips` ones of r (the flip vector) as gaps into gap_syms_ and extra_.
  void gap_code(const uint64_t* r, size_t n, size_t flips);
  // Rebuilds the zero mask in zbits_; returns an error message or nullptr.
  const char* decode_mask(std::span<const std::byte> in, size_t n, size_t m, uint32_t period_word,
                          size_t flips, size_t& pos);
  template <class W>
  size_t split_all(const void* x, size_t n);

  uint32_t period_ = 0;  // the previous block's period, tried first on the next block
  uint32_t delta_ = 0;
  bool had_zeros_ = true;  // the last block had zeros (which pass runs first; same bytes) // the
                           // previous block's exponent prediction distance
  uint8_t exp_code_[256] = {};   // the last exponent code's lengths, reused when nearly as good
  entropy::TableCache tables_;   // decoder: the four-symbol tables since start()
  std::vector<std::byte> pred_;  // the block with predicted exponents
  uint32_t sample_hist_[256];    // BF16/FP16: counts of every 8th literal byte of the last split
  std::vector<uint8_t> exps_;
  std::vector<uint8_t> lits_[3];
  std::vector<uint64_t> zbits_;  // zero mask, bit i = element i is +0
  std::vector<uint64_t> fbits_;  // flip vector (mask XOR mask one period earlier)
  std::vector<uint64_t> cand_;   // flip vector of a candidate period
  std::vector<uint8_t> gap_syms_;
  std::vector<uint8_t> extra_;
  std::vector<std::byte> joined_;
  zperiod::Scratch period_scratch_;
};

}  // namespace commlab::cblock
