#include "gradient_stream.h"

#include <algorithm>
#include <cstring>

#include "codec/value_cast.h"
#include "train/dataset.h"
#include "train/models.h"
#include "train/optimizer.h"

namespace commlab {

std::vector<std::byte> mlp_gradient_stream(size_t bytes, std::string& note) {
  // The same set-up as model_gradients("mlp", 1): batch 64, rows in file order, 20 warm steps.
  constexpr int kWarmSteps = 20, kBatch = 64;
  const size_t per_step = 203530 * 2;
  const int steps = kWarmSteps + int((bytes + per_step - 1) / per_step);
  Result<TrainTest> data = load_fashion_mnist(kFashionMnistDir, steps * kBatch, 1);
  if (!data.ok()) {
    note = data.error();
    return {};
  }
  Model model = make_model("mlp", data->train, {});
  model.init(1);
  Optimizer opt(OptimizerConfig{});
  Matrix x;
  std::vector<int32_t> y;
  std::vector<int32_t> rows(kBatch);
  std::vector<std::byte> out;
  out.reserve(bytes + per_step);
  for (int step = 0; out.size() < bytes; ++step) {
    for (int i = 0; i < kBatch; ++i) rows[i] = (step * kBatch + i) % data->train.rows();
    gather_batch(data->train, rows, x, y);
    model.forward_backward(x, y);
    if (step >= kWarmSteps) {
      const std::vector<std::byte> g = to_dtype_bytes(model.flat_grads(), DType::kBf16);
      out.insert(out.end(), g.begin(), g.end());
    }
    opt.step(model, OptimizerConfig{}.lr);
  }
  out.resize(bytes & ~size_t(1));
  return out;
}

}  // namespace commlab
