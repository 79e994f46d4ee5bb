#pragma once
// Counter-based randomness: every random choice is a pure function of (seed, rank, iteration,
// purpose, index), so results never depend on thread count or scheduling (docs/architecture.md).
// The mixer is SplitMix64's finaliser applied to a combined key; Philox would also do, but this
// passes the statistical tests we need (tests/numeric) and is a handful of cycles.
#include <cmath>
#include <cstdint>
#include <limits>

namespace commlab {

// Named purposes keep independent streams apart (two uses of one seed never correlate).
enum class Purpose : uint64_t {
  kInit = 1,
  kDataOrder = 2,
  kSkipRotation = 3,
  kTrim = 4,
  kRademacher = 5,
  kStochasticRound = 6,
  kGenerator = 7,
  kDropout = 8,
  kEcmp = 9,
  kTraffic = 10,
  kCodec = 11,
  kSharding = 12,         // non-iid shards (train/data/sampler.h)
  kEvalSubset = 13,       // the evaluation's test rows (train/data/sampler.h)
  kValidationSplit = 14,  // the validation rows carved from the training set (sampler.h)
};

inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline uint64_t hash_combine(uint64_t a, uint64_t b) {
  return mix64(a ^ mix64(b));
}

// A stream key; draw(i) is the i-th 64-bit value of the stream.
class CounterRng {
 public:
  CounterRng(uint64_t seed, Purpose purpose, uint64_t rank = 0, uint64_t iteration = 0)
      : key_(hash_combine(hash_combine(hash_combine(seed, static_cast<uint64_t>(purpose)), rank),
                          iteration)) {}
  explicit CounterRng(uint64_t key) : key_(key) {}

  uint64_t draw(uint64_t i) const { return mix64(key_ + mix64(i)); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform(uint64_t i) const { return static_cast<double>(draw(i) >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n) (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
  uint64_t below(uint64_t i, uint64_t n) const {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(draw(i)) * n) >> 64);
  }
  CounterRng sub(uint64_t tag) const { return CounterRng(hash_combine(key_, tag)); }
  uint64_t key() const { return key_; }

 private:
  uint64_t key_;
};

// A sequential generator over a CounterRng for code that wants next() (std distributions).
class StreamRng {
 public:
  using result_type = uint64_t;
  explicit StreamRng(CounterRng rng, uint64_t start = 0) : rng_(rng), counter_(start) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return rng_.draw(counter_++); }
  double uniform() { return rng_.uniform(counter_++); }
  // Standard normal by Box-Muller on two uniforms: deterministic, no cached state.
  double normal() {
    double u1 = 1.0 - uniform();  // (0, 1]
    double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  CounterRng rng_;
  uint64_t counter_;
};

}  // namespace commlab
