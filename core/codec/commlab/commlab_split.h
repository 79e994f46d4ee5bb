#pragma once
// The commlab codec's element <-> byte-stream passes (docs/formats.md, "CommLab entropy blocks"):
// split a block's words into the exponent stream and the w-1 literal streams, and join them back.
// Both are plain loops the compiler vectorises, built twice: for AVX2 (picked at run time) and
// for the x86-64 baseline.
#include <cstddef>
#include <cstdint>

namespace commlab::csplit {

// Splits x[0, n) (unaligned words) into e[0, n) and lits[k][0, n), k < w-1; returns the number
// of zero words. BF16/FP16 also count every 8th literal byte into sample_hist (256 counters,
// cleared here): the raw decision's sample (entropy::encode_stream's every8th).
template <class W>
size_t split(const void* x, size_t n, uint8_t* e, uint8_t* const* lits, uint32_t* sample_hist);

// The inverse: n words to out (unaligned) from e and lits.
template <class W>
void join(size_t n, const uint8_t* e, const uint8_t* const* lits, void* out);

}  // namespace commlab::csplit
