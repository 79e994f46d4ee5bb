#include "codec/commlab_period.h"

#include <bit>

#include "codec/zero_mask.h"

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
