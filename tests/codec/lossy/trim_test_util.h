#pragma once
// Helpers shared by the trimming tests.
#include <cstddef>
#include <span>
#include <vector>

#include "codec/lossy/trim_packet.h"
#include "numeric/rng.h"

namespace commlab::trim::testing {

inline std::vector<float> gaussian(size_t n, uint64_t seed) {
  StreamRng rng(CounterRng(seed, Purpose::kGenerator));
  std::vector<float> x(n);
  for (float& v : x) v = static_cast<float>(rng.normal());
  return x;
}

inline double sq_norm(std::span<const float> x) {
  double s = 0;
  for (float v : x) s += double(v) * v;
  return s;
}

inline double sq_dist(std::span<const float> a, std::span<const float> b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return s;
}

// Every packet cut to `bits` head bits per coordinate.
inline std::vector<std::span<const std::byte>> trim_all(
    const std::vector<std::vector<std::byte>>& packets, int bits) {
  std::vector<std::span<const std::byte>> out;
  for (const auto& p : packets) out.emplace_back(p.data(), *packet_trim_size(p, bits));
  return out;
}

inline std::vector<std::span<const std::byte>> whole(
    const std::vector<std::vector<std::byte>>& packets) {
  return {packets.begin(), packets.end()};
}

}  // namespace commlab::trim::testing
