#pragma once
// Exponent prediction of the commlab codec (format version 3, docs/formats.md): a nonzero element
// whose element q positions earlier is nonzero codes its exponent byte as the difference to that
// element's, XOR 0x80. Rows of a weight gradient are near-multiples of each other (row i is the
// batch's pixel-i activations times the same output errors), so with q = the row length the
// difference is mostly 0 or +-1: on the MLP gradients it saves a fifth of the exponent bits.
#include <cstddef>
#include <cstdint>

namespace commlab::expdelta {

// The exponent byte's position in a word (bits 7..14 of 16-bit words, 23..30 of 32-bit words).
template <class W>
constexpr int shift() {
  return sizeof(W) == 2 ? 7 : 23;
}

// Of the candidate distances (0 entries ignored; each must be >= kMinDistance and < n), the one
// whose coded exponents cost the fewest bits, judged on every 16th element, or 0 when none saves at
// least 3% over the plain exponents; the first candidate is taken without trying the others when
// it saves that much. x holds the block's n words (unaligned).
template <class W>
uint32_t choose(const std::byte* x, size_t n, const uint32_t* candidates, int count);

// Writes the block's words with the coded exponents to y (n words): the encoder then splits y
// as usual. False (y undefined) when some coded word would be 0 (a difference of exactly 128
// with zero sign and mantissa), which the decoder could not tell from a zero element: the block
// then goes plain.
template <class W>
bool encode(const std::byte* x, size_t n, uint32_t q, std::byte* y);

// The decoder's inverse on the block's n output words (zeros in place), in place, in element
// order: for i >= q, when word i and word i - q are both nonzero, exponent(i) becomes
// (exponent(i) XOR 0x80) + exponent(i - q) modulo 256. q >= kMinDistance.
template <class W>
void decode(std::byte* out, size_t n, uint32_t q);

inline constexpr uint32_t kMinDistance = 16;

}  // namespace commlab::expdelta
