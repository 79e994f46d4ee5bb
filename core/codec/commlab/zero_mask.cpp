#include "codec/commlab/zero_mask.h"

#include <immintrin.h>

#include <array>
#include <bit>
#include <cstring>

#include "codec/cpu_features.h"
#include "codec/frame.h"

namespace commlab::zmask {
namespace {

// Shuffle controls, one 16-byte row per mask pattern z (bit t set = slot t is a zero):
// expand moves the next nonzero into every clear slot and zeros the set ones (0x80), compact
// moves the clear slots to the front. 16-bit elements take 8 slots per row, 32-bit ones 4.
struct Tables {
  alignas(16) uint8_t expand16[256][16];
  alignas(16) uint8_t compact16[256][16];
  alignas(16) uint8_t expand32[16][16];
  alignas(16) uint8_t compact32[16][16];
  uint8_t ones[256];
};

void fill(uint8_t (*expand)[16], uint8_t (*compact)[16], int slots, int width) {
  for (int z = 0; z < (1 << slots); ++z) {
    std::memset(expand[z], 0x80, 16);
    std::memset(compact[z], 0x80, 16);
    int r = 0;
    for (int t = 0; t < slots; ++t) {
      if ((z >> t) & 1) continue;
      for (int b = 0; b < width; ++b) {
        expand[z][t * width + b] = uint8_t(r * width + b);
        compact[z][r * width + b] = uint8_t(t * width + b);
      }
      ++r;
    }
  }
}

const Tables& tables() {
  static const Tables t = [] {
    Tables u;
    fill(u.expand16, u.compact16, 8, 2);
    fill(u.expand32, u.compact32, 4, 4);
    for (int z = 0; z < 256; ++z) u.ones[z] = uint8_t(std::popcount(unsigned(z)));
    return u;
  }();
  return t;
}

const bool kSsse3 = cpu_features().ssse3;
const bool kPclmul = cpu_features().pclmul && cpu_features().sse41;
const bool kAvx512 = cpu_features().avx512 && cpu_features().popcnt;

using frame::load;

// Scalar tails and the fallback for CPUs without SSSE3, from element `i` and nonzero index `k`.
template <class W>
size_t compact_scalar(const std::byte* x, size_t i, size_t n, W* out, size_t k, uint64_t* bits) {
  for (; i < n; ++i) {
    const W w = load<W>(x + i * sizeof(W));
    out[k] = w;
    k += w != 0;
    bits[i >> 6] |= uint64_t(w == 0) << (i & 63);
  }
  return k;
}

template <class W>
void expand_scalar(const W* v, const uint64_t* bits, size_t i, size_t n, std::byte* out, size_t k) {
  for (; i < n; ++i) {
    const bool zero = test(bits, i);
    const W w = zero ? W(0) : v[k];
    std::memcpy(out + i * sizeof(W), &w, sizeof(W));
    k += !zero;
  }
}

// From element i and nonzero k (both 0, or where compact16_avx512 stopped).
__attribute__((target("ssse3"))) size_t compact16_ssse3(const std::byte* x, size_t n, uint16_t* out,
                                                        uint64_t* bits, size_t i = 0,
                                                        size_t k = 0) {
  const Tables& t = tables();
  uint8_t* mb = reinterpret_cast<uint8_t*>(bits);
  const __m128i zero = _mm_setzero_si128();
  for (; i + 8 <= n; i += 8) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 2 * i));
    const __m128i eq = _mm_packs_epi16(_mm_cmpeq_epi16(v, zero), zero);
    const unsigned z = unsigned(_mm_movemask_epi8(eq)) & 0xff;
    mb[i / 8] = uint8_t(z);
    const __m128i c =
        _mm_shuffle_epi8(v, _mm_load_si128(reinterpret_cast<const __m128i*>(t.compact16[z])));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k), c);
    k += 8 - t.ones[z];
  }
  return compact_scalar<uint16_t>(x, i, n, out, k, bits);
}

// The first part of compact16 on AVX-512 (VBMI2) CPUs: 32 words per step, one vpcompressw by
// their nonzero mask (stored as the zero mask's next 32 bits). Advances i, k.
__attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt"))) void compact16_avx512(
    const std::byte* x, size_t n, uint16_t* out, uint64_t* bits, size_t& i_out, size_t& k_out) {
  uint8_t* mb = reinterpret_cast<uint8_t*>(bits);
  size_t k = 0, i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512i v = _mm512_loadu_si512(x + 2 * i);
    const uint32_t zeros = _mm512_cmpeq_epi16_mask(v, _mm512_setzero_si512());
    std::memcpy(mb + i / 8, &zeros, 4);
    _mm512_storeu_si512(out + k, _mm512_maskz_compress_epi16(~zeros, v));
    k += 32 - size_t(__builtin_popcount(zeros));
  }
  i_out = i, k_out = k;
}

__attribute__((target("ssse3"))) size_t compact32_ssse3(const std::byte* x, size_t n, uint32_t* out,
                                                        uint64_t* bits) {
  const Tables& t = tables();
  const __m128i zero = _mm_setzero_si128();
  size_t k = 0, i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 4 * i));
    const unsigned z = unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, zero))));
    bits[i >> 6] |= uint64_t(z) << (i & 63);
    const __m128i c =
        _mm_shuffle_epi8(v, _mm_load_si128(reinterpret_cast<const __m128i*>(t.compact32[z])));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k), c);
    k += 4 - t.ones[z];
  }
  return compact_scalar<uint32_t>(x, i, n, out, k, bits);
}

__attribute__((target("ssse3"))) void expand16_ssse3(const uint16_t* v, const uint64_t* bits,
                                                     size_t n, std::byte* out) {
  const Tables& t = tables();
  const uint8_t* mb = reinterpret_cast<const uint8_t*>(bits);
  size_t k = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    const unsigned z = mb[i / 8];
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + k));
    const __m128i c =
        _mm_shuffle_epi8(s, _mm_load_si128(reinterpret_cast<const __m128i*>(t.expand16[z])));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), c);
    k += 8 - t.ones[z];
  }
  expand_scalar<uint16_t>(v, bits, i, n, out, k);
}

__attribute__((target("ssse3"))) void expand32_ssse3(const uint32_t* v, const uint64_t* bits,
                                                     size_t n, std::byte* out) {
  const Tables& t = tables();
  size_t k = 0, i = 0;
  for (; i + 4 <= n; i += 4) {
    const unsigned z = unsigned(bits[i >> 6] >> (i & 63)) & 15;
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + k));
    const __m128i c =
        _mm_shuffle_epi8(s, _mm_load_si128(reinterpret_cast<const __m128i*>(t.expand32[z])));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 4 * i), c);
    k += 4 - t.ones[z];
  }
  expand_scalar<uint32_t>(v, bits, i, n, out, k);
}

// Element j's exponent decoded from element j - q's word, in place (expdelta::decode; j >= q).
inline void predict(std::byte* out, size_t j, uint32_t q) {
  const uint32_t w = load<uint16_t>(out + 2 * j), a = load<uint16_t>(out + 2 * (j - q));
  if (!w || !a) return;
  const uint16_t v = uint16_t((w & 0x807fu) | (((((w >> 7) ^ 0x80u) + (a >> 7)) & 0xffu) << 7));
  std::memcpy(out + 2 * j, &v, 2);
}

// expand_joined16's first part on AVX-512 (VBMI2) CPUs: 32 words per step, one vpexpandw by the
// 32 mask bits. Needs q = 0 or q >= 32 (the lanes read element i - q as final); advances i, k.
__attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt"))) void expand_joined16_avx512(
    const uint8_t* e, const uint8_t* l, size_t m, const uint64_t* bits, size_t n, uint32_t q,
    std::byte* out, size_t& i_out, size_t& k_out) {
  const __m512i lit_mask = _mm512_set1_epi16(0x007f), exp_mask = _mm512_set1_epi16(0x7f80);
  const __m512i sign_mask = _mm512_set1_epi16(short(0x8000)), flip = _mm512_set1_epi16(0x4000);
  const __m512i zero = _mm512_setzero_si512();
  size_t k = 0, i = 0;
  for (; i + 32 <= n && k + 32 <= m; i += 32) {
    uint32_t zeros;
    std::memcpy(&zeros, reinterpret_cast<const uint8_t*>(bits) + i / 8, 4);
    const __mmask32 nonzero = ~zeros;
    const __m512i ev =
        _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(e + k)));
    const __m512i lv =
        _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(l + k)));
    // The word: sign (bit 7 of l) << 8 | e << 7 | low 7 bits of l.
    const __m512i w =
        _mm512_or_si512(_mm512_or_si512(_mm512_slli_epi16(ev, 7), _mm512_and_si512(lv, lit_mask)),
                        _mm512_and_si512(_mm512_slli_epi16(lv, 8), sign_mask));
    __m512i c = _mm512_maskz_expand_epi16(nonzero, w);
    k += size_t(__builtin_popcount(nonzero));
    if (q && i >= q) {  // expdelta::decode_avx2's arithmetic
      const __m512i a = _mm512_loadu_si512(out + 2 * (i - q));
      const __mmask32 keep = _mm512_cmpeq_epi16_mask(c, zero) | _mm512_cmpeq_epi16_mask(a, zero);
      const __m512i sum =
          _mm512_add_epi16(_mm512_xor_si512(c, flip), _mm512_and_si512(a, exp_mask));
      const __m512i v =
          _mm512_or_si512(_mm512_andnot_si512(exp_mask, c), _mm512_and_si512(sum, exp_mask));
      c = _mm512_mask_blend_epi16(keep, v, c);
    }
    _mm512_storeu_si512(out + 2 * i, c);
    if (q && i < q && q < i + 32) {  // the group holding element q: its lanes from q on
      for (size_t j = q; j < i + 32; ++j) predict(out, j, q);
    }
  }
  i_out = i, k_out = k;
}

// expand_joined16 on AVX2 CPUs: 16 words per step, two groups of eight (one mask byte and one
// shuffle row each) in the two 128-bit lanes.
__attribute__((target("avx2"))) void expand_joined16_avx2(const uint8_t* e, const uint8_t* l,
                                                          size_t m, const uint64_t* bits, size_t n,
                                                          uint32_t q, std::byte* out, size_t i,
                                                          size_t k) {
  const Tables& t = tables();
  const uint8_t* mb = reinterpret_cast<const uint8_t*>(bits);
  const __m256i lit_mask = _mm256_set1_epi16(0x007f), exp_mask = _mm256_set1_epi16(0x7f80);
  const __m256i sign_mask = _mm256_set1_epi16(short(0x8000)), flip = _mm256_set1_epi16(0x4000);
  const __m256i zero = _mm256_setzero_si256();
  auto at = [out](size_t i) { return reinterpret_cast<__m256i*>(out + 2 * i); };
  auto bytes8 = [](const uint8_t* p) {
    return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  };
  auto row = [&t](unsigned z) {
    return _mm_load_si128(reinterpret_cast<const __m128i*>(t.expand16[z]));
  };
  for (; i + 16 <= n && k + 16 <= m; i += 16) {
    const unsigned z0 = mb[i / 8], z1 = mb[i / 8 + 1];
    const size_t k1 = k + 8 - t.ones[z0];
    // u = l | e << 8 per lane; the word is sign (bit 7 of l) | e << 7 | low 7 bits of l.
    const __m256i u = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_unpacklo_epi8(bytes8(l + k), bytes8(e + k))),
        _mm_unpacklo_epi8(bytes8(l + k1), bytes8(e + k1)), 1);
    const __m256i w =
        _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(u, 1), exp_mask),
                                        _mm256_and_si256(u, lit_mask)),
                        _mm256_and_si256(_mm256_slli_epi16(u, 8), sign_mask));
    const __m256i ctl = _mm256_inserti128_si256(_mm256_castsi128_si256(row(z0)), row(z1), 1);
    __m256i c = _mm256_shuffle_epi8(w, ctl);
    k = k1 + 8 - t.ones[z1];
    if (q && i >= q) {  // expdelta::decode_avx2's arithmetic (q >= 16: element i - q is final)
      const __m256i a = _mm256_loadu_si256(at(i - q));
      const __m256i keep =
          _mm256_or_si256(_mm256_cmpeq_epi16(c, zero), _mm256_cmpeq_epi16(a, zero));
      const __m256i sum =
          _mm256_add_epi16(_mm256_xor_si256(c, flip), _mm256_and_si256(a, exp_mask));
      const __m256i v =
          _mm256_or_si256(_mm256_andnot_si256(exp_mask, c), _mm256_and_si256(sum, exp_mask));
      c = _mm256_blendv_epi8(v, c, keep);
    }
    _mm256_storeu_si256(at(i), c);
    if (q && i < q && q < i + 16) {  // the group holding element q: its lanes from q on
      for (size_t j = q; j < i + 16; ++j) predict(out, j, q);
    }
  }
  for (; i < n; ++i) {
    uint16_t w = 0;
    if (!test(bits, i))
      w = uint16_t(((l[k] & 0x80u) << 8) | (uint32_t(e[k]) << 7) | (l[k] & 0x7fu)), ++k;
    std::memcpy(out + 2 * i, &w, 2);
    if (q && i >= q) predict(out, i, q);
  }
}

// undiff_period for P = 1 (runs): each word's prefix XOR is its carry-less product with all ones
// (one instruction, independent of the other words), inverted when the previous word ended in 1.
__attribute__((target("pclmul,sse4.1"))) void undiff_runs_clmul(uint64_t* b, size_t nw) {
  const __m128i ones = _mm_set1_epi64x(-1);
  uint64_t carry = 0;
  for (size_t w = 0; w < nw; ++w) {
    const __m128i x = _mm_cvtsi64_si128(int64_t(b[w]));
    const uint64_t prefix = uint64_t(_mm_cvtsi128_si64(_mm_clmulepi64_si128(x, ones, 0x00)));
    b[w] = prefix ^ (0 - carry);
    carry = b[w] >> 63;
  }
}

// 64 bits of b starting at bit s (s + 64 <= 64 * words available, or the high part is zero-read
// from the next word only when s is not word aligned).
uint64_t bits_at(const uint64_t* b, size_t s) {
  const size_t w = s >> 6, o = s & 63;
  return o ? (b[w] >> o) | (b[w + 1] << (64 - o)) : b[w];
}

__attribute__((target("popcnt"))) size_t count_popcnt(const uint64_t* b, size_t n) {
  size_t c = 0;
  for (size_t w = 0; w < words(n); ++w) c += size_t(__builtin_popcountll(b[w]));
  return c;
}

// SWAR popcount: without -mpopcnt, std::popcount is a libgcc call per word.
size_t count_swar(const uint64_t* b, size_t n) {
  size_t c = 0;
  for (size_t w = 0; w < words(n); ++w) {
    uint64_t x = b[w];
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    c += size_t((x * 0x0101010101010101ull) >> 56);
  }
  return c;
}

uint64_t low_mask(size_t n) {
  return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
}

}  // namespace

template <class W>
size_t compact(const std::byte* x, size_t n, W* out, uint64_t* bits) {
  std::memset(bits, 0, 8 * words(n));
  if (kSsse3) {
    if constexpr (sizeof(W) == 2) {
      size_t i = 0, k = 0;
      if (kAvx512) compact16_avx512(x, n, out, bits, i, k);
      return compact16_ssse3(x, n, out, bits, i, k);
    }
    if constexpr (sizeof(W) == 4) return compact32_ssse3(x, n, out, bits);
  }
  return compact_scalar<W>(x, 0, n, out, 0, bits);
}

template <class W>
void expand(const W* v, const uint64_t* bits, size_t n, std::byte* out) {
  if (kSsse3) {
    if constexpr (sizeof(W) == 2) return expand16_ssse3(v, bits, n, out);
    if constexpr (sizeof(W) == 4) return expand32_ssse3(v, bits, n, out);
  }
  expand_scalar<W>(v, bits, 0, n, out, 0);
}

bool expand_joined16(const uint8_t* e, const uint8_t* l, size_t m, const uint64_t* bits, size_t n,
                     uint32_t q, std::byte* out) {
  static const bool avx2 = cpu_features().avx2;
  if (!avx2) return false;
  size_t i = 0, k = 0;
  if (kAvx512 && (q == 0 || q >= 32)) expand_joined16_avx512(e, l, m, bits, n, q, out, i, k);
  expand_joined16_avx2(e, l, m, bits, n, q, out, i, k);
  return true;
}

void diff_period(const uint64_t* b, size_t n, size_t p, uint64_t* r) {
  const size_t nw = words(n);
  for (size_t w = 0; w < nw; ++w) {
    const size_t first = 64 * w;
    if (first >= p) {
      r[w] = b[w] ^ bits_at(b, first - p);
    } else if (first + 64 <= p) {
      r[w] = b[w];
    } else {  // the word holding bit p: only bits >= p see a predecessor
      const size_t o = p - first;
      r[w] = b[w] ^ (b[0] << o);  // bit i gets bit i - p of b, which is bit i - first - o of b[0]
    }
  }
  if (n & 63) r[nw - 1] &= low_mask(n & 63);
}

void undiff_period(uint64_t* b, size_t n, size_t p) {
  const size_t nw = words(n);
  if (p >= 64) {
    // Each word's predecessors lie at least 64 bits back, so they are final when it is updated.
    for (size_t w = 0; w < nw; ++w) {
      const size_t first = 64 * w;
      if (first >= p) {
        b[w] ^= bits_at(b, first - p);
      } else if (first + 64 > p) {
        b[w] ^= b[0] << (p - first);
      }
    }
  } else if (p == 1 && kPclmul) {
    undiff_runs_clmul(b, nw);
  } else {
    // Short periods: the previous word's top p bits (final) seed bits 0..p-1, then the in-word
    // recurrence x[j] ^= x[j - p] is a prefix XOR with stride p, done by doubling the shift.
    uint64_t prev = 0;
    for (size_t w = 0; w < nw; ++w) {
      uint64_t x = b[w] ^ (w ? prev >> (64 - p) : 0);
      for (size_t s = p; s < 64; s *= 2) x ^= x << s;
      b[w] = prev = x;
    }
  }
  if (n & 63) b[nw - 1] &= low_mask(n & 63);
}

size_t count(const uint64_t* b, size_t n) {
  static const bool popcnt = cpu_features().popcnt;
  return popcnt ? count_popcnt(b, n) : count_swar(b, n);
}

template size_t compact<uint16_t>(const std::byte*, size_t, uint16_t*, uint64_t*);
template size_t compact<uint32_t>(const std::byte*, size_t, uint32_t*, uint64_t*);
template void expand<uint16_t>(const uint16_t*, const uint64_t*, size_t, std::byte*);
template void expand<uint32_t>(const uint32_t*, const uint64_t*, size_t, std::byte*);

}  // namespace commlab::zmask
