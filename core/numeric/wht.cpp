#include "numeric/wht.h"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "numeric/rng.h"

namespace commlab {
namespace {

// Stages with stride < kBlock run block by block so the data stays in L1 (16 KiB of floats).
constexpr size_t kBlock = 4096;

// The kernels are compiled for AVX2 and for the baseline, picked at load time (GCC target_clones),
// so one binary runs everywhere and uses 8-lane butterflies where it can.
#define COMMLAB_WHT_CLONES __attribute__((target_clones("avx2", "default")))

// Strides 1 and 2 together: a radix-4 butterfly on each group of four.
inline void stage_radix4_small(float* x, size_t n) {
  for (size_t i = 0; i < n; i += 4) {
    float a = x[i], b = x[i + 1], c = x[i + 2], d = x[i + 3];
    float s0 = a + b, d0 = a - b, s1 = c + d, d1 = c - d;
    x[i] = s0 + s1;
    x[i + 1] = d0 + d1;
    x[i + 2] = s0 - s1;
    x[i + 3] = d0 - d1;
  }
}

// One stage of stride h (h >= 4): contiguous runs of h lanes, which GCC vectorises.
inline void stage(float* x, size_t n, size_t h) {
  for (size_t i = 0; i < n; i += 2 * h) {
    float* __restrict p = x + i;
    float* __restrict q = x + i + h;
    for (size_t j = 0; j < h; ++j) {
      float a = p[j], b = q[j];
      p[j] = a + b;
      q[j] = a - b;
    }
  }
}

// Two stages (strides h and 2h) in one sweep: half the loads and stores of two single stages.
inline void stage_radix4(float* x, size_t n, size_t h) {
  for (size_t i = 0; i < n; i += 4 * h) {
    float* __restrict p0 = x + i;
    float* __restrict p1 = x + i + h;
    float* __restrict p2 = x + i + 2 * h;
    float* __restrict p3 = x + i + 3 * h;
    for (size_t j = 0; j < h; ++j) {
      float a = p0[j], b = p1[j], c = p2[j], d = p3[j];
      float s0 = a + b, d0 = a - b, s1 = c + d, d1 = c - d;
      p0[j] = s0 + s1;
      p1[j] = d0 + d1;
      p2[j] = s0 - s1;
      p3[j] = d0 - d1;
    }
  }
}

// All stages of x (n >= 4, a power of two).
COMMLAB_WHT_CLONES void fwht_kernel(float* x, size_t n) {
  const size_t block = n < kBlock ? n : kBlock;
  for (size_t base = 0; base < n; base += block) {
    float* xb = x + base;
    stage_radix4_small(xb, block);
    size_t h = 4;
    for (; h * 2 < block; h *= 4) stage_radix4(xb, block, h);
    if (h < block) stage(xb, block, h);
  }
  size_t h = block;
  for (; h * 2 < n; h *= 4) stage_radix4(x, n, h);
  if (h < n) stage(x, n, h);
}

COMMLAB_WHT_CLONES void rademacher_kernel(float* x, size_t n, uint64_t key, float factor) {
  const CounterRng rng(key);
  size_t i = 0;
  for (uint64_t word = 0; i + 64 <= n; ++word, i += 64) {
    const uint64_t bits = rng.draw(word);
    for (int byte = 0; byte < 8; ++byte) {
      const uint32_t* mask = kByteSignMasks[(bits >> (8 * byte)) & 0xff].data();
      float* xi = x + i + 8 * byte;
      for (int k = 0; k < 8; ++k) {
        xi[k] = std::bit_cast<float>(std::bit_cast<uint32_t>(xi[k] * factor) ^ mask[k]);
      }
    }
  }
  if (i < n) {
    const uint64_t bits = rng.draw(i / 64);
    for (size_t k = 0; i < n; ++i, ++k) {
      x[i] = std::bit_cast<float>(std::bit_cast<uint32_t>(x[i] * factor) ^
                                  (static_cast<uint32_t>((bits >> k) & 1u) << 31));
    }
  }
}

}  // namespace

// Constant-initialised, so static initialisers elsewhere may already use it.
constinit const std::array<std::array<uint32_t, 8>, 256> kByteSignMasks = [] {
  std::array<std::array<uint32_t, 8>, 256> t{};
  for (int b = 0; b < 256; ++b) {
    for (int k = 0; k < 8; ++k) t[b][k] = ((b >> k) & 1) ? 0x80000000u : 0u;
  }
  return t;
}();

size_t next_pow2(size_t n) {
  return n <= 1 ? 1 : std::bit_ceil(n);
}

void fwht(std::span<float> xs) {
  const size_t n = xs.size();
  if (!is_pow2(n)) {
    throw bad_input("fwht: size " + std::to_string(n) + " is not a power of two");
  }
  float* x = xs.data();
  if (n == 1) return;
  if (n == 2) {
    float a = x[0], b = x[1];
    x[0] = a + b;
    x[1] = a - b;
    return;
  }
  fwht_kernel(x, n);
}

void apply_rademacher(std::span<float> xs, uint64_t key, float factor) {
  rademacher_kernel(xs.data(), xs.size(), key, factor);
}

uint64_t rademacher_key(uint64_t seed, uint64_t rank, uint64_t iteration) {
  return CounterRng(seed, Purpose::kRademacher, rank, iteration).key();
}

void rht_forward(std::span<float> x, uint64_t key) {
  // H (D x) / sqrt(d) = H (D x / sqrt(d)): fold the normalisation into the sign pass.
  apply_rademacher(x, key, static_cast<float>(1.0 / std::sqrt(static_cast<double>(x.size()))));
  fwht(x);
}

void rht_inverse(std::span<float> y, uint64_t key) {
  fwht(y);
  apply_rademacher(y, key, static_cast<float>(1.0 / std::sqrt(static_cast<double>(y.size()))));
}

std::vector<float> rht_padded(std::span<const float> x, uint64_t key) {
  std::vector<float> out(next_pow2(x.size()), 0.0f);
  std::copy(x.begin(), x.end(), out.begin());
  rht_forward(out, key);
  return out;
}

}  // namespace commlab
