#include "codec/lossy/quant_head.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "codec/lossy/quant_tables.h"
#include "io/status.h"
#include "numeric/rng.h"
#include "numeric/wht.h"

namespace commlab::trim {
namespace {

bool rotated(TrimEncoding e) {
  return e != TrimEncoding::kSq;
}

// Reconstruction alphabet (in units of the scale) of level k for DRIVE/EDEN.
const std::vector<double>& level_values(TrimEncoding e, int bits, int k) {
  static const std::vector<double> kSigns{-1.0, 1.0};
  return e == TrimEncoding::kDrive ? kSigns : lloyd_max_quantizer(bits).level[k];
}

// Writes bit (index >> shift) & 1 of every coordinate into one plane, LSB-first within a byte.
void write_plane(const uint8_t* index, size_t n, int shift, uint8_t* plane) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    unsigned byte = 0;
    for (int k = 0; k < 8; ++k) byte |= ((index[i + k] >> shift) & 1u) << k;
    plane[i >> 3] = static_cast<uint8_t>(byte);
  }
  if (i < n) {
    unsigned byte = 0;
    for (int k = 0; i + k < n; ++k) byte |= ((index[i + k] >> shift) & 1u) << k;
    plane[i >> 3] = static_cast<uint8_t>(byte);
  }
}

// index[i] = (index[i] << 1) | bit i of the plane, for i < n.
void read_plane(const uint8_t* plane, size_t n, uint8_t* index) {
  for (size_t i = 0; i < n; ++i) {
    index[i] = static_cast<uint8_t>((index[i] << 1) | ((plane[i >> 3] >> (i & 7)) & 1u));
  }
}

// Sum of squares and of absolute values in float lanes per 1024-element chunk, chunks in double:
// vectorisable without -ffast-math and accurate to ~1e-6 relative.
void norms(const float* v, size_t n, double& sum_sq, double& sum_abs) {
  sum_sq = 0.0;
  sum_abs = 0.0;
  for (size_t base = 0; base < n; base += 1024) {
    const size_t end = std::min(n, base + 1024);
    float sq[8] = {}, ab[8] = {};
    size_t i = base;
    for (; i + 8 <= end; i += 8) {
      for (int k = 0; k < 8; ++k) {
        sq[k] += v[i + k] * v[i + k];
        ab[k] += std::fabs(v[i + k]);
      }
    }
    for (; i < end; ++i) sq[0] += v[i] * v[i], ab[0] += std::fabs(v[i]);
    for (int k = 0; k < 8; ++k) sum_sq += sq[k], sum_abs += ab[k];
  }
}

// Plane of bits (y[i] > 0), LSB-first: the 1-bit head (sign of the rotated coordinate).
void pack_positive(const float* y, size_t n, uint8_t* plane) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128 zero = _mm_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    int lo = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(y + i), zero));
    int hi = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(y + i + 4), zero));
    plane[i >> 3] = static_cast<uint8_t>(lo | (hi << 4));
  }
#endif
  for (; i < n; i += 8) {
    unsigned byte = 0;
    for (size_t k = 0; k < 8 && i + k < n; ++k) byte |= unsigned{y[i + k] > 0.0f} << k;
    plane[i >> 3] = static_cast<uint8_t>(byte);
  }
}

// Returns true when it wrote the planes itself (the 1-bit fast path).
bool encode_rotated(std::span<const float> x, const PacketLayout& l, PacketHeader& h,
                    HeadScratch& s, uint8_t* planes) {
  const size_t d = l.head_coords;
  const int b = h.head_bits;
  s.y.assign(d, 0.0f);
  std::copy(x.begin(), x.end(), s.y.begin());
  double norm2 = 0.0, unused = 0.0;
  norms(x.data(), x.size(), norm2, unused);
  rht_forward(s.y, CounterRng(h.seed, Purpose::kRademacher).key());
  const float* y = s.y.data();
  if (b == 1) {
    double sq = 0.0, l1 = 0.0;
    norms(y, d, sq, l1);
    const double c = level_values(h.encoding, 1, 1)[1];
    // <R(x), Q> = c ||R(x)||_1 and ||Q||^2 = d c^2 for Q = c sign(R(x)).
    const double ip = l1 * c, nq = static_cast<double>(d) * c * c;
    const double scale = h.unbiased ? (ip > 0.0 ? norm2 / ip : 0.0) : (nq > 0.0 ? ip / nq : 0.0);
    h.scales[0] = static_cast<float>(scale);
    pack_positive(y, d, planes);
    return true;
  }
  s.index.resize(d);
  uint8_t* idx = s.index.data();
  {
    // Compare y against the thresholds scaled to y's units instead of normalising every z.
    const auto& t = lloyd_max_quantizer(b).thresholds;
    const double unit = std::sqrt(norm2 / static_cast<double>(d));
    float thr[15];
    for (size_t j = 0; j < t.size(); ++j) thr[j] = static_cast<float>(t[j] * unit);
    for (size_t i = 0; i < d; ++i) {
      unsigned c = 0;
      for (size_t j = 0; j < t.size(); ++j) c += y[i] > thr[j];
      idx[i] = static_cast<uint8_t>(c);
    }
  }
  // Per-cell sums of y and counts: every level's <y, Q_k> and ||Q_k||^2 follow from them, so the
  // b scales cost one pass instead of b.
  double cell_sum[16] = {};
  double cell_count[16] = {};
  for (size_t i = 0; i < d; ++i) {
    cell_sum[idx[i]] += y[i];
    cell_count[idx[i]] += 1.0;
  }
  for (int k = 1; k <= b; ++k) {
    const auto& c = level_values(h.encoding, b, k);
    const int shift = b - k;
    double ip = 0.0, nq = 0.0;
    for (int cell = 0; cell < (1 << b); ++cell) {
      double q = c[cell >> shift];
      ip += q * cell_sum[cell];
      nq += q * q * cell_count[cell];
    }
    // Unbiased: S = ||x||^2 / <R(x), Q>; min-MSE: S = <R(x), Q> / ||Q||^2.
    double scale = h.unbiased ? (ip > 0.0 ? norm2 / ip : 0.0) : (nq > 0.0 ? ip / nq : 0.0);
    h.scales[k - 1] = static_cast<float>(scale);
  }
  return false;
}

void encode_sq(std::span<const float> x, PacketHeader& h, HeadScratch& s) {
  const int b = h.head_bits;
  const unsigned top = (1u << b) - 1;
  float mn = x[0], mx = x[0];
  for (float v : x) {
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  float step = (mx - mn) / static_cast<float>(top);
  if (!std::isfinite(mn) || !std::isfinite(step)) mn = 0.0f, step = 0.0f;
  s.index.resize(x.size());
  uint8_t* idx = s.index.data();
  const CounterRng rng(h.seed, Purpose::kStochasticRound);
  if (step > 0.0f) {
    const double inv = 1.0 / step;
    for (size_t i = 0; i < x.size(); ++i) {
      double t = (static_cast<double>(x[i]) - mn) * inv;
      if (!(t >= 0.0)) t = 0.0;  // also catches NaN
      double fl = std::floor(t);
      // Bernoulli rounding: up with probability t - floor(t), so E[value] = x.
      double v = fl + (rng.uniform(i) < t - fl ? 1.0 : 0.0);
      idx[i] = static_cast<uint8_t>(std::min<double>(v, top));
    }
  } else {
    std::fill(idx, idx + x.size(), uint8_t{0});
  }
  h.scales[0] = mn;
  h.scales[1] = step;
}

}  // namespace

void encode_head(std::span<const float> x, const PacketLayout& l, PacketHeader& h,
                 std::span<std::byte> planes, HeadScratch& s) {
  auto* out = reinterpret_cast<uint8_t*>(planes.data());
  if (rotated(h.encoding)) {
    if (encode_rotated(x, l, h, s, out)) return;
  } else {
    encode_sq(x, h, s);
  }
  for (int p = 0; p < h.head_bits; ++p) {
    write_plane(s.index.data(), l.head_coords, h.head_bits - 1 - p, out + p * l.plane);
  }
}

void decode_head(const PacketHeader& h, const PacketLayout& l, std::span<const std::byte> planes,
                 std::span<float> out, HeadScratch& s) {
  const int b = h.head_bits;
  const size_t n = l.head_coords;
  const size_t avail = std::min(planes.size(), l.planes * l.plane);
  const size_t full = std::min<size_t>(b, avail / l.plane);
  const size_t partial =
      full < static_cast<size_t>(b) ? std::min(n, (avail - full * l.plane) * 8) : 0;
  s.index.assign(n, 0);
  const auto* in = reinterpret_cast<const uint8_t*>(planes.data());
  for (size_t p = 0; p < full; ++p) read_plane(in + p * l.plane, n, s.index.data());
  if (partial > 0) read_plane(in + full * l.plane, partial, s.index.data());

  // values[k][g]: the reconstruction of a coordinate that holds the top k bits g.
  float values[2][256];
  auto fill_level = [&](int k, float* v) {
    const unsigned groups = 1u << k;
    if (rotated(h.encoding)) {
      if (k == 0) {
        v[0] = 0.0f;  // no information: the rotated coordinate's mean over signs
        return;
      }
      const auto& c = level_values(h.encoding, b, k);
      for (unsigned g = 0; g < groups; ++g) v[g] = static_cast<float>(h.scales[k - 1] * c[g]);
    } else {
      // SQ: midpoint of the 2^(b-k) grid points the top k bits leave open.
      const double width = static_cast<double>(1u << (b - k));
      for (unsigned g = 0; g < groups; ++g) {
        v[g] = static_cast<float>(h.scales[0] + h.scales[1] * (g * width + (width - 1) * 0.5));
      }
    }
  };
  fill_level(static_cast<int>(full), values[0]);
  if (partial > 0) fill_level(static_cast<int>(full) + 1, values[1]);

  float* dst;
  if (rotated(h.encoding)) {
    s.y.resize(n);
    dst = s.y.data();
  } else {
    dst = out.data();
  }
  const uint8_t* idx = s.index.data();
  for (size_t i = 0; i < partial; ++i) dst[i] = values[1][idx[i]];
  for (size_t i = partial; i < n; ++i) dst[i] = values[0][idx[i]];
  if (rotated(h.encoding)) {
    rht_inverse(s.y, CounterRng(h.seed, Purpose::kRademacher).key());
    std::copy(s.y.begin(), s.y.begin() + static_cast<std::ptrdiff_t>(out.size()), out.begin());
  }
}

double sq_expected_error(std::span<const float> x, size_t packet_coords, int head_bits,
                         int keep_bits) {
  if (head_bits < 1 || head_bits > 8 || keep_bits < 1 || keep_bits > head_bits)
    throw bad_input("sq_expected_error: head_bits must be 1..8 and keep_bits 1.." +
                    std::to_string(head_bits) + ", got " + std::to_string(head_bits) + " and " +
                    std::to_string(keep_bits));
  if (packet_coords == 0) packet_coords = std::max<size_t>(x.size(), 1);  // one packet
  const unsigned top = (1u << head_bits) - 1;
  const double width = static_cast<double>(1u << (head_bits - keep_bits));
  double total = 0.0;
  for (size_t begin = 0; begin < x.size(); begin += packet_coords) {
    const std::span<const float> p = x.subspan(begin, std::min(packet_coords, x.size() - begin));
    float lo = p[0], hi = p[0];
    for (float v : p) lo = std::min(lo, v), hi = std::max(hi, v);
    const float step = (hi - lo) / static_cast<float>(top);  // as encode_sq computes it
    if (!(step > 0.0f)) continue;                            // all equal: decoded exactly
    // The decoded value of grid index c: the midpoint of its group of 2^(b-k) points.
    auto decoded = [&](double c) {
      const double group = std::floor(c / width);
      return static_cast<double>(lo) +
             static_cast<double>(step) * (group * width + (width - 1) * 0.5);
    };
    for (float v : p) {
      const double t = std::max(0.0, (static_cast<double>(v) - lo) / step);
      const double fl = std::min(std::floor(t), static_cast<double>(top));
      const double up = std::min(fl + 1, static_cast<double>(top)), frac = t - fl;
      const double e_up = decoded(up) - v, e_down = decoded(fl) - v;
      total += frac * e_up * e_up + (1 - frac) * e_down * e_down;
    }
  }
  return total;
}

}  // namespace commlab::trim
