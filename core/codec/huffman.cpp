#include "codec/huffman.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "codec/frame.h"

namespace commlab::entropy {
namespace {

using frame::get16;
using frame::get32;
using frame::get64;
using frame::put16;
using frame::put32;

constexpr uint32_t kTableSize = 1u << kMaxCodeBits;

size_t sym_bytes(int alphabet) {
  return alphabet > 256 ? 2 : 1;
}

// Moffat & Katajainen, "In-place calculation of minimum-redundancy codes" (1995): weights in
// ascending order in, code lengths out (a[0] gets the longest).
void min_redundancy(uint32_t* a, int n) {
  if (n == 1) {
    a[0] = 1;
    return;
  }
  a[0] += a[1];
  int root = 0, leaf = 2;
  for (int next = 1; next < n - 1; ++next) {
    if (leaf >= n || a[root] < a[leaf]) {
      a[next] = a[root];
      a[root++] = next;
    } else {
      a[next] = a[leaf++];
    }
    if (leaf >= n || (root < next && a[root] < a[leaf])) {
      a[next] += a[root];
      a[root++] = next;
    } else {
      a[next] += a[leaf++];
    }
  }
  a[n - 2] = 0;
  for (int next = n - 3; next >= 0; --next) a[next] = a[a[next]] + 1;
  int avbl = 1, used = 0, dpth = 0, root2 = n - 2, next = n - 1;
  while (avbl > 0) {
    while (root2 >= 0 && int(a[root2]) == dpth) {
      ++used;
      --root2;
    }
    while (avbl > used) {
      a[next--] = dpth;
      --avbl;
    }
    avbl = 2 * used;
    ++dpth;
    used = 0;
  }
}

uint32_t reverse_bits(uint32_t code, int len) {
  uint32_t r = 0;
  for (int i = 0; i < len; ++i, code >>= 1) r = (r << 1) | (code & 1);
  return r;
}

// Canonical codes, bit-reversed so the first code bit is the lowest bit written.
void canonical_codes(const uint8_t* lengths, int alphabet, uint16_t* codes) {
  uint32_t count[kMaxCodeBits + 1] = {};
  for (int s = 0; s < alphabet; ++s) count[lengths[s]]++;
  count[0] = 0;
  uint32_t next[kMaxCodeBits + 1] = {};
  uint32_t code = 0;
  for (int len = 1; len <= kMaxCodeBits; ++len) {
    code = (code + count[len - 1]) << 1;
    next[len] = code;
  }
  for (int s = 0; s < alphabet; ++s) {
    if (lengths[s]) codes[s] = uint16_t(reverse_bits(next[lengths[s]]++, lengths[s]));
  }
}

// Nibble-coded lengths (docs/formats.md).
size_t write_lengths(const uint8_t* len, int alphabet, std::byte* out) {
  std::array<uint8_t, 3 * kMaxAlphabet + 2> nib;
  size_t n = 0;
  for (int s = 0; s < alphabet;) {
    int run = 0;
    while (s + run < alphabet && len[s + run] == 0 && run < 257) ++run;
    if (run >= 2) {
      nib[n++] = 15;
      nib[n++] = uint8_t((run - 2) & 15);
      nib[n++] = uint8_t((run - 2) >> 4);
      s += run;
    } else {
      nib[n++] = len[s++];
    }
  }
  if (n & 1) nib[n++] = 0;
  for (size_t i = 0; i < n; i += 2) out[i / 2] = std::byte(nib[i] | (nib[i + 1] << 4));
  return n / 2;
}

Result<size_t> read_lengths(std::span<const std::byte> in, int alphabet, uint8_t* len) {
  size_t nib_pos = 0;
  auto next = [&](uint8_t& v) {
    if (nib_pos / 2 >= in.size()) return false;
    uint8_t b = uint8_t(in[nib_pos / 2]);
    v = (nib_pos & 1) ? (b >> 4) : (b & 15);
    ++nib_pos;
    return true;
  };
  for (int s = 0; s < alphabet;) {
    uint8_t v;
    if (!next(v)) return make_error("huffman: truncated code lengths");
    if (v == 15) {
      uint8_t lo, hi;
      if (!next(lo) || !next(hi)) return make_error("huffman: truncated code lengths");
      int run = (lo | (hi << 4)) + 2;
      if (s + run > alphabet) return make_error("huffman: code length run past the alphabet");
      std::fill(len + s, len + s + run, 0);
      s += run;
    } else if (v > kMaxCodeBits) {
      return make_error("huffman: bad code length");
    } else {
      len[s++] = v;
    }
  }
  if (nib_pos & 1) {
    uint8_t pad;
    if (!next(pad) || pad != 0) return make_error("huffman: bad length padding");
  }
  return nib_pos / 2;
}

// Branch-free writer: put() up to 4 codes (44 bits), then flush() stores 8 bytes and keeps the
// partial byte. The output needs 8 bytes of slack.
struct BitWriter {
  std::byte* p;
  uint64_t acc = 0;
  int n = 0;
  void put(uint32_t code, int len) {
    acc |= uint64_t(code) << n;
    n += len;
  }
  void flush() {
    frame::put64(p, acc);
    p += n >> 3;
    acc = (n & ~7) == 64 ? 0 : acc >> (n & ~7);
    n &= 7;
  }
  std::byte* finish() {
    flush();
    return p + (n ? 1 : 0);
  }
};

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

// Segments of a stream of `count` symbols: k covers [k*q, k*q + segment_length(k)).
size_t segment_size(size_t count) {
  return (count + kBitStreams - 1) / kBitStreams;
}
size_t segment_length(size_t count, int k) {
  size_t q = segment_size(count), begin = std::min(count, k * q);
  return std::min(q, count - begin);
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
  // Two symbols per lookup pays for building the table only on long streams.
  uint32_t table[kTableSize];
  const bool pairs = count >= 4096;
  for (uint32_t idx = 0; pairs && idx < kTableSize; ++idx) {
    uint32_t e1 = single[idx], l1 = e1 & 15;
    uint32_t e = (e1 >> 4) | (l1 << 18) | (l1 << 22);
    if (pairs) {
      uint32_t e2 = single[idx >> l1], l2 = e2 & 15;
      if (l1 + l2 <= uint32_t(kMaxCodeBits))
        e = (e1 >> 4) | ((e2 >> 4) << 9) | ((l1 + l2) << 18) | (l1 << 22) | (1u << 26);
    }
    table[idx] = e;
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
  auto step = [&](int k) {
    uint32_t en = table[r[k].buf & (kTableSize - 1)];
    o[k][0] = Sym(Entry::sym1(en));
    o[k][1] = Sym(Entry::sym2(en));
    o[k] += Entry::count(en);
    r[k].consume(Entry::total(en));
  };
  // Five lookups per stream per refill (5 * 11 bits <= 56), at most 10 symbols written, so each
  // segment needs 11 slots left (the second store of a lookup may land one past its symbols).
  auto room = [&]() {
    for (int k = 0; k < kBitStreams; ++k) {
      if (e[k] - o[k] < 11) return false;
    }
    return true;
  };
  auto step1 = [&](int k) {
    uint16_t en = single[r[k].buf & (kTableSize - 1)];
    *o[k]++ = Sym(en >> 4);
    r[k].consume(en & 15);
  };
  while (pairs && room()) {
    for (int k = 0; k < kBitStreams; ++k) r[k].refill();
    for (int j = 0; j < 5; ++j) {
      step(0);
      step(1);
      step(2);
      step(3);
    }
  }
  // Short streams skip the two-symbol table: building it would cost more than it saves.
  while (!pairs && room()) {
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

// Whether Huffman would save less than 1% on a byte stream, judged on every 8th symbol.
template <class Sym>
bool raw_gain_is_small(const Sym* s, size_t count) {
  uint32_t freq[256] = {};
  size_t samples = 0;
  for (size_t i = 0; i < count; i += 8, ++samples) freq[s[i]]++;
  int used = 0;
  for (uint32_t f : freq) used += f != 0;
  if (used < 2) return false;
  uint8_t len[256];
  huffman_lengths(freq, 256, len);
  uint64_t bits = 0;
  for (int k = 0; k < 256; ++k) bits += uint64_t(freq[k]) * len[k];
  return double(bits) > 0.99 * 8.0 * double(samples);
}

void huffman_lengths(const uint32_t* freq, int alphabet, uint8_t* lengths) {
  std::array<uint64_t, kMaxAlphabet> items;
  int n = 0;
  for (int s = 0; s < alphabet; ++s) {
    if (freq[s]) items[n++] = (uint64_t(freq[s]) << 16) | uint64_t(s);
  }
  std::sort(items.begin(), items.begin() + n);
  std::fill(lengths, lengths + alphabet, 0);
  std::array<uint32_t, kMaxAlphabet> w;
  // Scaling the weights down flattens the tree until it fits kMaxCodeBits (a simple, slightly
  // suboptimal length limit; rare symbols pay a fraction of a bit).
  for (int shift = 0;; ++shift) {
    for (int i = 0; i < n; ++i) w[i] = std::max<uint32_t>(1, uint32_t(items[i] >> (16 + shift)));
    min_redundancy(w.data(), n);
    if (w[0] <= uint32_t(kMaxCodeBits)) break;
  }
  for (int i = 0; i < n; ++i) lengths[items[i] & 0xffff] = uint8_t(w[i]);
}

size_t stream_bound(size_t count, int alphabet) {
  return 1 + count * sym_bytes(alphabet);
}

template <class Sym>
Result<size_t> encode_stream(const Sym* s, size_t count, int alphabet, std::span<std::byte> out) {
  const size_t sb = sym_bytes(alphabet);
  uint32_t hist[4][kMaxAlphabet] = {};
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    hist[0][s[i]]++;
    hist[1][s[i + 1]]++;
    hist[2][s[i + 2]]++;
    hist[3][s[i + 3]]++;
  }
  for (; i < count; ++i) hist[0][s[i]]++;
  uint32_t freq[kMaxAlphabet];
  int used = 0, last = 0;
  for (int k = 0; k < alphabet; ++k) {
    freq[k] = hist[0][k] + hist[1][k] + hist[2][k] + hist[3][k];
    if (freq[k]) ++used, last = k;
  }
  // Byte streams of near-uniform bytes (sign and mantissa) are common: a histogram of every 8th
  // symbol decides "raw" without counting them all.
  if (alphabet == 256 && count >= 16384 && raw_gain_is_small(s, count)) {
    if (out.size() < 1 + count) return make_error("entropy: does not fit");
    out[0] = std::byte(Mode::kRaw);
    std::memcpy(out.data() + 1, s, count);
    return 1 + count;
  }
  auto put_sym = [&](std::byte* p, uint32_t v) {
    if (sb == 2)
      put16(p, uint16_t(v));
    else
      *p = std::byte(v);
  };
  if (used == 1) {
    if (out.size() < 1 + sb) return make_error("entropy: does not fit");
    out[0] = std::byte(Mode::kConstant);
    put_sym(out.data() + 1, uint32_t(last));
    return 1 + sb;
  }
  const size_t raw_size = 1 + count * sb;
  if (used >= 2) {
    uint8_t len[kMaxAlphabet];
    huffman_lengths(freq, alphabet, len);
    uint64_t bits = 0;
    for (int k = 0; k < alphabet; ++k) bits += uint64_t(freq[k]) * len[k];
    std::byte table_bytes[kMaxAlphabet];
    size_t tl = write_lengths(len, alphabet, table_bytes);
    size_t estimate = 5 + tl + 6 + bits / 8 + kBitStreams;
    if (estimate < raw_size && out.size() >= estimate) {
      uint16_t codes[kMaxAlphabet];
      canonical_codes(len, alphabet, codes);
      uint32_t entry[kMaxAlphabet];
      for (int k = 0; k < alphabet; ++k) entry[k] = codes[k] | (uint32_t(len[k]) << 16);
      thread_local std::vector<std::byte> scratch;
      const size_t per = (count / kBitStreams + 1) * kMaxCodeBits / 8 + 8;
      scratch.resize(kBitStreams * per);
      BitWriter w[kBitStreams];
      for (int k = 0; k < kBitStreams; ++k) w[k].p = scratch.data() + k * per;
      const size_t q = segment_size(count), tail = segment_length(count, kBitStreams - 1);
      auto put = [&](int k, size_t j) {
        uint32_t e = entry[s[k * q + j]];
        w[k].put(e & 0xffff, int(e >> 16));
      };
      size_t j = 0;
      for (; j + 4 <= tail; j += 4) {
        for (int k = 0; k < kBitStreams; ++k) {
          put(k, j);
          put(k, j + 1);
          put(k, j + 2);
          put(k, j + 3);
          w[k].flush();
        }
      }
      for (int k = 0; k < kBitStreams; ++k) {
        for (size_t i = j; i < segment_length(count, k); ++i) {
          put(k, i);
          w[k].flush();
        }
      }
      size_t sizes[kBitStreams], sum = 0;
      for (int k = 0; k < kBitStreams; ++k) {
        sizes[k] = size_t(w[k].finish() - (scratch.data() + k * per));
        sum += sizes[k];
      }
      const size_t total = tl + 6 + sum;
      const bool sizes_fit =
          std::all_of(sizes, sizes + kBitStreams - 1, [](size_t z) { return z <= UINT16_MAX; });
      if (sizes_fit && 5 + total <= out.size() && 5 + total < raw_size) {
        std::byte* p = out.data();
        p[0] = std::byte(Mode::kHuffman);
        put32(p + 1, uint32_t(total));
        std::memcpy(p + 5, table_bytes, tl);
        p += 5 + tl;
        for (int k = 0; k < kBitStreams - 1; ++k) put16(p + 2 * k, uint16_t(sizes[k]));
        p += 6;
        for (int k = 0; k < kBitStreams; ++k) {
          std::memcpy(p, scratch.data() + k * per, sizes[k]);
          p += sizes[k];
        }
        return 5 + total;
      }
    }
  }
  if (out.size() < raw_size) return make_error("entropy: does not fit");
  out[0] = std::byte(Mode::kRaw);
  if (sb == 1) {
    for (size_t k = 0; k < count; ++k) out[1 + k] = std::byte(s[k]);
  } else {
    for (size_t k = 0; k < count; ++k) put16(out.data() + 1 + 2 * k, uint16_t(s[k]));
  }
  return raw_size;
}

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

template Result<size_t> encode_stream<uint8_t>(const uint8_t*, size_t, int, std::span<std::byte>);
template Result<size_t> encode_stream<uint16_t>(const uint16_t*, size_t, int, std::span<std::byte>);
template Result<size_t> decode_stream<uint8_t>(std::span<const std::byte>, size_t, int, uint8_t*);
template Result<size_t> decode_stream<uint16_t>(std::span<const std::byte>, size_t, int, uint16_t*);

}  // namespace commlab::entropy
