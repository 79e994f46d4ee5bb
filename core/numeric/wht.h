#pragma once
// Fast Walsh-Hadamard transform and the randomized Hadamard transform (RHT) that DRIVE, EDEN and
// the trimmable packet heads rotate with (the trimming paper, docs/papers.md). The signs D come from the
// counter-based RNG, so sender and receiver derive the same rotation from a shared key.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace commlab {

// Largest transform the engine performs in one block (4 MiB of floats).
inline constexpr size_t kMaxWhtSize = size_t{1} << 20;

inline bool is_pow2(size_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}
// Smallest power of two >= n (1 for n == 0).
size_t next_pow2(size_t n);

// In place, unnormalised: x <- H x with H the +-1 Sylvester-Hadamard matrix (H H = d I).
// Precondition: x.size() is a power of two (checked; throws std::invalid_argument otherwise).
// O(d log d); blocked so that the first log2(4096) stages run inside L1.
void fwht(std::span<float> x);

// kByteSignMasks[b][k] = 0x80000000 if bit k of b is set, else 0: XOR into a float's bits flips
// its sign, eight lanes at a time (Rademacher signs, 1-bit heads).
extern const std::array<std::array<uint32_t, 8>, 256> kByteSignMasks;

// Multiplies x[i] by sign_i * factor, sign_i = +-1 the i-th Rademacher sign of `key`
// (bit i%64 of CounterRng(key).draw(i/64)). One pass; its own inverse when factor = 1.
void apply_rademacher(std::span<float> x, uint64_t key, float factor = 1.0f);

// Key of the Rademacher stream for (seed, rank, iteration): Purpose::kRademacher.
uint64_t rademacher_key(uint64_t seed, uint64_t rank = 0, uint64_t iteration = 0);

// R(x) = H (D x) / sqrt(d), in place; x.size() a power of two.
void rht_forward(std::span<float> x, uint64_t key);
// R^-1(y) = D (H y) / sqrt(d), in place; exact inverse of rht_forward up to rounding.
void rht_inverse(std::span<float> y, uint64_t key);

// Pads x with zeros to the next power of two and rotates: returns R([x; 0]).
std::vector<float> rht_padded(std::span<const float> x, uint64_t key);

}  // namespace commlab
