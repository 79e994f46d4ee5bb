#pragma once
// The Codec page's tensor files: a .npy, .safetensors or raw file (or a directory of
// them, as commlab-cli codec --input reads them) measured like a run's buckets, one bucket per
// tensor, so the page's codec-ratio and byte-plane-entropy charts draw a checkpoint or a gradient
// dump next to nothing else. Tensors are read one at a time (io/tensor_files.h).
#include <string>
#include <vector>

#include "io/tensor_files.h"
#include "train/trainer.h"

namespace commlab::ui {

// The codec the page measures a file with: the project's lossless codec (all three dtypes).
inline constexpr const char* kTensorFileCodec = "commlab";

// The page's item budgets (io/tensor_files.h, as commlab-cli codec --max-files/--max-tensors
// applies them): every tensor is a bar set of the entropy chart and a bar of the ratio chart, so
// the charts' cost grows with the tensors (10,000 one-value tensors take 104 s and 416 MB); more is
// refused before any value is read, with the count and the budget.
TensorInputBudgets tensor_file_page_budgets();

// One Sample (iteration 1) whose buckets are the tensors, in file order: name (the tensor's;
// "FILE: TENSOR" for a safetensors file of a directory), elements, ratio of `codec` (wire bytes /
// tensor bytes) and byte-plane entropy. Raw files are BF16. Throws std::invalid_argument with the
// file and offset of a malformed header, an input over `budgets`, or a codec that cannot take a
// tensor.
std::vector<Sample> tensor_file_samples(
    const std::string& path, const std::string& codec = kTensorFileCodec,
    const TensorInputBudgets& budgets = tensor_file_page_budgets());

}  // namespace commlab::ui
