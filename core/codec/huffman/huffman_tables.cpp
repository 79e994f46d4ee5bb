// Lookup tables of the Huffman decoder (huffman_decode.cpp): the one-symbol table, the
// two-symbol table of 16-bit symbols and the four-symbol table of byte symbols, with AVX2 passes
// where the CPU has them (run-time check). Formats: docs/formats.md, "entropy stream".
#include <immintrin.h>

#include <bit>
#include <cstring>

#include "codec/cpu_features.h"
#include "codec/huffman/huffman_detail.h"

namespace commlab::entropy::detail {
namespace {

const bool kAvx2 = cpu_features().avx2;

// The second pass of build_quad_table below, eight entries at a time (one gather fetches the
// following pairs); the same arithmetic lane by lane. It was ~3/4 of the ~8 us table build that
// every long stream pays.
__attribute__((target("avx2"))) void join_pairs_avx2(const uint32_t* pair, uint64_t* quad) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i m31 = _mm256_set1_epi32(31), m15 = _mm256_set1_epi32(15);
  const __m256i one = _mm256_set1_epi32(1), ffff = _mm256_set1_epi32(0xffff);
  const __m256i max_bits = _mm256_set1_epi32(kMaxCodeBits);
  for (uint32_t base = 0; base < kTableSize; base += 8) {
    const __m256i idx = _mm256_add_epi32(_mm256_set1_epi32(int(base)), lane);
    const __m256i p1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pair + base));
    const __m256i used1 = _mm256_and_si256(_mm256_srli_epi32(p1, 16), m31);
    const __m256i two = _mm256_and_si256(_mm256_srli_epi32(p1, 21), one);
    const __m256i p2 = _mm256_i32gather_epi32(reinterpret_cast<const int*>(pair),
                                              _mm256_srlv_epi32(idx, used1), 4);
    const __m256i used2 = _mm256_and_si256(_mm256_srli_epi32(p2, 16), m31);
    const __m256i len2 = _mm256_and_si256(_mm256_srli_epi32(p2, 24), m15);
    const __m256i two2 = _mm256_and_si256(_mm256_srli_epi32(p2, 21), one);
    const __m256i room = _mm256_sub_epi32(max_bits, used1);
    // a <= b as 0/1: 1 - (a > b)
    const __m256i len_fits = _mm256_add_epi32(_mm256_cmpgt_epi32(len2, room), one);
    const __m256i used_fits = _mm256_add_epi32(_mm256_cmpgt_epi32(used2, room), one);
    const __m256i add1 = _mm256_and_si256(two, len_fits);
    const __m256i add2 = _mm256_and_si256(_mm256_and_si256(add1, two2), used_fits);
    // add2 ? used2 : add1 ? len2 : 0 (add2 implies add1).
    const __m256i extra =
        _mm256_blendv_epi8(_mm256_mullo_epi32(add1, len2), used2, _mm256_cmpeq_epi32(add2, one));
    const __m256i used = _mm256_add_epi32(used1, extra);
    const __m256i syms = _mm256_or_si256(_mm256_and_si256(p1, ffff), _mm256_slli_epi32(p2, 16));
    const __m256i count =
        _mm256_add_epi32(_mm256_add_epi32(one, two), _mm256_add_epi32(add1, add2));
    // 64-bit entries: used | syms << 8 | count << 40, as low and high 32-bit halves.
    const __m256i lo = _mm256_or_si256(used, _mm256_slli_epi32(syms, 8));
    const __m256i hi = _mm256_or_si256(_mm256_srli_epi32(syms, 24), _mm256_slli_epi32(count, 8));
    const __m256i a = _mm256_unpacklo_epi32(lo, hi);  // entries 0 1 | 4 5
    const __m256i b = _mm256_unpackhi_epi32(lo, hi);  // entries 2 3 | 6 7
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(quad + base),
                        _mm256_permute2x128_si256(a, b, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(quad + base + 4),
                        _mm256_permute2x128_si256(a, b, 0x31));
  }
}

// The first pass of build_quad_table below, eight entries at a time: the same arithmetic lane by
// lane, one gather for the second symbol. Its 32-bit gathers read 2 bytes past single[2047]
// (single must be followed by 2 readable bytes; QuadTables has quad after it).
__attribute__((target("avx2"))) void pairs_avx2(const uint16_t* single, uint32_t* pair) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i m15 = _mm256_set1_epi32(15), ffff = _mm256_set1_epi32(0xffff);
  const __m256i max_bits = _mm256_set1_epi32(kMaxCodeBits), one = _mm256_set1_epi32(1);
  for (uint32_t base = 0; base < kTableSize; base += 8) {
    const __m256i idx = _mm256_add_epi32(_mm256_set1_epi32(int(base)), lane);
    const __m256i e1 =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(single + base)));
    const __m256i l1 = _mm256_and_si256(e1, m15);
    const __m256i e2 = _mm256_and_si256(
        _mm256_i32gather_epi32(reinterpret_cast<const int*>(single), _mm256_srlv_epi32(idx, l1), 2),
        ffff);
    const __m256i l2 = _mm256_and_si256(e2, m15);
    // ok = l1 + l2 <= 11, as 0 / all ones
    const __m256i ok = _mm256_xor_si256(_mm256_cmpgt_epi32(_mm256_add_epi32(l1, l2), max_bits),
                                        _mm256_set1_epi32(-1));
    const __m256i used = _mm256_add_epi32(l1, _mm256_and_si256(ok, l2));
    __m256i p =
        _mm256_or_si256(_mm256_srli_epi32(e1, 4), _mm256_slli_epi32(_mm256_srli_epi32(e2, 4), 8));
    p = _mm256_or_si256(p, _mm256_slli_epi32(used, 16));
    p = _mm256_or_si256(p, _mm256_slli_epi32(_mm256_and_si256(ok, one), 21));
    p = _mm256_or_si256(p, _mm256_slli_epi32(l1, 24));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(pair + base), p);
  }
}

}  // namespace

// Two-symbol entries (Entry) from the single-symbol table (symbol << 4 | length).
void build_pair_table(const uint16_t* single, uint32_t* table) {
  for (uint32_t idx = 0; idx < kTableSize; ++idx) {
    uint32_t e1 = single[idx], l1 = e1 & 15;
    uint32_t e = (e1 >> 4) | (l1 << 18) | (l1 << 22);
    uint32_t e2 = single[idx >> l1], l2 = e2 & 15;
    if (l1 + l2 <= uint32_t(kMaxCodeBits))
      e = (e1 >> 4) | ((e2 >> 4) << 9) | ((l1 + l2) << 18) | (l1 << 22) | (1u << 26);
    table[idx] = e;
  }
}

// Up to four byte symbols per entry: bits consumed in [0,8), the symbols in bytes 1..4, the symbol
// count in byte 5. The decoder stores all four bytes and advances by the count. A code is known
// from the index only if it fits in the bits the earlier codes left (its low bits are the index's).
void build_quad_table(const uint16_t* single, uint64_t* quad) {
  // Two passes of two lookups each (short dependency chains, no data-dependent branches): first
  // every index's first two symbols, then each index joins its pair with the pair that follows.
  // pair: symbols [0,16), bits used [16,21), count - 1 [21], length of the first symbol [24,28).
  uint32_t pair[kTableSize];
  if (kAvx2) {
    pairs_avx2(single, pair);
    return join_pairs_avx2(pair, quad);
  }
  for (uint32_t idx = 0; idx < kTableSize; ++idx) {
    const uint32_t e1 = single[idx], l1 = e1 & 15;
    const uint32_t e2 = single[idx >> l1], l2 = e2 & 15;
    const uint32_t ok = l1 + l2 <= uint32_t(kMaxCodeBits);
    pair[idx] =
        (e1 >> 4) | ((e2 >> 4) << 8) | ((l1 + (ok ? l2 : 0)) << 16) | (ok << 21) | (l1 << 24);
  }
  if (kAvx2) return join_pairs_avx2(pair, quad);
  for (uint32_t idx = 0; idx < kTableSize; ++idx) {
    const uint32_t p1 = pair[idx], used1 = (p1 >> 16) & 31, two = (p1 >> 21) & 1;
    const uint32_t p2 = pair[idx >> used1], used2 = (p2 >> 16) & 31;
    const uint32_t room = uint32_t(kMaxCodeBits) - used1;
    // The next pair's symbols count only if the first one had a second and they fit.
    const uint32_t add1 = two & (((p2 >> 24) & 15) <= room);
    const uint32_t add2 = add1 & ((p2 >> 21) & 1) & (used2 <= room);
    const uint32_t used = used1 + (add2 ? used2 : add1 ? (p2 >> 24) & 15 : 0);
    const uint64_t syms = (p1 & 0xffff) | (uint64_t(p2 & 0xffff) << 16);
    quad[idx] = uint64_t(used) | (syms << 8) | (uint64_t(1 + two + add1 + add2) << 40);
  }
}

// Fills the one-symbol table (symbol << 4 | length) for a complete code.
// By doubling: after length L, entries [0, 2^L) are right for every code of at most L bits (a
// code c of length L owns the indices whose low L bits are c, bit-reversed); copying them to
// [2^L, 2^(L+1)) extends that to L + 1 bits, then the codes of length L + 1 go in. One 16-bit
// store per symbol and 4 KiB of copies, instead of up to 1024 stores for each short code.
void fill_single(const uint8_t* len, int alphabet, uint16_t* single) {
  // The canonical codes (canonical_codes' order: by length, then by symbol) are assigned here
  // from a running counter, the symbols of each length found 16 at a time by an SSE2 compare: a
  // counter per length bumped symbol by symbol waited on its own store, in both loops it replaces.
  alignas(16) uint8_t lens[kMaxAlphabet + 14] = {};
  std::memcpy(lens, len, size_t(alphabet));
  uint32_t code = 0;
  for (int l = 1; l <= kMaxCodeBits; ++l, code <<= 1) {
    if (l > 1) std::memcpy(single + (1u << (l - 1)), single, sizeof(uint16_t) << (l - 1));
    const __m128i want = _mm_set1_epi8(char(l));
    for (int g = 0; g < alphabet; g += 16) {
      const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(lens + g));
      for (unsigned m = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(v, want))); m; m &= m - 1) {
        const int s = g + std::countr_zero(m);
        single[reverse_bits(code++, l)] = uint16_t((s << 4) | l);
      }
    }
  }
}

bool complete_code(const uint8_t* len, int alphabet) {
  uint32_t kraft = 0;
  for (int s = 0; s < alphabet; ++s) kraft += len[s] ? kTableSize >> len[s] : 0;
  return kraft == kTableSize;
}

}  // namespace commlab::entropy::detail
