#pragma once
// Zero masks of the commlab codec as bit vectors (bit i of word i / 64 set = element i is +0), and
// the passes that move the nonzero elements out of and back into place. The SSSE3 (pshufb) paths
// are picked at run time (x86-64 guarantees only SSE2); the scalar paths run everywhere and are
// what the SIMD ones must equal. Bits at positions >= n of the last word are always zero.
#include <cstddef>
#include <cstdint>

namespace commlab::zmask {

inline size_t words(size_t n) {
  return (n + 63) / 64;
}
inline bool test(const uint64_t* b, size_t i) {
  return (b[i >> 6] >> (i & 63)) & 1;
}

// Moves the nonzero elements of x[0, n) (W = uint16_t or uint32_t, x unaligned) to out[0, m) and
// writes the zero mask to bits[0, words(n)). out needs n + 8 slots. Returns m.
template <class W>
size_t compact(const std::byte* x, size_t n, W* out, uint64_t* bits);

// The inverse: v[0, m) are the nonzero elements (v needs 8 readable slots past m, whatever their
// values), bits the zero mask; writes n elements to out (unaligned).
template <class W>
void expand(const W* v, const uint64_t* bits, size_t n, std::byte* out);

// expand of 16-bit words fused with the two passes around it: the words are joined from their
// exponent bytes e[0, m) and literal bytes l[0, m) (csplit::join), and with q != 0 (q >= 16)
// their exponents are predicted from element i - q (expdelta::decode), all in one pass: the same
// n words as join, expand and decode one after the other. False (nothing written) on CPUs
// without AVX2, where the caller runs the three.
bool expand_joined16(const uint8_t* e, const uint8_t* l, size_t m, const uint64_t* bits, size_t n,
                     uint32_t q, std::byte* out);

// r[i] = b[i] XOR b[i - p] for i >= p, r[i] = b[i] below p (0 < p < n). r must not alias b.
void diff_period(const uint64_t* b, size_t n, size_t p, uint64_t* r);
// In place inverse of diff_period: b[i] ^= b[i - p] for i = p, p + 1, ..., n - 1.
void undiff_period(uint64_t* b, size_t n, size_t p);

// Number of ones.
size_t count(const uint64_t* b, size_t n);

}  // namespace commlab::zmask
