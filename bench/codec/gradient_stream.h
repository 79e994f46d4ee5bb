#pragma once
// Real BF16 gradient bytes of any size for the codec benchmarks: the Fashion-MNIST MLP
// (784-256-10, 203,530 values) trained by SGD from seed 1, its flat gradient taken at every step
// from step 20 on and concatenated (the first 203,530 values are `model:mlp`'s gradient), cut to
// the requested size. Successive steps' gradients are distinct batches, so a 64 MiB buffer has
// no repeats a long-window compressor could exploit.
#include <cstddef>
#include <string>
#include <vector>

namespace commlab {

// `bytes` of BF16 gradient (bytes even); empty with `note` set when Fashion-MNIST is missing.
std::vector<std::byte> mlp_gradient_stream(size_t bytes, std::string& note);

}  // namespace commlab
