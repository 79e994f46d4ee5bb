#include "codec/commlab/commlab_block.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "codec/commlab/commlab_split.h"
#include "codec/commlab/exponent_delta.h"
#include "codec/frame.h"
#include "codec/commlab/gap_code.h"
#include "codec/commlab/zero_mask.h"

namespace commlab::zperiod {
namespace {

// How many of the sampled zeros (the ones of `sample`, words [w0, w1]) have a zero d positions
// later: a word at a time, 64 candidates per AND and popcount. Same count as testing each zero
// (positions past n are clear in the mask, and words past it are read as 0).
__attribute__((target_clones("popcnt", "default"))) size_t shifted_hits(const uint64_t* sample,
                                                                        size_t w0, size_t w1,
                                                                        const uint64_t* mask,
                                                                        size_t nw, size_t d) {
  size_t hits = 0;
  const size_t sh = d & 63;
  for (size_t w = w0; w <= w1; ++w) {
    const uint64_t s = sample[w];
    if (s == 0) continue;
    const size_t a = w + (d >> 6);
    const uint64_t lo = a < nw ? mask[a] : 0;
    const uint64_t hi = sh && a + 1 < nw ? mask[a + 1] : 0;
    const uint64_t v = sh ? (lo >> sh) | (hi << (64 - sh)) : lo;
    hits += size_t(std::popcount(s & v));
  }
  return hits;
}

// The zeros z[0, k) as bits of words [z[0] / 64, z[k-1] / 64] of out (the mask's words, with the
// zeros after z[k-1] cleared).
void sample_bits(const uint64_t* mask, const std::vector<uint32_t>& z, size_t k,
                 std::vector<uint64_t>& out) {
  const size_t w0 = z[0] / 64, w1 = z[k - 1] / 64;
  if (out.size() < w1 + 1) out.resize(w1 + 1);
  for (size_t w = w0; w <= w1; ++w) out[w] = mask[w];
  const unsigned top = z[k - 1] % 64;
  if (top < 63) out[w1] &= (uint64_t(2) << top) - 1;
}

}  // namespace

uint32_t find(const uint64_t* mask, size_t n, uint32_t last, Scratch& s) {
  std::vector<uint32_t>& z = s.zeros;
  z.clear();
  const size_t nw = zmask::words(n);
  for (size_t w = 0; w < nw && z.size() < 256; ++w) {
    for (uint64_t b = mask[w]; b && z.size() < 256; b &= b - 1) {
      z.push_back(uint32_t(64 * w + size_t(std::countr_zero(b))));
    }
  }
  if (z.size() < 32) return 0;
  // Either count: a bit test per sampled zero, or an AND and popcount per word they span
  // (the zeros of dead columns or empty rows lie close together: a few words).
  sample_bits(mask, z, z.size(), s.sample);
  sample_bits(mask, z, 32, s.first);
  const size_t w0 = z[0] / 64, w_all = z.back() / 64, w_first = z[31] / 64;
  const bool words_all = 2 * (w_all - w0 + 1) <= z.size();
  const bool words_first = 2 * (w_first - w0 + 1) <= 32;
  auto hit = [&](size_t i) { return i < n && zmask::test(mask, i); };
  auto score = [&](uint32_t d) {
    if (words_all) return shifted_hits(s.sample.data(), w0, w_all, mask, nw, d);
    size_t hits = 0;
    for (uint32_t p : z) hits += hit(p + d);
    return hits;
  };
  auto score_first = [&](uint32_t d) {
    if (words_first) return shifted_hits(s.first.data(), w0, w_first, mask, nw, d);
    size_t hits = 0;
    for (size_t q = 0; q < 32; ++q) hits += hit(z[q] + d);
    return hits;
  };
  uint32_t best = 0;
  size_t best_hits = z.size() / 2;  // must beat "no prediction" clearly
  if (last && last < n) {
    size_t h = score(last);
    if (h > best_hits) best = last, best_hits = h;
  }
  if (best && best_hits > z.size() * 7 / 8) return best;  // the last period still fits
  // Each candidate is first tried on 32 zeros and scored fully only if it predicts 3/4 of them.
  for (size_t j = 1; j < z.size(); ++j) {
    uint32_t d = z[j] - z[0];
    if (d < 2 || d == best) continue;
    if (score_first(d) < 24) continue;
    size_t h = score(d);
    if (h > best_hits) best = d, best_hits = h;
  }
  return best;
}

}  // namespace commlab::zperiod

namespace commlab::cblock {

using frame::get32;
using frame::put32;
using gapcode::ExtraReader;
using gapcode::ExtraWriter;
using gapcode::gap_symbol;
using gapcode::kGapSymbols;

template <class W>
using Unaligned [[gnu::aligned(1)]] = W;

namespace {

// Bytes of the entropy stream of `count` byte symbols at in[pos...] (entropy::encode_stream).
bool skip_stream(std::span<const std::byte> in, size_t count, size_t& pos) {
  if (pos >= in.size()) return false;
  size_t size = 0;
  switch (static_cast<entropy::Mode>(uint8_t(in[pos]))) {
    case entropy::Mode::kRaw: size = 1 + count; break;
    case entropy::Mode::kConstant: size = 2; break;
    case entropy::Mode::kHuffman:
      if (in.size() - pos < 5) return false;
      size = 5 + size_t(get32(in.data() + pos + 1));
      break;
    default: return false;
  }
  if (size > in.size() - pos) return false;
  pos += size;
  return true;
}

}  // namespace

Result<size_t> block_size(std::span<const std::byte> in, size_t n, int lits) {
  if (in.size() < kBlockHeader) return make_error("commlab: truncated block header");
  const size_t m = get32(in.data() + 4), flips = get32(in.data() + 12);
  const uint32_t period_word = get32(in.data() + 8);
  if (m > n) return make_error("commlab: bad counts");
  size_t pos = kBlockHeader;
  bool ok = true;
  if (period_word & kBitmapFlag) {
    ok = skip_stream(in, (n + 7) / 8, pos);
  } else if (flips) {
    ok = skip_stream(in, flips, pos) && in.size() - pos >= 4;
    if (ok) {
      const size_t extra = get32(in.data() + pos);
      ok = extra <= in.size() - pos - 4;
      pos += ok ? 4 + extra : 0;
    }
  }
  for (int k = 0; ok && k <= lits; ++k) ok = skip_stream(in, m, pos);
  if (!ok) return make_error("commlab: truncated block");
  return pos;
}

void Coder::start() {
  period_ = 0;
  delta_ = 0;
  std::memset(exp_code_, 0, sizeof(exp_code_));
  tables_.clear();
}

void Coder::gap_code(const uint64_t* r, size_t n, size_t flips) {
  gap_syms_.resize(flips);
  extra_.resize(4 * flips + 8);  // at most 30 extra bits per gap, and the writer's slack
  ExtraWriter ew{extra_.data()};
  uint32_t last = uint32_t(-1);
  size_t j = 0;
  for (size_t w = 0; w < zmask::words(n); ++w) {
    for (uint64_t b = r[w]; b; b &= b - 1) {
      const uint32_t at = uint32_t(64 * w + size_t(std::countr_zero(b)));
      uint32_t extra;
      int bits;
      gap_syms_[j++] = uint8_t(gap_symbol(at - last - 1, extra, bits));
      ew.put(extra, bits);
      last = at;
    }
  }
  extra_.resize(size_t(ew.finish() - extra_.data()));
}

template <class W>
Result<size_t> Coder::encode(std::span<const std::byte> in, std::span<std::byte> out) {
  constexpr int kLits = sizeof(W) - 1;
  const size_t n = in.size() / sizeof(W);
  const Unaligned<W>* x = reinterpret_cast<const Unaligned<W>*>(in.data());
  exps_.resize(n + 1);
  for (int k = 0; k < kLits; ++k) lits_[k].resize(n + 1);
  const size_t nw = zmask::words(n);
  zbits_.resize(nw + 1);
  joined_.resize((n + 8) * sizeof(W));
  W* nz = reinterpret_cast<W*>(joined_.data());
  // A block with zeros is split from its compacted nonzeros (below), one without from x. When
  // the last block had zeros, this one is compacted first, else split first (the split counts
  // the zeros); either way the streams are the same.
  size_t m = n;
  if (had_zeros_) {
    m = zmask::compact<W>(in.data(), n, nz, zbits_.data());
    if (m == n) split_all<W>(x, n);
  } else if (split_all<W>(x, n) != 0) {
    m = zmask::compact<W>(in.data(), n, nz, zbits_.data());
  }
  had_zeros_ = m != n;
  uint32_t period = 0, delta = 0;
  gap_syms_.clear();
  extra_.clear();
  size_t flips = 0;
  bool bitmap = false;
  const uint64_t* flip_bits = nullptr;
  if (m != n) {
    // The fewest flips among no prediction, the found period and P = 1 (runs of zeros, e.g.
    // the rows of input pixels that are zero in the whole batch, cost two flips each).
    const uint32_t found = zperiod::find(zbits_.data(), n, period_, period_scratch_);
    period_ = found;
    flip_bits = zbits_.data();
    flips = zmask::count(flip_bits, n);
    fbits_.resize(nw + 1);
    cand_.resize(nw + 1);
    for (uint32_t p : {found, 1u}) {
      if (p == 0 || p >= n) continue;
      zmask::diff_period(zbits_.data(), n, p, cand_.data());
      const size_t f = zmask::count(cand_.data(), n);
      if (f < flips) {
        flips = f;
        period = p;
        std::swap(fbits_, cand_);
        flip_bits = fbits_.data();
      }
    }
    // Dense flips (random zeros) go as a bitmap: 8 positions per byte symbol. Sparse ones
    // (dead columns, predicted by the period) go as gaps, far below a bit per position.
    bitmap = flips * 8 >= n;
    if (!bitmap) gap_code(flip_bits, n, flips);
    // Exponents predicted from one row earlier: the zero-mask period is the row length or a
    // multiple of it (dead columns repeat every row), so its divisors are tried too.
    uint32_t cand[5] = {delta_, found, found / 2, found / 3, found / 4};
    for (int k = 2; k < 5; ++k) cand[k] = cand[k] * uint32_t(k) == found ? cand[k] : 0;
    delta = found ? expdelta::choose<W>(in.data(), n, cand, 5) : 0;
    pred_.resize(n * sizeof(W));
    if (delta && expdelta::encode<W>(in.data(), n, delta, pred_.data())) {
      zmask::compact<W>(pred_.data(), n, nz, zbits_.data());  // the same mask
    } else {
      delta = 0;
    }
    split_all<W>(nz, m);  // the nonzeros, with predicted exponents if delta
    delta_ = delta;
  }
  if (out.size() < kBlockHeader + 4) return make_error("commlab: does not fit");
  put32(out.data(), uint32_t(n));
  put32(out.data() + 4, uint32_t(m));
  put32(out.data() + 8, period | (bitmap ? kBitmapFlag : 0));
  put32(out.data() + 12, uint32_t(flips));
  put32(out.data() + 16, delta);
  size_t pos = kBlockHeader;
  if (bitmap) {
    Result<size_t> r = entropy::encode_stream(reinterpret_cast<const uint8_t*>(flip_bits),
                                              (n + 7) / 8, 256, out.subspan(pos));
    if (!r.ok()) return r;
    pos += *r;
  } else if (flips) {
    Result<size_t> r = entropy::encode_stream(gap_syms_.data(), flips, 256, out.subspan(pos));
    if (!r.ok()) return r;
    pos += *r;
    if (out.size() - pos < 4 + extra_.size()) return make_error("commlab: does not fit");
    put32(out.data() + pos, uint32_t(extra_.size()));
    if (!extra_.empty()) std::memcpy(out.data() + pos + 4, extra_.data(), extra_.size());
    pos += 4 + extra_.size();
  }
  Result<size_t> r =
      entropy::encode_stream(exps_.data(), m, 256, out.subspan(pos), nullptr, exp_code_);
  if (!r.ok()) return r;
  pos += *r;
  for (int k = 0; k < kLits; ++k) {
    // The split's sample counts are of the streams being coded (the last split was of them).
    r = entropy::encode_stream(lits_[k].data(), m, 256, out.subspan(pos),
                               sizeof(W) == 2 ? sample_hist_ : nullptr);
    if (!r.ok()) return r;
    pos += *r;
  }
  return pos;
}

const char* Coder::decode_mask(std::span<const std::byte> in, size_t n, size_t m,
                               uint32_t period_word, size_t flips, size_t& pos) {
  const bool bitmap = period_word & kBitmapFlag;
  const size_t period = period_word & ~kBitmapFlag;
  if (flips == 0 && !bitmap) return m == n && period == 0 ? nullptr : "commlab: bad zero mask";
  if (m == n) return "commlab: zero mask without zeros";
  if (period >= n) return "commlab: bad period";
  const size_t nw = zmask::words(n);
  zbits_.assign(nw + 1, 0);
  uint64_t* bits = zbits_.data();
  if (bitmap) {
    Result<size_t> r =
        entropy::decode_stream(in.subspan(pos), (n + 7) / 8, 256, reinterpret_cast<uint8_t*>(bits));
    if (!r.ok()) return "commlab: corrupt zero bitmap";
    pos += *r;
    // Bits past n must be clear (the last byte's padding).
    if ((n & 63) && (bits[nw - 1] >> (n & 63)) != 0) return "commlab: bad zero bitmap padding";
    if (zmask::count(bits, n) != flips) return "commlab: zero bitmap count mismatch";
  } else {
    gap_syms_.resize(flips + 1);
    Result<size_t> r = entropy::decode_stream(in.subspan(pos), flips, 256, gap_syms_.data());
    if (!r.ok()) return "commlab: corrupt gap stream";
    pos += *r;
    if (in.size() - pos < 4) return "commlab: truncated extra bits";
    const size_t extra_size = get32(in.data() + pos);
    if (extra_size > in.size() - pos - 4) return "commlab: truncated extra bits";
    ExtraReader er{in.data() + pos + 4, extra_size};
    pos += 4 + extra_size;
    size_t at = size_t(-1);
    for (size_t j = 0; j < flips; ++j) {
      // Branch-free but for the checks (short and long gaps alternate at random).
      const uint32_t s = gap_syms_[j];
      if (s >= uint32_t(kGapSymbols)) return "commlab: bad gap symbol";
      const bool big = s >= 16;
      const int b = big ? 4 + int(s - 16) / 2 : 1;
      uint32_t extra;
      if (!er.get(b - 1, extra)) return "commlab: truncated extra bits";
      const uint32_t g = big ? (1u << b) | (((s - 16) & 1) << (b - 1)) | extra : s;
      at += size_t(g) + 1;
      if (at >= n) return "commlab: zero position past the block";
      bits[at >> 6] |= uint64_t(1) << (at & 63);
    }
    if ((er.bit + 7) / 8 != extra_size) return "commlab: extra bits length mismatch";
  }
  if (period) zmask::undiff_period(bits, n, period);
  return zmask::count(bits, n) == n - m ? nullptr : "commlab: zero count mismatch";
}

template <class W>
Result<size_t> Coder::decode(std::span<const std::byte> in, std::span<std::byte> out) {
  constexpr int kLits = sizeof(W) - 1;
  const size_t n = out.size() / sizeof(W);
  if (in.size() < kBlockHeader) return make_error("commlab: truncated block header");
  const size_t bn = get32(in.data()), m = get32(in.data() + 4), flips = get32(in.data() + 12);
  const uint32_t period = get32(in.data() + 8), delta = get32(in.data() + 16);
  if (bn != n) return make_error("commlab: block element count mismatch");
  if (m > n || flips > n) return make_error("commlab: bad counts");
  if (delta && (delta < expdelta::kMinDistance || delta >= n)) {
    return make_error("commlab: bad exponent prediction distance");
  }
  size_t pos = kBlockHeader;
  if (const char* err = decode_mask(in, n, m, period, flips, pos)) return make_error(err);
  exps_.resize(m + 1);
  Result<size_t> r = entropy::decode_stream(in.subspan(pos), m, 256, exps_.data(), &tables_);
  if (!r.ok()) return r;
  pos += *r;
  const uint8_t* lit[3] = {};
  for (int k = 0; k < kLits; ++k) {
    // A raw literal stream (sign and mantissa bytes are near uniform) is joined straight from
    // the input: copying it out first cost ~5% of decoding a dense block.
    const bool raw = in.size() - pos > m && uint8_t(in[pos]) == uint8_t(entropy::Mode::kRaw);
    if (raw) {
      lit[k] = reinterpret_cast<const uint8_t*>(in.data() + pos + 1);
      pos += 1 + m;
      continue;
    }
    lits_[k].resize(m + 1);
    r = entropy::decode_stream(in.subspan(pos), m, 256, lits_[k].data(), &tables_);
    if (!r.ok()) return r;
    pos += *r;
    lits_[k][m] = 0;
    lit[k] = lits_[k].data();
  }
  exps_[m] = 0;
  if constexpr (sizeof(W) == 2) {  // one pass instead of join, expand and decode
    if (m < n &&
        zmask::expand_joined16(exps_.data(), lit[0], m, zbits_.data(), n, delta, out.data())) {
      return pos;
    }
  }
  if (m == n) {
    csplit::join<W>(n, exps_.data(), lit, out.data());
  } else {
    // Nonzero elements joined in one vectorised pass, then spread out by the mask (8 slots of
    // padding: the SIMD expansion reads a full vector past the last one).
    joined_.resize((m + 8) * sizeof(W));
    csplit::join<W>(m, exps_.data(), lit, joined_.data());
    zmask::expand<W>(reinterpret_cast<const W*>(joined_.data()), zbits_.data(), n, out.data());
  }
  if (delta) expdelta::decode<W>(out.data(), n, delta);
  return pos;
}

template <class W>
size_t Coder::split_all(const void* x, size_t n) {
  uint8_t* lits[3] = {lits_[0].data(), lits_[1].data(), lits_[2].data()};
  return csplit::split<W>(x, n, exps_.data(), lits, sample_hist_);
}

template Result<size_t> Coder::encode<uint16_t>(std::span<const std::byte>, std::span<std::byte>);
template Result<size_t> Coder::encode<uint32_t>(std::span<const std::byte>, std::span<std::byte>);
template Result<size_t> Coder::decode<uint16_t>(std::span<const std::byte>, std::span<std::byte>);
template Result<size_t> Coder::decode<uint32_t>(std::span<const std::byte>, std::span<std::byte>);

}  // namespace commlab::cblock
