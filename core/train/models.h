#pragma once
// Model zoo by name, shaped after a dataset (input width, classes, sequence length).
#include <string>
#include <vector>

#include "train/dataset.h"
#include "train/model.h"

namespace commlab {

// "mlp" (hidden widths; default {256}: 784-256-10 has 203,530 parameters), "cnn", "transformer".
// Throws std::invalid_argument when the model does not fit the data.
Model make_model(const std::string& name, const Dataset& train, const std::vector<int>& hidden);

}  // namespace commlab
