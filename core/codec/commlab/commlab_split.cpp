#include "codec/commlab/commlab_split.h"

#include <algorithm>
#include <cstring>

#include "codec/cpu_features.h"

namespace commlab::csplit {
namespace {

template <class W>
using Unaligned [[gnu::aligned(1)]] = W;

// BF16/FP16: the zeros are counted in chunks of 4096 so the counter stays as narrow as the
// elements (a 64-bit counter costs the loop half its speed), and each chunk's every 8th literal
// byte is counted while the chunk is in L1. FP32: chunking and sampling measured slower (four
// output streams).
template <class W>
[[gnu::always_inline]] inline size_t split_body(const void* xv, size_t n, uint8_t* __restrict e,
                                                uint8_t* const* lits, uint32_t* sample_hist) {
  const Unaligned<W>* __restrict x = static_cast<const Unaligned<W>*>(xv);
  uint8_t* __restrict l0 = lits[0];
  size_t zeros = 0;
  if constexpr (sizeof(W) == 2) {
    std::memset(sample_hist, 0, 256 * sizeof(uint32_t));
    for (size_t c = 0; c < n; c += 4096) {
      const size_t end = std::min(n, c + 4096);
      uint16_t z = 0;
      for (size_t i = c; i < end; ++i) {
        e[i] = uint8_t((x[i] >> 7) & 0xff);
        l0[i] = uint8_t(((x[i] >> 8) & 0x80) | (x[i] & 0x7f));
        z += uint16_t(x[i] == 0);
      }
      zeros += z;
      for (size_t i = c; i < end; i += 8) sample_hist[l0[i]]++;
    }
  } else {
    uint8_t* __restrict l1 = lits[1];
    uint8_t* __restrict l2 = lits[2];
    for (size_t i = 0; i < n; ++i) {
      e[i] = uint8_t((x[i] >> 23) & 0xff);
      l0[i] = uint8_t(((x[i] >> 24) & 0x80) | ((x[i] >> 16) & 0x7f));
      l1[i] = uint8_t(x[i] >> 8);
      l2[i] = uint8_t(x[i]);
      zeros += x[i] == 0;
    }
  }
  return zeros;
}

template <class W>
[[gnu::always_inline]] inline void join_body(size_t n, const uint8_t* __restrict e,
                                             const uint8_t* const* lits, void* out) {
  Unaligned<W>* __restrict o = static_cast<Unaligned<W>*>(out);
  const uint8_t* __restrict l0 = lits[0];
  if constexpr (sizeof(W) == 2) {
    for (size_t q = 0; q < n; ++q) {
      const uint32_t l = l0[q];
      o[q] = W(((l & 0x80) << 8) | (uint32_t(e[q]) << 7) | (l & 0x7f));
    }
  } else {
    const uint8_t* __restrict l1 = lits[1];
    const uint8_t* __restrict l2 = lits[2];
    for (size_t q = 0; q < n; ++q) {
      const uint32_t l = l0[q];
      o[q] = ((l & 0x80) << 24) | (uint32_t(e[q]) << 23) | ((l & 0x7f) << 16) |
             (uint32_t(l1[q]) << 8) | l2[q];
    }
  }
}

template <class W>
__attribute__((target("avx2"))) size_t split_avx2(const void* x, size_t n, uint8_t* e,
                                                  uint8_t* const* lits, uint32_t* hist) {
  return split_body<W>(x, n, e, lits, hist);
}
template <class W>
size_t split_base(const void* x, size_t n, uint8_t* e, uint8_t* const* lits, uint32_t* hist) {
  return split_body<W>(x, n, e, lits, hist);
}
template <class W>
__attribute__((target("avx2"))) void join_avx2(size_t n, const uint8_t* e,
                                               const uint8_t* const* lits, void* out) {
  join_body<W>(n, e, lits, out);
}
template <class W>
void join_base(size_t n, const uint8_t* e, const uint8_t* const* lits, void* out) {
  join_body<W>(n, e, lits, out);
}

const bool kAvx2 = cpu_features().avx2;

}  // namespace

template <class W>
size_t split(const void* x, size_t n, uint8_t* e, uint8_t* const* lits, uint32_t* sample_hist) {
  return kAvx2 ? split_avx2<W>(x, n, e, lits, sample_hist)
               : split_base<W>(x, n, e, lits, sample_hist);
}

template <class W>
void join(size_t n, const uint8_t* e, const uint8_t* const* lits, void* out) {
  kAvx2 ? join_avx2<W>(n, e, lits, out) : join_base<W>(n, e, lits, out);
}

template size_t split<uint16_t>(const void*, size_t, uint8_t*, uint8_t* const*, uint32_t*);
template size_t split<uint32_t>(const void*, size_t, uint8_t*, uint8_t* const*, uint32_t*);
template void join<uint16_t>(size_t, const uint8_t*, const uint8_t* const*, void*);
template void join<uint32_t>(size_t, const uint8_t*, const uint8_t* const*, void*);

}  // namespace commlab::csplit
