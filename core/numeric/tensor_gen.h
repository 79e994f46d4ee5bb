#pragma once
// Synthetic tensors that look like training gradients, for codec studies when no real tensor is at
// hand. Values are scaled like gradients (std ~1e-3) so that BF16/FP16 exponent statistics resemble
// real traffic, which is what lossless codecs feed on.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace commlab {

// Standard deviation of every generated distribution (before sparsification).
inline constexpr double kGeneratorStd = 1e-3;

// dist: "gaussian", "laplace", "student-t" (nu = 3), or "sparse:F" with F in [0, 1] (each element
// is an exact zero with probability F, else gaussian). Element i is a pure function of (seed, i)
// via the counter-based RNG, so the result never depends on thread count. Throws
// std::invalid_argument for an unknown distribution or a bad sparse fraction.
std::vector<float> generate_tensor(std::string_view dist, size_t count, uint64_t seed);
// Elements [first, first + count) of that tensor: a tensor of any size generated block by block
// is the tensor generated at once.
std::vector<float> generate_tensor_range(std::string_view dist, uint64_t first, size_t count,
                                         uint64_t seed);

// Throws the same std::invalid_argument as generate_tensor if `dist` is not a known distribution.
void validate_distribution(std::string_view dist);

}  // namespace commlab
