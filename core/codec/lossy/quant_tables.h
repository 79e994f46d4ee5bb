#pragma once
// Lloyd-Max quantizers of the standard normal (EDEN's head alphabet) and their nested coarser
// reconstructions, so a head trimmed to its top k bit-planes still decodes to the best value the
// remaining bits allow (docs/formats.md ("Trimmable packets")).
#include <array>
#include <vector>

namespace commlab::trim {

inline constexpr int kMaxEdenBits = 4;

struct GaussianQuantizer {
  int bits = 0;
  // 2^bits - 1 ascending decision thresholds (midpoints of adjacent centroids); the cell index of z
  // is the number of thresholds strictly below z, so the top bit is the sign (threshold 0).
  std::vector<double> thresholds;
  // level[k], k = 0..bits: the 2^k reconstruction values when only the top k bits of the index are
  // known, E[Z | Z in the union of the cells sharing those bits]. level[bits] are the Lloyd-Max
  // centroids; level[0] = {0}.
  std::array<std::vector<double>, kMaxEdenBits + 1> level;
  // E[(Z - level[k][index >> (bits - k)])^2] for each k (the distortion D_k).
  std::array<double, kMaxEdenBits + 1> distortion{};
};

// bits in 1..4 (throws std::invalid_argument otherwise). Computed once by Lloyd's iteration in
// double precision (1: +-0.79788; 2: +-0.45278, +-1.51042; ...).
const GaussianQuantizer& lloyd_max_quantizer(int bits);

// vNMSE of the unbiased EDEN scale at large d: D / (1 - D) (EDEN, Vargaftik et al., ICML 2022).
double eden_unbiased_vnmse(int bits);

}  // namespace commlab::trim
