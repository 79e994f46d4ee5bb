#include <gtest/gtest.h>

#include <filesystem>

#include "train/trainer.h"

namespace commlab {
namespace {

// The MLP reaches at least 85% test accuracy on Fashion-MNIST (784-256-10, SGD momentum,
// global batch 128 over 4 ranks; ~2 epochs at most, stops as soon as it gets there).
TEST(Convergence, MlpReaches85PercentOnFashionMnist) {
  if (!std::filesystem::exists(kFashionMnistDir)) GTEST_SKIP() << "dataset-fashion-mnist missing";
  auto data = load_fashion_mnist();
  ASSERT_TRUE(data.ok()) << data.error();
  TrainerConfig c;
  c.ranks = 4;
  c.global_batch = 128;
  c.iterations = 2 * 60000 / 128;
  c.eval_every = 100;
  c.optimizer.lr = 0.05;
  c.optimizer.momentum = 0.9;
  ExactAverageReducer reducer;
  DataParallelTrainer t(make_mlp(784, {256}, 10), data.value().train, data.value().test, c,
                        reducer);
  std::atomic<bool> done{false};
  double best = 0;
  t.run(
      [&](const Sample& s) {
        if (!s.evaluated()) return;
        best = std::max(best, s.test_accuracy);
        done = best >= 0.85;
      },
      &done);
  EXPECT_GE(best, 0.85);
}

}  // namespace
}  // namespace commlab
