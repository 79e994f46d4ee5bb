#include "codec/huffman/huffman.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "codec/frame.h"
#include "codec/huffman/huffman_detail.h"

namespace commlab::entropy {
namespace {

using namespace detail;

using frame::get16;
using frame::get32;
using frame::get64;
using frame::put16;
using frame::put32;

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

}  // namespace

namespace detail {

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

}  // namespace detail

// Whether Huffman would save less than 1% on a byte stream, judged on every 8th symbol (every
// symbol of short streams): the sample's entropy, with the Miller-Madow correction for the
// bias of small samples, (K - 1) / (2 N ln 2) bits, is above 0.99 * 8 bits. The entropy is a lower
// bound on any prefix code's length.
template <class Sym>
bool raw_gain_is_small(const Sym* s, size_t count, const uint32_t* every8th) {
  const size_t stride = count >= 16384 ? 8 : 1;
  uint32_t freq[2][256] = {};
  size_t samples = 0, i = 0;
  if (stride == 8 && every8th) {  // the caller counted the same sample (indices 0, 8, 16, ...)
    std::memcpy(freq[0], every8th, sizeof(freq[0]));
    samples = (count + 7) / 8;
    i = count;
  }
  for (; i + stride < count; i += 2 * stride, samples += 2) {
    freq[0][s[i]]++;
    freq[1][s[i + stride]]++;
  }
  for (; i < count; i += stride, ++samples) freq[0][s[i]]++;
  // f * log2(f) for small f from a table (the same doubles std::log2 gives, so the same
  // decisions): 256 log2 calls per stream were a tenth of the encoder's time on dense blocks.
  static const std::vector<double> flogf = [] {
    std::vector<double> t(4096, 0.0);
    for (size_t f = 1; f < t.size(); ++f) t[f] = double(f) * std::log2(double(f));
    return t;
  }();
  double sum_flogf = 0;  // entropy = log2(N) - sum f log2 f / N
  int used = 0;
  for (int k = 0; k < 256; ++k) {
    const uint32_t f = freq[0][k] + freq[1][k];
    if (f) {
      sum_flogf += f < flogf.size() ? flogf[f] : double(f) * std::log2(double(f));
      ++used;
    }
  }
  const double n = double(samples);
  const double entropy = std::log2(n) - sum_flogf / n + (used - 1) / (2 * n * std::log(2.0));
  return entropy > 0.99 * 8.0;
}

// Symbol counts. Eight sub-histograms: the same symbol in a row would otherwise wait on its own
// counter's store (gradient exponents repeat a lot).
template <class Sym>
void histogram(const Sym* s, size_t count, int alphabet, uint32_t* freq) {
  uint32_t hist[8][kMaxAlphabet];
  size_t i = 0;
  if (count < 8192) {  // clearing and summing eight tables would cost more than it saves
    std::memset(hist[0], 0, sizeof(hist[0]));
    for (; i < count; ++i) hist[0][s[i]]++;
    std::memcpy(freq, hist[0], sizeof(uint32_t) * size_t(alphabet));
    return;
  }
  std::memset(hist, 0, sizeof(hist));
  if constexpr (sizeof(Sym) == 1) {
    for (; i + 8 <= count; i += 8) {
      uint64_t v;
      std::memcpy(&v, s + i, 8);
      hist[0][v & 255]++;
      hist[1][(v >> 8) & 255]++;
      hist[2][(v >> 16) & 255]++;
      hist[3][(v >> 24) & 255]++;
      hist[4][(v >> 32) & 255]++;
      hist[5][(v >> 40) & 255]++;
      hist[6][(v >> 48) & 255]++;
      hist[7][v >> 56]++;
    }
  }
  for (; i < count; ++i) hist[i & 7][s[i]]++;
  for (int k = 0; k < alphabet; ++k) {
    uint32_t f = 0;
    for (int t = 0; t < 8; ++t) f += hist[t][k];
    freq[k] = f;
  }
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

// Writes one segment's codes, LSB first, with a 64-bit accumulator flushed every 4 codes (at most
// 4 * 11 + 7 bits pending). Byte symbols with a small alphabet go two per lookup through a pair
// table (code of s0 then s1, up to 22 bits), filled only for the symbols present.
class SegmentCoder {
 public:
  SegmentCoder(const uint16_t* codes, const uint8_t* len, int alphabet, int used, size_t count) {
    for (int k = 0; k < alphabet; ++k) code_[k] = codes[k], len_[k] = len[k];
    pairs_ = alphabet <= 256 && used <= 48 && size_t(used) * size_t(used) <= count;
    if (!pairs_) return;
    int present[256], n = 0;
    for (int k = 0; k < alphabet; ++k) {
      if (len[k]) present[n++] = k;
    }
    if (pair_code_.empty()) pair_code_.resize(1u << 16), pair_len_.resize(1u << 16);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const int a = present[i], b = present[j];
        pair_code_[a | (b << 8)] = codes[a] | (uint32_t(codes[b]) << len[a]);
        pair_len_[a | (b << 8)] = uint8_t(len[a] + len[b]);
      }
    }
  }

  // Codes and lengths sit in separate tables: a length load is cheaper than masking and shifting
  // it out of a packed entry (the loop is bound by ALU operations, not by loads).
  template <class Sym>
  std::byte* encode(const Sym* s, size_t n, std::byte* p) const {
    uint64_t acc = 0;
    uint32_t bits = 0;
    auto put = [&](uint32_t code, uint32_t len) {
      acc |= uint64_t(code) << bits;
      bits += len;
    };
    auto flush = [&]() {
      frame::put64(p, acc);
      p += bits >> 3;
      acc >>= bits & ~7u;  // at most 56: bits <= 4 * 11 + 7
      bits &= 7;
    };
    size_t i = 0;
    if constexpr (sizeof(Sym) == 1) {
      if (pairs_) {
        const uint32_t* pc = pair_code_.data();
        const uint8_t* pl = pair_len_.data();
        for (; i + 4 <= n; i += 4) {
          uint32_t w;
          std::memcpy(&w, s + i, 4);
          put(pc[w & 0xffff], pl[w & 0xffff]);
          put(pc[w >> 16], pl[w >> 16]);
          flush();
        }
      }
    }
    auto put1 = [&](Sym x) { put(code_[x], len_[x]); };
    for (; i + 4 <= n; i += 4) {
      put1(s[i]);
      put1(s[i + 1]);
      put1(s[i + 2]);
      put1(s[i + 3]);
      flush();
    }
    for (; i < n; ++i) {
      put1(s[i]);
      flush();
    }
    flush();
    return p + (bits ? 1 : 0);
  }

 private:
  uint32_t code_[kMaxAlphabet];
  uint8_t len_[kMaxAlphabet];
  bool pairs_ = false;
  static thread_local std::vector<uint32_t> pair_code_;
  static thread_local std::vector<uint8_t> pair_len_;
};
thread_local std::vector<uint32_t> SegmentCoder::pair_code_;
thread_local std::vector<uint8_t> SegmentCoder::pair_len_;

template <class Sym>
Result<size_t> encode_stream(const Sym* s, size_t count, int alphabet, std::span<std::byte> out,
                             const uint32_t* every8th, uint8_t* reuse) {
  const size_t sb = sym_bytes(alphabet);
  // Byte streams of near-uniform bytes (sign and mantissa) are common: a histogram of every 8th
  // symbol decides "raw" before counting them all.
  if (alphabet == 256 && count >= 1024 && raw_gain_is_small(s, count, every8th)) {
    if (out.size() < 1 + count) return make_error("entropy: does not fit");
    out[0] = std::byte(Mode::kRaw);
    std::memcpy(out.data() + 1, s, count);
    return 1 + count;
  }
  uint32_t freq[kMaxAlphabet];
  histogram(s, count, alphabet, freq);
  int used = 0, last = 0;
  for (int k = 0; k < alphabet; ++k) {
    if (freq[k]) ++used, last = k;
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
    if (reuse && alphabet == 256) {
      // Absent symbols from 4 below the smallest to 4 above the largest present one get a count
      // of 1 (a long code each, ~0.5% of the code space for 10 of them): the next block's rare
      // exponents then usually have a code, and it can take this one as it is (on the MLP
      // gradients, blocks 2 and 3 share a code: one table build fewer per frame).
      uint32_t widened[256];
      int lo = 255;
      for (int k = 0; k < 256; ++k) lo = freq[k] ? std::min(lo, k) : lo;
      lo = std::max(0, lo - 4);
      const int hi = std::min(255, last + 4);
      for (int k = 0; k < 256; ++k) widened[k] = freq[k] + (k >= lo && k <= hi && !freq[k]);
      huffman_lengths(widened, alphabet, len);
    } else {
      huffman_lengths(freq, alphabet, len);
    }
    uint64_t bits = 0;
    for (int k = 0; k < alphabet; ++k) bits += uint64_t(freq[k]) * len[k];
    if (reuse && alphabet == 256) {
      uint64_t old_bits = 0;
      bool covers = true;
      for (int k = 0; k < alphabet; ++k) {
        old_bits += uint64_t(freq[k]) * reuse[k];
        covers &= !freq[k] || reuse[k];
      }
      if (covers && old_bits <= bits + bits / 128) {
        std::memcpy(len, reuse, 256);
        bits = old_bits;
      }
    }
    std::byte table_bytes[kMaxAlphabet];
    size_t tl = write_lengths(len, alphabet, table_bytes);
    size_t estimate = 5 + tl + 6 + bits / 8 + kBitStreams;
    if (estimate < raw_size && out.size() >= estimate) {
      uint16_t codes[kMaxAlphabet] = {};
      canonical_codes(len, alphabet, codes);
      const size_t q = segment_size(count);
      // Worst case of the four segments, plus the writer's 8 bytes of slack.
      const size_t worst = kBitStreams * ((q * kMaxCodeBits + 7) / 8 + 8);
      const size_t head = 5 + tl + 6;
      // Segments go straight to `out` when it has room for the worst case, else via scratch.
      thread_local std::vector<std::byte> scratch;
      std::byte* base;
      if (out.size() >= head + worst) {
        base = out.data() + head;
      } else {
        scratch.resize(worst);
        base = scratch.data();
      }
      int coded = 0;  // symbols with a code (a reused or widened code has more than `used`)
      for (int k = 0; k < alphabet; ++k) coded += len[k] != 0;
      SegmentCoder coder(codes, len, alphabet, coded, count);
      size_t sizes[kBitStreams], sum = 0;
      for (int k = 0; k < kBitStreams; ++k) {
        const size_t begin = std::min(count, k * q);
        std::byte* end = coder.encode(s + begin, segment_length(count, k), base + sum);
        sizes[k] = size_t(end - (base + sum));
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
        if (base != p) std::memcpy(p, base, sum);
        if (reuse && alphabet == 256) std::memcpy(reuse, len, 256);
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
template Result<size_t> encode_stream<uint8_t>(const uint8_t*, size_t, int, std::span<std::byte>,
                                               const uint32_t*, uint8_t*);
template Result<size_t> encode_stream<uint16_t>(const uint16_t*, size_t, int, std::span<std::byte>,
                                                const uint32_t*, uint8_t*);

}  // namespace commlab::entropy
