#include "train/layers/model_gradients.h"

#include <stdexcept>

#include "io/status.h"
#include "train/data/synthetic.h"
#include "train/dataset.h"
#include "train/models.h"
#include "train/optimizer.h"

namespace commlab {

ModelGradients model_gradients(const std::string& name, uint64_t seed) {
  constexpr int kWarmSteps = 20, kBatch = 64;
  ModelGradients out;
  Result<TrainTest> fmnist = load_fashion_mnist(kFashionMnistDir, (kWarmSteps + 1) * kBatch, 1);
  TrainTest data;
  if (fmnist.ok()) {
    data = std::move(*fmnist);
  } else if (name == "mlp") {
    out.note = "Fashion-MNIST not found (" + fmnist.error() +
               "); model:mlp trains on synthetic blobs instead";
    SyntheticConfig c;
    c.kind = SyntheticKind::kBlobs;
    c.seed = seed;
    data = make_synthetic(c);
  } else {
    throw bad_input("model:" + name + ": " + fmnist.error());
  }
  Model model;
  try {
    model = make_model(name, data.train, {});
  } catch (const std::invalid_argument& e) {
    throw bad_input("model:" + name + ": " + e.what() + " (use model:mlp or model:cnn)");
  }
  model.init(seed);
  Optimizer opt(OptimizerConfig{});
  Matrix x;
  std::vector<int32_t> y;
  std::vector<int32_t> rows(kBatch);
  for (int step = 0; step <= kWarmSteps; ++step) {
    for (int i = 0; i < kBatch; ++i) rows[i] = (step * kBatch + i) % data.train.rows();
    gather_batch(data.train, rows, x, y);
    model.forward_backward(x, y);
    if (step < kWarmSteps) opt.step(model, OptimizerConfig{}.lr);
  }
  out.values = model.flat_grads();
  return out;
}

}  // namespace commlab
