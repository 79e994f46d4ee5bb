#pragma once
// Real gradient values of a model of the zoo, for measuring codecs on what data parallelism
// really all-reduces (`commlab-cli codec --generate model:NAME`, catalog runs' tensor_source
// model:NAME, codec benchmarks): the model is trained kWarmSteps SGD steps (batch kBatch, rows in
// file order, init from `seed`) on Fashion-MNIST, or on synthetic blobs when the data set is not
// installed (MLP only), and the flat gradient of the next batch is returned.
#include <cstdint>
#include <string>
#include <vector>

namespace commlab {

struct ModelGradients {
  std::vector<float> values;
  std::string note;  // non-empty when a fallback was taken (e.g. blobs instead of Fashion-MNIST)
};

// NAME = mlp or cnn. Throws std::invalid_argument for an unknown model, or for a model that
// needs Fashion-MNIST when it is not installed.
ModelGradients model_gradients(const std::string& name, uint64_t seed);

}  // namespace commlab
