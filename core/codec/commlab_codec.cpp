// commlab: lossless codec for BF16/FP16/FP32 training traffic (docs/formats.md, "CommLab entropy
// blocks"). Each element is split into its exponent byte and its sign/mantissa bytes; the exponent
// stream carries zero-run tokens; every stream gets its own per-block Huffman table (or
// raw/constant mode). 128 KiB blocks: one block covers a 4 KiB packet, and large buffers amortise
// the tables.
#include <bit>
#include <cstring>
#include <vector>

#include "codec/codec_factories.h"
#include "codec/framed_codec.h"
#include "codec/huffman.h"

namespace commlab {
namespace {

static_assert(std::endian::native == std::endian::little, "the frame format is little-endian");

using frame::get32;
using frame::put32;

constexpr size_t kBlockBytes = 128 * 1024;
constexpr uint32_t kMinRun = 8;  // shorter zero runs are cheaper as single-zero tokens
constexpr uint16_t kRunToken = 256;
constexpr uint16_t kZeroToken = 257;
constexpr int kTokenAlphabet = 258;
constexpr size_t kBlockHeader = 16;

template <class W>
W load(const std::byte* p, size_t i) {
  W v;
  std::memcpy(&v, p + i * sizeof(W), sizeof(W));
  return v;
}

template <class W>
void store(std::byte* p, size_t i, W v) {
  std::memcpy(p + i * sizeof(W), &v, sizeof(W));
}

template <class W>
bool no_zero(const std::byte* p, size_t i) {
  bool all = true;
  for (size_t k = 0; k < 16; ++k) all &= load<W>(p, i + k) != 0;
  return all;
}

class CommLabCodec final : public FramedCodec {
 public:
  CommLabCodec() : FramedCodec("commlab", frame::CodecId::kCommLab, true, true) {}

 protected:
  size_t payload_bound(size_t n) const override { return n + (n / kBlockBytes + 1) * 64; }

  Result<size_t> encode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    size_t pos = 0;
    for (size_t start = 0; start < in.size(); start += kBlockBytes) {
      auto block = in.subspan(start, std::min(kBlockBytes, in.size() - start));
      Result<size_t> r = dtype == DType::kFp32 ? encode_block<uint32_t>(block, out.subspan(pos))
                                               : encode_block<uint16_t>(block, out.subspan(pos));
      if (!r.ok()) return r;
      pos += *r;
    }
    return pos;
  }

  Result<size_t> decode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    size_t pos = 0;
    for (size_t start = 0; start < out.size(); start += kBlockBytes) {
      auto block = out.subspan(start, std::min(kBlockBytes, out.size() - start));
      Result<size_t> r = dtype == DType::kFp32 ? decode_block<uint32_t>(in.subspan(pos), block)
                                               : decode_block<uint16_t>(in.subspan(pos), block);
      if (!r.ok()) return r;
      pos += *r;
    }
    if (pos != in.size()) return make_error("commlab: trailing bytes after the last block");
    return out.size();
  }

 private:
  template <class W>
  Result<size_t> encode_block(std::span<const std::byte> in, std::span<std::byte> out) {
    constexpr int kLits = sizeof(W) - 1;
    const size_t n = in.size() / sizeof(W);
    tokens_.resize(n);
    for (int k = 0; k < kLits; ++k) lits_[k].resize(n);
    runs_.resize(n + 8);
    uint16_t* tok = tokens_.data();
    uint8_t* l0 = lits_[0].data();
    size_t t = 0, m = 0, rb = 0;
    // Dense blocks (no +0 element, the common case) split in one vectorised pass.
    size_t zeros = 0;
    for (size_t i = 0; i < n; ++i) zeros += load<W>(in.data(), i) == 0;
    if (zeros == 0) {
      split_all<W>(in.data(), n);
      t = m = n;
    }
    for (size_t i = zeros == 0 ? n : 0; i < n;) {
      // Fast path: 16 elements without a zero are split without branches (vectorised).
      if (n - i >= 16 && no_zero<W>(in.data(), i)) {
        for (size_t k = 0; k < 16; ++k) {
          W x = load<W>(in.data(), i + k);
          if constexpr (sizeof(W) == 2) {
            tok[t + k] = uint16_t((x >> 7) & 0xff);
            l0[m + k] = uint8_t(((x >> 8) & 0x80) | (x & 0x7f));
          } else {
            tok[t + k] = uint16_t((x >> 23) & 0xff);
            l0[m + k] = uint8_t(((x >> 24) & 0x80) | ((x >> 16) & 0x7f));
            lits_[1][m + k] = uint8_t(x >> 8);
            lits_[2][m + k] = uint8_t(x);
          }
        }
        i += 16;
        t += 16;
        m += 16;
        continue;
      }
      W x = load<W>(in.data(), i);
      if (x != 0) {
        if constexpr (sizeof(W) == 2) {
          tok[t++] = uint16_t((x >> 7) & 0xff);
          l0[m++] = uint8_t(((x >> 8) & 0x80) | (x & 0x7f));
        } else {
          tok[t++] = uint16_t((x >> 23) & 0xff);
          l0[m] = uint8_t(((x >> 24) & 0x80) | ((x >> 16) & 0x7f));
          lits_[1][m] = uint8_t(x >> 8);
          lits_[2][m++] = uint8_t(x);
        }
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < n && load<W>(in.data(), j) == 0) ++j;
      size_t run = j - i;
      if (run >= kMinRun) {
        tok[t++] = kRunToken;
        for (uint64_t v = run - kMinRun;; v >>= 7) {
          runs_[rb++] = uint8_t(v < 128 ? v : (v & 127) | 128);
          if (v < 128) break;
        }
      } else {
        for (size_t k = 0; k < run; ++k) tok[t++] = kZeroToken;
      }
      i = j;
    }
    if (out.size() < kBlockHeader + rb) return make_error("commlab: does not fit");
    put32(out.data(), uint32_t(n));
    put32(out.data() + 4, uint32_t(t));
    put32(out.data() + 8, uint32_t(m));
    put32(out.data() + 12, uint32_t(rb));
    if (rb) std::memcpy(out.data() + kBlockHeader, runs_.data(), rb);
    size_t pos = kBlockHeader + rb;
    Result<size_t> r = entropy::encode_stream(tok, t, kTokenAlphabet, out.subspan(pos));
    if (!r.ok()) return r;
    pos += *r;
    for (int k = 0; k < kLits; ++k) {
      r = entropy::encode_stream(lits_[k].data(), m, 256, out.subspan(pos));
      if (!r.ok()) return r;
      pos += *r;
    }
    return pos;
  }

  template <class W>
  Result<size_t> decode_block(std::span<const std::byte> in, std::span<std::byte> out) {
    constexpr int kLits = sizeof(W) - 1;
    const size_t n = out.size() / sizeof(W);
    if (in.size() < kBlockHeader) return make_error("commlab: truncated block header");
    const size_t bn = get32(in.data()), t = get32(in.data() + 4), m = get32(in.data() + 8),
                 rb = get32(in.data() + 12);
    if (bn != n) return make_error("commlab: block element count mismatch");
    if (t > n || m > t) return make_error("commlab: bad token counts");
    if (rb > in.size() - kBlockHeader) return make_error("commlab: truncated run stream");
    const std::byte* rp = in.data() + kBlockHeader;
    const std::byte* re = rp + rb;
    size_t pos = kBlockHeader + rb;
    tokens_.resize(t);
    Result<size_t> r = entropy::decode_stream(in.subspan(pos), t, kTokenAlphabet, tokens_.data());
    if (!r.ok()) return r;
    pos += *r;
    for (int k = 0; k < kLits; ++k) {
      lits_[k].resize(m);
      r = entropy::decode_stream(in.subspan(pos), m, 256, lits_[k].data());
      if (!r.ok()) return r;
      pos += *r;
    }
    const uint16_t* tok = tokens_.data();
    std::byte* o = out.data();
    if (t == n && m == n) {  // no zeros: one branch-free, vectorised pass
      uint32_t high = 0;
      for (size_t q = 0; q < n; ++q) high |= tok[q] >> 8;
      if (high) return make_error("commlab: zero token in a block without zeros");
      join_all<W>(tok, n, o);
      return pos;
    }
    size_t j = 0, k = 0;
    for (size_t q = 0; q < t; ++q) {
      const uint16_t tk = tok[q];
      if (tk < 256) {
        if (j >= n || k >= m) return make_error("commlab: tokens overrun the block");
        store<W>(o, j++, join<W>(tk, k));
        ++k;
      } else if (tk == kZeroToken) {
        if (j >= n) return make_error("commlab: tokens overrun the block");
        store<W>(o, j++, 0);
      } else {
        uint64_t v = 0;
        for (int shift = 0;; shift += 7) {
          if (rp == re || shift > 28) return make_error("commlab: bad run length");
          uint8_t b = uint8_t(*rp++);
          v |= uint64_t(b & 127) << shift;
          if (b < 128) break;
        }
        const uint64_t len = v + kMinRun;
        if (len > n - j) return make_error("commlab: zero run overruns the block");
        std::memset(o + j * sizeof(W), 0, len * sizeof(W));
        j += len;
      }
    }
    if (j != n || k != m || rp != re) return make_error("commlab: block does not add up");
    return pos;
  }

  // Element from its exponent token and literal k.
  template <class W>
  W join(uint32_t tk, size_t k) const {
    const uint32_t l = lits_[0][k];
    if constexpr (sizeof(W) == 2) {
      return W(((l & 0x80) << 8) | (tk << 7) | (l & 0x7f));
    } else {
      return ((l & 0x80) << 24) | (tk << 23) | ((l & 0x7f) << 16) | (uint32_t(lits_[1][k]) << 8) |
             lits_[2][k];
    }
  }

  template <class W>
  void split_all(const std::byte* in, size_t n) {
    using Unaligned [[gnu::aligned(1)]] = W;
    const Unaligned* __restrict x = reinterpret_cast<const Unaligned*>(in);
    uint16_t* __restrict tok = tokens_.data();
    uint8_t* __restrict l0 = lits_[0].data();
    if constexpr (sizeof(W) == 2) {
      for (size_t i = 0; i < n; ++i) {
        tok[i] = uint16_t((x[i] >> 7) & 0xff);
        l0[i] = uint8_t(((x[i] >> 8) & 0x80) | (x[i] & 0x7f));
      }
    } else {
      uint8_t* __restrict l1 = lits_[1].data();
      uint8_t* __restrict l2 = lits_[2].data();
      for (size_t i = 0; i < n; ++i) {
        tok[i] = uint16_t((x[i] >> 23) & 0xff);
        l0[i] = uint8_t(((x[i] >> 24) & 0x80) | ((x[i] >> 16) & 0x7f));
        l1[i] = uint8_t(x[i] >> 8);
        l2[i] = uint8_t(x[i]);
      }
    }
  }

  // The common case of a block without zeros, written so the compiler vectorises it.
  template <class W>
  void join_all(const uint16_t* __restrict tok, size_t n, std::byte* out) const {
    using Unaligned [[gnu::aligned(1)]] = W;
    Unaligned* __restrict o = reinterpret_cast<Unaligned*>(out);
    const uint8_t* __restrict l0 = lits_[0].data();
    if constexpr (sizeof(W) == 2) {
      for (size_t q = 0; q < n; ++q) {
        const uint32_t l = l0[q];
        o[q] = W(((l & 0x80) << 8) | (uint32_t(tok[q]) << 7) | (l & 0x7f));
      }
    } else {
      const uint8_t* __restrict l1 = lits_[1].data();
      const uint8_t* __restrict l2 = lits_[2].data();
      for (size_t q = 0; q < n; ++q) {
        const uint32_t l = l0[q];
        o[q] = ((l & 0x80) << 24) | (uint32_t(tok[q]) << 23) | ((l & 0x7f) << 16) |
               (uint32_t(l1[q]) << 8) | l2[q];
      }
    }
  }

  std::vector<uint16_t> tokens_;
  std::vector<uint8_t> lits_[3];
  std::vector<uint8_t> runs_;
};

}  // namespace

std::unique_ptr<Codec> make_commlab_codec() {
  return std::make_unique<CommLabCodec>();
}

}  // namespace commlab
