#pragma once
// The commlab encoder's zero-mask period search (docs/formats.md, "Zero mask"): the shift whose
// mask one period earlier predicts the most zeros of a block. Internal to the commlab codec.
#include <cstddef>
#include <cstdint>
#include <vector>

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
