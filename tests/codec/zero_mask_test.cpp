// Zero masks of the commlab codec: the bit-vector period transform against a bit-by-bit reference,
// and compact/expand (SSSE3 where the CPU has it) against the obvious element loop.
#include "codec/commlab/zero_mask.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "codec/commlab/commlab_split.h"
#include "codec/commlab/exponent_delta.h"
#include "numeric/rng.h"

namespace commlab::zmask {
namespace {

std::vector<uint64_t> random_bits(size_t n, double density, uint64_t seed) {
  CounterRng rng(seed, Purpose::kCodec);
  std::vector<uint64_t> b(words(n) + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    if (rng.uniform(i) < density) b[i >> 6] |= uint64_t(1) << (i & 63);
  }
  return b;
}

TEST(ZeroMask, PeriodTransformMatchesTheBitLoopAndInvertsExactly) {
  // Periods below, at and above one word, and lengths that end mid-word.
  for (size_t n : {size_t(1), size_t(63), size_t(64), size_t(1000), size_t(4097)}) {
    for (size_t p : {size_t(1), size_t(2), size_t(3), size_t(31), size_t(63), size_t(64),
                     size_t(65), size_t(130), size_t(999)}) {
      if (p >= n) continue;
      SCOPED_TRACE(testing::Message() << "n=" << n << " p=" << p);
      auto b = random_bits(n, 0.3, n * 1000 + p);
      // r[i] = b[i] ^ b[i - p] (i >= p), computed one bit at a time.
      std::vector<uint64_t> expect(b.size(), 0), r(b.size(), 0);
      for (size_t i = 0; i < n; ++i) {
        bool v = test(b.data(), i) ^ (i >= p && test(b.data(), i - p));
        expect[i >> 6] |= uint64_t(v) << (i & 63);
      }
      diff_period(b.data(), n, p, r.data());
      EXPECT_EQ(r, expect);
      undiff_period(r.data(), n, p);
      EXPECT_EQ(r, b);
    }
  }
}

TEST(ZeroMask, CountIsThePopulationCount) {
  auto b = random_bits(777, 0.5, 3);
  size_t ones = 0;
  for (size_t i = 0; i < 777; ++i) ones += test(b.data(), i);
  EXPECT_EQ(count(b.data(), 777), ones);
}

template <class W>
void check_compact_expand(size_t n, double zero_fraction, uint64_t seed) {
  CounterRng rng(seed, Purpose::kCodec);
  std::vector<W> x(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = rng.uniform(i) < zero_fraction ? W(0) : W(1 + rng.below(i + n, 60000));
  }
  std::vector<W> nz(n + 8);
  std::vector<uint64_t> bits(words(n) + 1, ~uint64_t(0));
  size_t m = compact<W>(reinterpret_cast<const std::byte*>(x.data()), n, nz.data(), bits.data());
  // The nonzeros in order, and bit i set exactly for the zeros.
  std::vector<W> expect_nz;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(test(bits.data(), i), x[i] == 0) << i;
    if (x[i]) expect_nz.push_back(x[i]);
  }
  ASSERT_EQ(m, expect_nz.size());
  EXPECT_TRUE(std::equal(expect_nz.begin(), expect_nz.end(), nz.begin()));
  if (n % 64) EXPECT_EQ(bits[words(n) - 1] >> (n % 64), 0u);  // no bits past n
  std::vector<W> back(n + 1, W(0x5a5a));
  expand<W>(nz.data(), bits.data(), n, reinterpret_cast<std::byte*>(back.data()));
  EXPECT_EQ(back[n], W(0x5a5a));  // nothing written past n elements
  back.resize(n);
  EXPECT_EQ(back, x);
}

TEST(ZeroMask, CompactThenExpandRestoresEveryElement) {
  for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(9), size_t(64), size_t(1001)}) {
    for (double f : {0.0, 0.5, 1.0}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " f=" << f);
      check_compact_expand<uint16_t>(n, f, n + 1);
      check_compact_expand<uint32_t>(n, f, n + 2);
    }
  }
}

TEST(ZeroMask, FusedExpandEqualsJoinExpandAndDecode) {
  // Lengths that end mid-group, prediction distances below, at, across and far past a group of
  // eight, zero fractions from none to almost all.
  for (size_t n : {size_t(9), size_t(100), size_t(1003), size_t(4096)}) {
    for (uint32_t q : {0u, 16u, 17u, 21u, 256u, 999u}) {
      for (double f : {0.0, 0.3, 0.9}) {
        if (q >= n) continue;
        SCOPED_TRACE(testing::Message() << "n=" << n << " q=" << q << " f=" << f);
        auto bits = random_bits(n, f, n + q);
        const size_t m = n - count(bits.data(), n);
        CounterRng rng(q + 7, Purpose::kCodec);
        std::vector<uint8_t> e(m + 1), l(m + 1);  // exps_ has one slot past m, raw literals none
        for (size_t k = 0; k < m; ++k) e[k] = uint8_t(rng.below(k, 256)), l[k] = uint8_t(k * 37);
        std::vector<uint16_t> joined(m + 8), expect(n), got(n + 1, 0x5a5a);
        const uint8_t* lits[1] = {l.data()};
        csplit::join<uint16_t>(m, e.data(), lits, joined.data());
        expand<uint16_t>(joined.data(), bits.data(), n,
                         reinterpret_cast<std::byte*>(expect.data()));
        if (q) expdelta::decode<uint16_t>(reinterpret_cast<std::byte*>(expect.data()), n, q);
        if (!expand_joined16(e.data(), l.data(), m, bits.data(), n, q,
                             reinterpret_cast<std::byte*>(got.data()))) {
          GTEST_SKIP() << "no AVX2";
        }
        EXPECT_EQ(got[n], 0x5a5a);  // nothing written past n elements
        got.resize(n);
        EXPECT_EQ(got, expect);
      }
    }
  }
}

}  // namespace
}  // namespace commlab::zmask
