#include <gtest/gtest.h>

#include "grad_check.h"
#include "numeric/rng.h"
#include "train/layer.h"
#include "train/model.h"

namespace commlab {
namespace {

Matrix random_matrix(int rows, int cols, uint64_t seed) {
  StreamRng r(CounterRng(seed, Purpose::kGenerator));
  Matrix m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = static_cast<float>(r.normal());
  return m;
}

std::vector<int32_t> labels(int n, int classes) {
  std::vector<int32_t> y(n);
  for (int i = 0; i < n; ++i) y[i] = (i * 7 + 3) % classes;
  return y;
}

TEST(GradientCheck, SoftmaxCrossEntropyGradientIsSoftmaxMinusOneHotOverN) {
  Matrix logits(2, 3);
  logits << 1, 2, 3, 0, 0, 0;
  std::vector<int32_t> y{2, 0};
  Matrix d;
  LossStats s = softmax_cross_entropy(logits, y, &d);
  // Row 0: p = softmax(1,2,3) = (0.0900, 0.2447, 0.6652); row 1: uniform 1/3.
  // loss = mean(-log 0.6652, -log(1/3)) = (0.40761 + 1.09861) / 2.
  EXPECT_NEAR(s.loss, (0.4076059644 + 1.0986122887) / 2, 1e-6);
  EXPECT_NEAR(d(0, 2), (0.6652409558 - 1) / 2, 1e-6);
  EXPECT_NEAR(d(1, 1), (1.0 / 3) / 2, 1e-6);
  EXPECT_EQ(s.correct, 2);  // argmax 2 for row 0 and the first of ties (0) for row 1
}

TEST(GradientCheck, LinearMatchesFiniteDifferences) {
  Model m;
  m.add(std::make_unique<Linear>(5, 4, "fc"));
  m.init(3);
  // Bias starts at zero; make it non-trivial so its gradient path is exercised with real values.
  for (float& p : m.layer(0).params()) p += 0.01f;
  test::expect_gradients_match(m, random_matrix(6, 5, 1), labels(6, 4));
}

TEST(GradientCheck, MlpWithReluMatchesFiniteDifferences) {
  // Checks Relu's and inner Linear's input gradients through the chain rule.
  Model m = make_mlp(6, {8, 7}, 3);
  m.init(5);
  test::expect_gradients_match(m, random_matrix(9, 6, 2), labels(9, 3));
}

TEST(GradientCheck, MlpParameterCountMatchesNetZipNote) {
  // 784*256 + 256 + 256*10 + 10 = 203,530.
  EXPECT_EQ(make_mlp(784, {256}, 10).num_params(), 203530u);
}

TEST(GradientCheck, FlopsCountEveryGemmExactly) {
  Model m = make_mlp(784, {256}, 10);
  // Forward: 2*B*(784*256 + 256*10); backward: dW for both layers + dx for the second only.
  const double b = 32;
  EXPECT_DOUBLE_EQ(m.forward_flops(32), 2 * b * (784 * 256 + 256 * 10));
  EXPECT_DOUBLE_EQ(m.backward_flops(32), 2 * b * (784 * 256 + 2 * 256 * 10));
}

}  // namespace
}  // namespace commlab
