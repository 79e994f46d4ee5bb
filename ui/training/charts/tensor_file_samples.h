#pragma once
// The Codec page's tensor files: a .npy, .safetensors or raw file (or a directory of
// them, as commlab-cli codec --input reads them) measured like a run's buckets, one bucket per
// tensor, so the page's codec-ratio and byte-plane-entropy charts draw a checkpoint or a gradient
// dump next to nothing else. Tensors are read one at a time (io/tensor_files.h).
#include <string>
#include <vector>

#include "train/trainer.h"

namespace commlab::ui {

// The codec the page measures a file with: the project's lossless codec (all three dtypes).
inline constexpr const char* kTensorFileCodec = "commlab";

// One Sample (iteration 1) whose buckets are the tensors, in file order: name (the tensor's;
// "FILE: TENSOR" for a safetensors file of a directory), elements, ratio of `codec` (wire bytes /
// tensor bytes) and byte-plane entropy. Raw files are BF16. Throws std::invalid_argument with the
// file and offset of a malformed header, or a codec that cannot take a tensor.
std::vector<Sample> tensor_file_samples(const std::string& path,
                                        const std::string& codec = kTensorFileCodec);

}  // namespace commlab::ui
