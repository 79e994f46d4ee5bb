// The Huffman decoder: bit readers over the interleaved segments, one-, two- and four-symbol
// lookup tables, and decode_stream (raw, constant and Huffman streams). Formats: docs/formats.md.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "codec/frame.h"
#include "codec/huffman.h"
#include "codec/huffman_detail.h"

namespace commlab::entropy {
namespace {

using namespace detail;
using frame::get16;
using frame::get32;
using frame::get64;

struct BitReader {
  const std::byte* start;
  const std::byte* p;
  const std::byte* end;
  uint64_t buf = 0;
  int bits = 0;
  size_t fake = 0;  // zero bits supplied past the end (an overrun is detected after decoding)

  // Leaves at least 56 valid bits in buf.
  void refill() {
    if (end - p >= 8) {
      buf |= get64(p) << bits;
      p += (63 - bits) >> 3;
      bits |= 56;
      return;
    }
    while (bits <= 56) {
      if (p < end)
        buf |= uint64_t(uint8_t(*p++)) << bits;
      else
        fake += 8;
      bits += 8;
    }
  }
  void consume(int len) {
    buf >>= len;
    bits -= len;
  }
  // The stream must be consumed exactly, up to the padding of its last byte.
  bool exact() const {
    size_t consumed = size_t(p - start) * 8 + fake - size_t(bits);
    size_t size = size_t(end - start);
    return (consumed + 7) / 8 == size;
  }
};

// Double-symbol table entry: sym1 [0,9), sym2 [9,18), total length [18,22), length of sym1
// [22,26), symbol count - 1 [26]. One lookup decodes one or two symbols.
struct Entry {
  static uint32_t sym1(uint32_t e) { return e & 511; }
  static uint32_t sym2(uint32_t e) { return (e >> 9) & 511; }
  static int total(uint32_t e) { return (e >> 18) & 15; }
  static int len1(uint32_t e) { return (e >> 22) & 15; }
  static int count(uint32_t e) { return 1 + ((e >> 26) & 1); }
};

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

const bool kAvx2 = __builtin_cpu_supports("avx2");

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

// Up to four byte symbols per entry: bits consumed in [0,8), the symbols in bytes 1..4, the symbol
// count in byte 5. The decoder stores all four bytes and advances by the count. A code is known
// from the index only if it fits in the bits the earlier codes left (its low bits are the index's).
void build_quad_table(const uint16_t* single, uint64_t* quad) {
  // Two passes of two lookups each (short dependency chains, no data-dependent branches): first
  // every index's first two symbols, then each index joins its pair with the pair that follows.
  // pair: symbols [0,16), bits used [16,21), count - 1 [21], length of the first symbol [24,28).
  uint32_t pair[kTableSize];
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

template <class Sym>
Result<size_t> decode_huffman(std::span<const std::byte> in, size_t count, int alphabet, Sym* out) {
  if (in.size() < 5) return make_error("huffman: truncated stream header");
  size_t total = get32(in.data() + 1);
  if (total > in.size() - 5) return make_error("huffman: truncated stream");
  auto body = in.subspan(5, total);
  uint8_t len[kMaxAlphabet];
  Result<size_t> tl = read_lengths(body, alphabet, len);
  if (!tl.ok()) return tl;
  uint32_t kraft = 0;
  for (int s = 0; s < alphabet; ++s) kraft += len[s] ? kTableSize >> len[s] : 0;
  if (kraft != kTableSize) return make_error("huffman: code lengths do not form a complete code");
  uint16_t codes[kMaxAlphabet];
  canonical_codes(len, alphabet, codes);
  uint16_t single[kTableSize];
  for (int s = 0; s < alphabet; ++s) {
    if (!len[s]) continue;
    for (uint32_t j = codes[s]; j < kTableSize; j += 1u << len[s]) {
      single[j] = uint16_t((s << 4) | len[s]);
    }
  }
  // Several symbols per lookup pays for building the bigger table (2 x 2048 entries) only on long
  // streams: it saves ~0.6 ns per symbol and costs ~8 us to build.
  const bool multi = count >= 16384;
  uint32_t table[kTableSize];
  uint64_t quad[sizeof(Sym) == 1 ? kTableSize : 1];
  if (multi) {
    if constexpr (sizeof(Sym) == 1) {
      build_quad_table(single, quad);
    } else {
      build_pair_table(single, table);
    }
  }
  size_t pos = *tl;
  if (body.size() - pos < 6) return make_error("huffman: truncated bit stream sizes");
  size_t sizes[kBitStreams];
  size_t sum = 0;
  for (int k = 0; k < kBitStreams - 1; ++k) sum += sizes[k] = get16(body.data() + pos + 2 * k);
  pos += 6;
  if (sum > body.size() - pos) return make_error("huffman: bit stream sizes exceed the stream");
  sizes[kBitStreams - 1] = body.size() - pos - sum;
  BitReader r[kBitStreams];
  Sym* o[kBitStreams];
  Sym* e[kBitStreams];
  const std::byte* p = body.data() + pos;
  const size_t q = segment_size(count);
  for (int k = 0; k < kBitStreams; ++k) {
    r[k].start = r[k].p = p;
    r[k].end = p + sizes[k];
    p += sizes[k];
    o[k] = out + std::min(count, k * q);
    e[k] = o[k] + segment_length(count, k);
  }
  auto step1 = [&](int k) {
    uint16_t en = single[r[k].buf & (kTableSize - 1)];
    *o[k]++ = Sym(en >> 4);
    r[k].consume(en & 15);
  };
  // Five lookups per stream per refill (5 * 11 bits <= 56). A round writes at most 5 *
  // kMaxPerLookup symbols plus the unused tail of the last store, so it runs only while every
  // segment has that much room (a store past a segment's end would clobber the next segment's first
  // symbols).
  auto room = [&](ptrdiff_t need) {
    for (int k = 0; k < kBitStreams; ++k) {
      if (e[k] - o[k] < need) return false;
    }
    return true;
  };
  if constexpr (sizeof(Sym) == 1) {
    auto step4 = [&](int k) {
      const uint64_t en = quad[r[k].buf & (kTableSize - 1)];
      std::memcpy(o[k], reinterpret_cast<const char*>(&en) + 1, 4);
      o[k] += en >> 40;
      r[k].buf >>= (en & 63);
      r[k].bits -= int(en & 63);
    };
    while (multi && room(5 * 4 + 4)) {
      for (int k = 0; k < kBitStreams; ++k) r[k].refill();
      for (int j = 0; j < 5; ++j) {
        step4(0);
        step4(1);
        step4(2);
        step4(3);
      }
    }
  } else {
    auto step = [&](int k) {
      uint32_t en = table[r[k].buf & (kTableSize - 1)];
      o[k][0] = Sym(Entry::sym1(en));
      o[k][1] = Sym(Entry::sym2(en));
      o[k] += Entry::count(en);
      r[k].consume(Entry::total(en));
    };
    while (multi && room(11)) {
      for (int k = 0; k < kBitStreams; ++k) r[k].refill();
      for (int j = 0; j < 5; ++j) {
        step(0);
        step(1);
        step(2);
        step(3);
      }
    }
  }
  // Short streams skip the multi-symbol tables: building them would cost more than they save.
  while (room(6)) {
    for (int k = 0; k < kBitStreams; ++k) r[k].refill();
    for (int j = 0; j < 5; ++j) {
      step1(0);
      step1(1);
      step1(2);
      step1(3);
    }
  }
  for (int k = 0; k < kBitStreams; ++k) {
    while (o[k] < e[k]) {
      r[k].refill();
      step1(k);
    }
    if (!r[k].exact()) return make_error("huffman: bit stream length does not match its symbols");
  }
  return 5 + total;
}

}  // namespace

template <class Sym>
Result<size_t> decode_stream(std::span<const std::byte> in, size_t count, int alphabet, Sym* out) {
  const size_t sb = sym_bytes(alphabet);
  if (in.empty()) return make_error("entropy: missing stream");
  auto get_sym = [&](const std::byte* p) -> uint32_t { return sb == 2 ? get16(p) : uint8_t(*p); };
  switch (static_cast<Mode>(uint8_t(in[0]))) {
    case Mode::kRaw: {
      if ((in.size() - 1) / sb < count) return make_error("entropy: truncated raw stream");
      if (sizeof(Sym) == 1 && alphabet == 256) {
        if (count) std::memcpy(out, in.data() + 1, count);  // every byte is a valid symbol
        return 1 + count;
      }
      for (size_t k = 0; k < count; ++k) {
        uint32_t v = get_sym(in.data() + 1 + sb * k);
        if (v >= uint32_t(alphabet)) return make_error("entropy: symbol outside the alphabet");
        out[k] = Sym(v);
      }
      return 1 + count * sb;
    }
    case Mode::kConstant: {
      if (in.size() < 1 + sb) return make_error("entropy: truncated constant stream");
      uint32_t v = get_sym(in.data() + 1);
      if (v >= uint32_t(alphabet)) return make_error("entropy: symbol outside the alphabet");
      std::fill(out, out + count, Sym(v));
      return 1 + sb;
    }
    case Mode::kHuffman:
      if (count < 2) return make_error("entropy: huffman stream of fewer than 2 symbols");
      return decode_huffman(in, count, alphabet, out);
  }
  return make_error("entropy: unknown stream mode");
}

template Result<size_t> decode_stream<uint8_t>(std::span<const std::byte>, size_t, int, uint8_t*);
template Result<size_t> decode_stream<uint16_t>(std::span<const std::byte>, size_t, int, uint16_t*);

}  // namespace commlab::entropy
