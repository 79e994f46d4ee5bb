#include <gtest/gtest.h>

#include <cmath>

#include "grad_check.h"
#include "numeric/rng.h"
#include "train/layers/conv.h"
#include "train/layers/layer.h"
#include "train/layers/transformer.h"
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

namespace commlab {
namespace {

Matrix tokens(int rows, int seq, int vocab) {
  Matrix x(rows, seq);
  for (int i = 0; i < rows; ++i)
    for (int t = 0; t < seq; ++t) x(i, t) = static_cast<float>((i * 5 + t * 3 + 1) % vocab);
  return x;
}

TEST(GradientCheck, ConvAndMaxPoolMatchFiniteDifferences) {
  // conv(pad 1, 2 -> 3 channels) - relu - pool - conv(valid) - linear: checks im2col/col2im with
  // padding, pooling's routing, and the channel-last layout through the chain.
  Model m;
  auto c1 = std::make_unique<Conv2d>(ImageShape{6, 6, 2}, 3, 3, 1, "conv1");
  m.add(std::move(c1));
  m.add(std::make_unique<Relu>("relu"));
  m.add(std::make_unique<MaxPool2d>(ImageShape{6, 6, 3}, "pool"));
  auto c2 = std::make_unique<Conv2d>(ImageShape{3, 3, 3}, 2, 2, 0, "conv2");
  const int flat = c2->out_shape().size();
  m.add(std::move(c2));
  m.add(std::make_unique<Linear>(flat, 4, "fc"));
  m.init(11);
  for (size_t l = 0; l < m.num_layers(); ++l)
    for (float& p : m.layer(l).params()) p += 0.02f;  // non-zero biases
  test::expect_gradients_match(m, random_matrix(3, 72, 4), labels(3, 4), 60);
}

TEST(GradientCheck, ConvOutputMatchesDirectConvolution) {
  // One 3x3 kernel of ones with pad 1 on a 3x3 image of 1..9: the centre output is the sum 45,
  // the corner (0,0) sums pixels 1,2,4,5 = 12.
  Conv2d conv(ImageShape{3, 3, 1}, 1, 3, 1, "c");
  std::fill(conv.params().begin(), conv.params().end(), 1.0f);
  conv.params()[9] = 0.0f;  // bias
  Matrix x(1, 9), y;
  for (int i = 0; i < 9; ++i) x(0, i) = static_cast<float>(i + 1);
  conv.forward(x, y);
  EXPECT_FLOAT_EQ(y(0, 4), 45.0f);
  EXPECT_FLOAT_EQ(y(0, 0), 12.0f);
}

TEST(GradientCheck, TransformerLayersMatchFiniteDifferences) {
  // Embedding, two pre-LN blocks (causal attention, 2 heads), final LayerNorm, head.
  const int vocab = 7, seq = 5;
  Model m = make_transformer(vocab, seq, 8, 2, 2, 12);
  m.init(13);
  // GPT-style N(0, 0.02^2) embeddings make LayerNorm so curved that central differences need
  // eps <= 1e-4, close to float resolution of the loss; at unit scale eps = 1e-3 is accurate.
  for (float& p : m.layer(0).params()) p *= 50;
  for (size_t l = 1; l < m.num_layers(); ++l) {
    auto p = m.layer(l).params();
    for (size_t i = 0; i < p.size(); ++i) p[i] += 0.05f * std::sin(static_cast<float>(i));
  }
  std::vector<int32_t> y(3 * seq);
  for (size_t i = 0; i < y.size(); ++i) y[i] = (i * 3 + 2) % vocab;
  test::expect_gradients_match(m, tokens(3, seq, vocab), y, 80, 1e-3, 2e-2);
}

TEST(GradientCheck, CausalAttentionIgnoresTheFuture) {
  // Changing the last token must not change the logits of earlier positions.
  const int vocab = 6, seq = 4;
  Model m = make_transformer(vocab, seq, 8, 2, 1, 16);
  m.init(2);
  Matrix x = tokens(1, seq, vocab);
  const Matrix before = m.forward(x);
  x(0, seq - 1) = static_cast<float>((static_cast<int>(x(0, seq - 1)) + 1) % vocab);
  const Matrix after = m.forward(x);
  EXPECT_EQ(before.topRows(seq - 1), after.topRows(seq - 1));
  EXPECT_NE(before.row(seq - 1), after.row(seq - 1));
}

}  // namespace
}  // namespace commlab
