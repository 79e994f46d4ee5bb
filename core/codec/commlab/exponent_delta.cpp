#include "codec/commlab/exponent_delta.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "codec/cpu_features.h"
#include "codec/frame.h"

namespace commlab::expdelta {
namespace {

using frame::load;

template <class W>
uint32_t exponent(W w) {
  return uint32_t(w >> shift<W>()) & 0xff;
}

// The coded exponent of nonzero w whose predictor a is nonzero.
template <class W>
uint32_t coded(W w, W a) {
  return ((exponent(w) - exponent(a)) & 0xff) ^ 0x80;
}

constexpr size_t kStride = 16;  // choose() samples every 16th element

double cost_bits(const uint32_t* hist, uint32_t total) {
  double bits = 0;
  for (int k = 0; k < 256; ++k) {
    if (hist[k]) bits += double(hist[k]) * std::log2(double(total) / double(hist[k]));
  }
  return bits;
}

// Element order matters (element i reads the final word i - q), so a vector of L lanes needs
// q >= L: kMinDistance = 16 covers AVX2's 16 16-bit lanes.
template <class W>
void decode_scalar(std::byte* out, size_t i, size_t n, uint32_t q) {
  constexpr int s = shift<W>();
  constexpr W field = W(W(0xff) << s);
  for (; i < n; ++i) {
    const W w = load<W>(out + i * sizeof(W)), a = load<W>(out + (i - q) * sizeof(W));
    if (w == 0 || a == 0) continue;
    const W e = W((((exponent(w) ^ 0x80) + exponent(a)) & 0xff) << s);
    const W v = W((w & ~field) | e);
    std::memcpy(out + i * sizeof(W), &v, sizeof(W));
  }
}

// The exponent field of every lane and its top bit (the coded exponent's bias), for W's width.
template <class W>
struct FieldMasks {
  __m256i field, flip;
};
template <class W>
__attribute__((target("avx2"))) FieldMasks<W> field_masks() {
  constexpr int s = shift<W>();
  if constexpr (sizeof(W) == 4)
    return {_mm256_set1_epi32(int(0xffu << s)), _mm256_set1_epi32(int(0x80u << s))};
  else
    return {_mm256_set1_epi16(short(0xff << s)), _mm256_set1_epi16(short(0x80 << s))};
}

// 16 or 8 lanes per step: new = (w & ~field) | (((w ^ 0x80 << s) + (a & field)) & field), kept
// only where w and a are nonzero. The carry out of the field lands above it and is masked off.
template <class W>
__attribute__((target("avx2"))) void decode_avx2(std::byte* out, size_t n, uint32_t q) {
  constexpr bool wide = sizeof(W) == 4;
  const auto [field, flip] = field_masks<W>();
  const __m256i zero = _mm256_setzero_si256();
  size_t i = q;
  constexpr size_t kLanes = 32 / sizeof(W);
  for (; i + kLanes <= n; i += kLanes) {
    auto* pw = reinterpret_cast<__m256i*>(out + i * sizeof(W));
    const __m256i w = _mm256_loadu_si256(pw);
    const __m256i a =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(out + (i - q) * sizeof(W)));
    const __m256i keep =
        wide ? _mm256_or_si256(_mm256_cmpeq_epi32(w, zero), _mm256_cmpeq_epi32(a, zero))
             : _mm256_or_si256(_mm256_cmpeq_epi16(w, zero), _mm256_cmpeq_epi16(a, zero));
    const __m256i sum =
        wide ? _mm256_add_epi32(_mm256_xor_si256(w, flip), _mm256_and_si256(a, field))
             : _mm256_add_epi16(_mm256_xor_si256(w, flip), _mm256_and_si256(a, field));
    const __m256i v = _mm256_or_si256(_mm256_andnot_si256(field, w), _mm256_and_si256(sum, field));
    _mm256_storeu_si256(pw, _mm256_blendv_epi8(v, w, keep));
  }
  decode_scalar<W>(out, i, n, q);
}

const bool kAvx2 = cpu_features().avx2;

// The encoder's side, from element i on (q <= i): y = (w & ~field) | (((w & field) - (a & field))
// ^ flip) & field where w and a are nonzero, else w. Returns where it stopped; bad is set when a
// nonzero w would become 0.
template <class W>
__attribute__((target("avx2"))) size_t encode_avx2(const std::byte* x, size_t n, uint32_t q,
                                                   std::byte* y, size_t i, bool& bad) {
  constexpr bool wide = sizeof(W) == 4;
  const auto [field, flip] = field_masks<W>();
  const __m256i zero = _mm256_setzero_si256();
  __m256i any_bad = zero;
  constexpr size_t kLanes = 32 / sizeof(W);
  for (; i + kLanes <= n; i += kLanes) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i * sizeof(W)));
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + (i - q) * sizeof(W)));
    const __m256i wz = wide ? _mm256_cmpeq_epi32(w, zero) : _mm256_cmpeq_epi16(w, zero);
    const __m256i az = wide ? _mm256_cmpeq_epi32(a, zero) : _mm256_cmpeq_epi16(a, zero);
    const __m256i diff =
        wide ? _mm256_sub_epi32(_mm256_and_si256(w, field), _mm256_and_si256(a, field))
             : _mm256_sub_epi16(_mm256_and_si256(w, field), _mm256_and_si256(a, field));
    const __m256i v = _mm256_or_si256(_mm256_andnot_si256(field, w),
                                      _mm256_and_si256(_mm256_xor_si256(diff, flip), field));
    const __m256i out = _mm256_blendv_epi8(v, w, _mm256_or_si256(wz, az));
    const __m256i oz = wide ? _mm256_cmpeq_epi32(out, zero) : _mm256_cmpeq_epi16(out, zero);
    any_bad = _mm256_or_si256(any_bad, _mm256_andnot_si256(wz, oz));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i * sizeof(W)), out);
  }
  bad |= !_mm256_testz_si256(any_bad, any_bad);
  return i;
}

// Histogram of bin(i) over i = from, from + 16, ... < to, in four interleaved tables (the
// exponents crowd into a few bins, and one table's increments waited on each other's stores).
template <class Bin>
void sample_hist(size_t from, size_t to, uint32_t* hist, Bin bin) {
  uint32_t h[4][257] = {};
  size_t i = from;
  for (; i + 3 * kStride < to; i += 4 * kStride) {
    h[0][bin(i)]++;
    h[1][bin(i + kStride)]++;
    h[2][bin(i + 2 * kStride)]++;
    h[3][bin(i + 3 * kStride)]++;
  }
  for (; i < to; i += kStride) h[0][bin(i)]++;
  for (int k = 0; k < 257; ++k) hist[k] += h[0][k] + h[1][k] + h[2][k] + h[3][k];
}

}  // namespace

template <class W>
uint32_t choose(const std::byte* x, size_t n, const uint32_t* candidates, int count) {
  // Branch-free counting (a quarter of the elements are zeros, at unpredictable places): zero
  // elements go to bin 256.
  auto word = [x](size_t i) { return load<W>(x + i * sizeof(W)); };
  auto plain_bin = [&](size_t i) {
    const W w = word(i);
    return w ? exponent(w) : 256;
  };
  uint32_t plain[257] = {};
  sample_hist(0, n, plain, plain_bin);
  const uint32_t total = uint32_t((n + kStride - 1) / kStride) - plain[256];
  if (total < 512) return 0;
  double best_bits = 0.97 * cost_bits(plain, total);
  uint32_t best = 0;
  for (int c = 0; c < count; ++c) {
    const uint32_t q = candidates[c];
    if (q < kMinDistance || q >= n || q == best) continue;
    uint32_t hist[257] = {};
    // The samples below q (a multiple of 16 or not) keep their plain exponents.
    const size_t first = std::min(n, (size_t(q) + kStride - 1) / kStride * kStride);
    sample_hist(0, first, hist, plain_bin);
    sample_hist(first, n, hist, [&](size_t i) {
      const W w = word(i), a = word(i - q);
      return !w ? 256 : a ? coded(w, a) : exponent(w);
    });
    const double bits = cost_bits(hist, total);
    if (bits < best_bits) best_bits = bits, best = q;
    if (c == 0 && best) break;  // the previous block's distance still pays: keep it
  }
  return best;
}

template <class W>
bool encode(const std::byte* x, size_t n, uint32_t q, std::byte* y) {
  size_t i = std::min<size_t>(q, n);
  std::memcpy(y, x, i * sizeof(W));
  bool bad = false;
  if (kAvx2) i = encode_avx2<W>(x, n, q, y, i, bad);
  constexpr W field = W(W(0xff) << shift<W>());
  for (; i < n; ++i) {
    const W w = load<W>(x + i * sizeof(W)), a = load<W>(x + (i - q) * sizeof(W));
    const W v = w && a ? W((w & ~field) | W(coded(w, a) << shift<W>())) : w;
    bad |= w != 0 && v == 0;
    std::memcpy(y + i * sizeof(W), &v, sizeof(W));
  }
  return !bad;
}

template <class W>
void decode(std::byte* out, size_t n, uint32_t q) {
  if (q >= n) return;
  if (kAvx2) return decode_avx2<W>(out, n, q);
  decode_scalar<W>(out, q, n, q);
}

template uint32_t choose<uint16_t>(const std::byte*, size_t, const uint32_t*, int);
template uint32_t choose<uint32_t>(const std::byte*, size_t, const uint32_t*, int);
template bool encode<uint16_t>(const std::byte*, size_t, uint32_t, std::byte*);
template bool encode<uint32_t>(const std::byte*, size_t, uint32_t, std::byte*);
template void decode<uint16_t>(std::byte*, size_t, uint32_t);
template void decode<uint32_t>(std::byte*, size_t, uint32_t);

}  // namespace commlab::expdelta
