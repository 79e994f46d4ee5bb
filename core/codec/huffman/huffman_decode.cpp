// The Huffman decoder: bit readers over the interleaved segments, one-, two- and four-symbol
// lookup tables, and decode_stream (raw, constant and Huffman streams). Formats: docs/formats.md.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "codec/cpu_features.h"
#include "codec/frame.h"
#include "codec/huffman/huffman.h"
#include "codec/huffman/huffman_detail.h"

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

// Double-symbol table entry (detail::build_pair_table): sym1 [0,9), sym2 [9,18), total length
// [18,22), length of sym1 [22,26), symbol count - 1 [26]. One lookup decodes one or two symbols.
struct Entry {
  static uint32_t sym1(uint32_t e) { return e & 511; }
  static uint32_t sym2(uint32_t e) { return (e >> 9) & 511; }
  static int total(uint32_t e) { return (e >> 18) & 15; }
  static int len1(uint32_t e) { return (e >> 22) & 15; }
  static int count(uint32_t e) { return 1 + ((e >> 26) & 1); }
};

}  // namespace

// Byte streams' tables for the four-symbol path (TableCache keeps the last two): the build
// (~4-5 us) was a fifth of decoding an MLP gradient's three large blocks. Outside the anonymous
// namespace because TableCache::Impl, which has external linkage, holds them.
struct QuadTables {
  uint8_t len[256];
  uint16_t single[kTableSize];
  uint64_t quad[kTableSize];
  bool valid = false;
};
constexpr int kCachedTables = 2;

struct TableCache::Impl {
  QuadTables tables[kCachedTables];
  int next = 0;
};

namespace {

// Readers in the fast rounds below keep only (p, b): b holds the unread bits below a sentinel 1
// bit, zeros above it, so the bit count is the sentinel's position (one bit scan per refill)
// instead of a register per stream updated at every lookup: with twelve registers for the four
// readers' p, b and out, the loops no longer spill.
struct FastReader {
  const std::byte* p;
  uint64_t b;
  static FastReader from(const BitReader& r) {
    return {r.p, (r.buf & ((uint64_t(1) << r.bits) - 1)) | (uint64_t(1) << r.bits)};
  }
  void to(BitReader& r) const {
    const int n = 63 - __builtin_clzll(b);
    r.p = p, r.bits = n, r.buf = b ^ (uint64_t(1) << n);
  }
};
// At least 56 bits below the sentinel afterwards (needs 8 readable bytes at p).
[[gnu::always_inline]] inline void fast_refill(const std::byte*& p, uint64_t& b) {
  const int n = 63 - __builtin_clzll(b);
  b ^= uint64_t(1) << n;
  b |= get64(p) << n;
  const int k = (63 - n) >> 3;
  p += k;
  const int n2 = n + 8 * k;
  b = (b & ((uint64_t(1) << n2) - 1)) | (uint64_t(1) << n2);
}

// The four-symbol rounds while every segment has 8 readable bytes per refill and room for a
// round's stores, with no bounds test inside a round: per lookup one load, one store, one shift.
// Built twice, with BMI2 (shifts by any register) and without.
struct QuadState {
  FastReader r[kBitStreams];
  uint8_t* o[kBitStreams];
};
[[gnu::always_inline]] inline void quad_rounds(QuadState& st, size_t rounds, const uint64_t* quad) {
  const std::byte *p0 = st.r[0].p, *p1 = st.r[1].p, *p2 = st.r[2].p, *p3 = st.r[3].p;
  uint64_t b0 = st.r[0].b, b1 = st.r[1].b, b2 = st.r[2].b, b3 = st.r[3].b;
  uint8_t *o0 = st.o[0], *o1 = st.o[1], *o2 = st.o[2], *o3 = st.o[3];
  for (size_t r = 0; r < rounds; ++r) {
    fast_refill(p0, b0);
    fast_refill(p1, b1);
    fast_refill(p2, b2);
    fast_refill(p3, b3);
    auto step = [quad](uint64_t& b, uint8_t*& o) {
      const uint64_t en = quad[b & (kTableSize - 1)];
      const uint32_t syms = uint32_t(en >> 8);
      std::memcpy(o, &syms, 4);
      o += en >> 40;
      b >>= (en & 63);
    };
    for (int j = 0; j < 5; ++j) {
      step(b0, o0);
      step(b1, o1);
      step(b2, o2);
      step(b3, o3);
    }
  }
  st.r[0] = {p0, b0}, st.r[1] = {p1, b1}, st.r[2] = {p2, b2}, st.r[3] = {p3, b3};
  st.o[0] = o0, st.o[1] = o1, st.o[2] = o2, st.o[3] = o3;
}

// The same for one symbol per lookup (short streams and the ends of long ones), any symbol
// type: with the readers in registers rather than in memory (each lookup waited on the previous
// one's store), this loop was a tenth of decoding an MLP gradient.
template <class Sym>
struct SingleState {
  FastReader r[kBitStreams];
  Sym* o[kBitStreams];
};
template <class Sym>
void single_rounds(SingleState<Sym>& st, size_t rounds, const uint16_t* single) {
  const std::byte *p0 = st.r[0].p, *p1 = st.r[1].p, *p2 = st.r[2].p, *p3 = st.r[3].p;
  uint64_t b0 = st.r[0].b, b1 = st.r[1].b, b2 = st.r[2].b, b3 = st.r[3].b;
  Sym *o0 = st.o[0], *o1 = st.o[1], *o2 = st.o[2], *o3 = st.o[3];
  for (size_t r = 0; r < rounds; ++r) {
    fast_refill(p0, b0);
    fast_refill(p1, b1);
    fast_refill(p2, b2);
    fast_refill(p3, b3);
    auto step = [single](uint64_t& b, Sym*& o) {
      const uint32_t en = single[b & (kTableSize - 1)];
      *o++ = Sym(en >> 4);
      b >>= (en & 15);
    };
    for (int j = 0; j < 5; ++j) {
      step(b0, o0);
      step(b1, o1);
      step(b2, o2);
      step(b3, o3);
    }
  }
  st.r[0] = {p0, b0}, st.r[1] = {p1, b1}, st.r[2] = {p2, b2}, st.r[3] = {p3, b3};
  st.o[0] = o0, st.o[1] = o1, st.o[2] = o2, st.o[3] = o3;
}

__attribute__((target("bmi2"))) void quad_rounds_bmi2(QuadState& st, size_t rounds,
                                                      const uint64_t* quad) {
  quad_rounds(st, rounds, quad);
}
void quad_rounds_base(QuadState& st, size_t rounds, const uint64_t* quad) {
  quad_rounds(st, rounds, quad);
}
const bool kBmi2 = cpu_features().bmi2;

template <class Sym>
Result<size_t> decode_huffman(std::span<const std::byte> in, size_t count, int alphabet, Sym* out,
                              TableCache* cache) {
  if (in.size() < 5) return make_error("huffman: truncated stream header");
  size_t total = get32(in.data() + 1);
  if (total > in.size() - 5) return make_error("huffman: truncated stream");
  auto body = in.subspan(5, total);
  uint8_t len[kMaxAlphabet];
  Result<size_t> tl = read_lengths(body, alphabet, len);
  if (!tl.ok()) return tl;
  // Several symbols per lookup pays for building the bigger table (2 x 2048 entries) only on long
  // streams: it saves ~0.6 ns per symbol and costs ~4 us to build (nothing when cached).
  const bool multi = count >= 16384;
  uint16_t single_own[kTableSize];
  const uint16_t* single = single_own;
  QuadTables own;
  uint32_t table[kTableSize];
  const uint64_t* quad = nullptr;
  if (sizeof(Sym) == 1 && multi) {
    std::fill(len + alphabet, len + 256, uint8_t(0));  // the cache key: lengths of 0..255
    QuadTables* hit = nullptr;
    for (int k = 0; cache && k < kCachedTables; ++k) {
      QuadTables& t = cache->impl->tables[k];
      if (t.valid && std::memcmp(t.len, len, 256) == 0) hit = &t;
    }
    if (!hit) {
      if (!complete_code(len, alphabet)) {
        return make_error("huffman: code lengths do not form a complete code");
      }
      if (cache) {
        hit = &cache->impl->tables[cache->impl->next];
        cache->impl->next = (cache->impl->next + 1) % kCachedTables;
      } else {
        hit = &own;
      }
      hit->valid = false;
      std::memcpy(hit->len, len, 256);
      fill_single(len, alphabet, hit->single);
      build_quad_table(hit->single, hit->quad);
      hit->valid = true;
    }
    single = hit->single;
    quad = hit->quad;
  } else {
    if (!complete_code(len, alphabet)) {
      return make_error("huffman: code lengths do not form a complete code");
    }
    fill_single(len, alphabet, single_own);
    if (multi) build_pair_table(single_own, table);
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
    while (quad) {
      // Rounds every segment can take: a refill advances at most 7 bytes and reads 8, a round
      // writes at most 5 * 4 symbols plus 4 bytes of store tail.
      size_t rounds = SIZE_MAX;
      for (int k = 0; k < kBitStreams; ++k) {
        const ptrdiff_t in_left = r[k].end - r[k].p, out_left = e[k] - o[k];
        if (in_left < 8 || out_left < 24) {
          rounds = 0;
          break;
        }
        rounds = std::min({rounds, size_t(in_left - 8) / 7 + 1, size_t(out_left - 24) / 20 + 1});
      }
      if (rounds == 0) break;
      QuadState st;
      for (int k = 0; k < kBitStreams; ++k) {
        st.r[k] = FastReader::from(r[k]);
        st.o[k] = reinterpret_cast<uint8_t*>(o[k]);
      }
      (kBmi2 ? quad_rounds_bmi2 : quad_rounds_base)(st, rounds, quad);
      for (int k = 0; k < kBitStreams; ++k) {
        st.r[k].to(r[k]);
        o[k] = reinterpret_cast<Sym*>(st.o[k]);
      }
    }
    while (quad && room(5 * 4 + 4)) {
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
  for (;;) {
    size_t rounds = SIZE_MAX;
    for (int k = 0; k < kBitStreams; ++k) {
      const ptrdiff_t in_left = r[k].end - r[k].p, out_left = e[k] - o[k];
      rounds =
          in_left < 8 ? 0 : std::min({rounds, size_t(in_left - 8) / 7 + 1, size_t(out_left) / 5});
    }
    if (rounds == 0) break;
    SingleState<Sym> st;
    for (int k = 0; k < kBitStreams; ++k) st.r[k] = FastReader::from(r[k]), st.o[k] = o[k];
    single_rounds(st, rounds, single);
    for (int k = 0; k < kBitStreams; ++k) st.r[k].to(r[k]), o[k] = st.o[k];
  }
  while (room(6)) {
    for (int k = 0; k < kBitStreams; ++k) r[k].refill();
    for (int j = 0; j < 5; ++j) {
      step1(0);
      step1(1);
      step1(2);
      step1(3);
    }
  }
  // The segments end at different times (a lookup yields one to four symbols, and segments
  // differ in their statistics): up to a few thousand symbols of one segment remain. Each goes on
  // alone with its reader in registers, four symbols per lookup while it can.
  for (int k = 0; k < kBitStreams; ++k) {
    const std::byte* p = r[k].p;
    uint64_t b = r[k].buf;
    int n = r[k].bits;
    Sym* out_k = o[k];
    auto refill = [&] {
      b |= get64(p) << n;
      p += (63 - n) >> 3;
      n |= 56;
    };
    if constexpr (sizeof(Sym) == 1) {
      while (quad && r[k].end - p >= 8 && e[k] - out_k >= 24) {
        refill();
        for (int j = 0; j < 5; ++j) {
          const uint64_t en = quad[b & (kTableSize - 1)];
          const uint32_t syms = uint32_t(en >> 8);
          std::memcpy(out_k, &syms, 4);
          out_k += en >> 40;
          b >>= (en & 63);
          n -= int(en & 63);
        }
      }
    }
    while (r[k].end - p >= 8 && e[k] - out_k >= 5) {
      refill();
      for (int j = 0; j < 5; ++j) {
        const uint32_t en = single[b & (kTableSize - 1)];
        *out_k++ = Sym(en >> 4);
        b >>= (en & 15);
        n -= int(en & 15);
      }
    }
    r[k].p = p, r[k].buf = b, r[k].bits = n, o[k] = out_k;
    while (o[k] < e[k]) {
      r[k].refill();
      step1(k);
    }
    if (!r[k].exact()) return make_error("huffman: bit stream length does not match its symbols");
  }
  return 5 + total;
}

}  // namespace

TableCache::TableCache() : impl(std::make_unique<Impl>()) {}
TableCache::~TableCache() = default;
void TableCache::clear() {
  for (QuadTables& t : impl->tables) t.valid = false;
  impl->next = 0;
}

template <class Sym>
Result<size_t> decode_stream(std::span<const std::byte> in, size_t count, int alphabet, Sym* out,
                             TableCache* cache) {
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
      return decode_huffman(in, count, alphabet, out, cache);
  }
  return make_error("entropy: unknown stream mode");
}

template Result<size_t> decode_stream<uint8_t>(std::span<const std::byte>, size_t, int, uint8_t*,
                                               TableCache*);
template Result<size_t> decode_stream<uint16_t>(std::span<const std::byte>, size_t, int, uint16_t*,
                                                TableCache*);

}  // namespace commlab::entropy
