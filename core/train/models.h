#pragma once
// Model zoo by name, shaped after a dataset (input width, classes, sequence length).
#include <string>
#include <vector>

#include "train/dataset.h"
#include "train/model.h"

namespace commlab {

// "mlp" (hidden widths; default {256}: 784-256-10 has 203,530 parameters), "cnn" (square
// single-channel images), "transformer" (text data; hidden[0] is the width, default 64, 4 heads,
// 2 blocks).
// Throws std::invalid_argument when the model does not fit the data.
Model make_model(const std::string& name, const Dataset& train, const std::vector<int>& hidden);

}  // namespace commlab
