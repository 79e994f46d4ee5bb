#pragma once
// A small character-level GPT: token + position embedding, pre-LayerNorm blocks with causal
// multi-head attention and a ReLU MLP, a final LayerNorm and a linear head. Rows of the
// activations are tokens: a batch of B sequences of length T is (B*T) x d from the embedding on.
#include "train/layers/layer.h"
#include "train/model.h"

namespace commlab {

// x rows are T token ids (as floats); y = tok[id] + pos[t], one row per token. params = [tok, pos].
class Embedding final : public Layer {
 public:
  std::string kind() const override { return "embedding"; }
  Embedding(int vocab, int seq, int dim, std::string name);
  std::string name() const override { return name_; }
  void forward(const Matrix& x, Matrix& y) override;
  void backward(const Matrix& dy, Matrix* dx) override;  // dx unused: ids have no gradient
  void init(const CounterRng& rng) override;             // N(0, 0.02^2), as GPT-2
  std::unique_ptr<Layer> clone() const override { return std::make_unique<Embedding>(*this); }
  double forward_flops(int) const override { return 0; }
  double backward_flops(int, bool) const override { return 0; }

 private:
  int vocab_, seq_, dim_;
  std::string name_;
  std::vector<int32_t> ids_;
};

// LayerNorm of every row: y = xhat * gamma + beta, xhat = (x - mean) / sqrt(var + 1e-5).
void layer_norm_forward(const Matrix& x, const float* gamma, const float* beta, Matrix& y,
                        Matrix& xhat, Eigen::VectorXf& inv_std);
// Adds dgamma, dbeta into dgamma/dbeta and writes dx.
void layer_norm_backward(const Matrix& dy, const float* gamma, const Matrix& xhat,
                         const Eigen::VectorXf& inv_std, float* dgamma, float* dbeta, Matrix& dx);

// Per-row LayerNorm with scale and shift; params = [gamma, beta].
class LayerNorm final : public Layer {
 public:
  std::string kind() const override { return "norm"; }
  LayerNorm(int dim, std::string name);
  std::string name() const override { return name_; }
  void forward(const Matrix& x, Matrix& y) override;
  void backward(const Matrix& dy, Matrix* dx) override;
  void init(const CounterRng& rng) override;
  std::unique_ptr<Layer> clone() const override { return std::make_unique<LayerNorm>(*this); }
  double forward_flops(int rows) const override { return 8.0 * rows * dim_; }

 private:
  int dim_;
  std::string name_;
  Matrix xhat_;
  Eigen::VectorXf inv_std_;
};

// x + attn(ln1(x)), then h + mlp(ln2(h)). One block = one gradient bucket.
class TransformerBlock final : public Layer {
 public:
  // ln1 and ln2 "norm", QKV and output projection "attention", the two MLP matrices "mlp".
  std::vector<ParamSegment> param_segments() const override;
  TransformerBlock(int dim, int heads, int seq, int ffn, std::string name);
  std::string name() const override { return name_; }
  void forward(const Matrix& x, Matrix& y) override;
  void backward(const Matrix& dy, Matrix* dx) override;
  void init(const CounterRng& rng) override;
  std::unique_ptr<Layer> clone() const override {
    return std::make_unique<TransformerBlock>(*this);
  }
  double forward_flops(int rows) const override;

 private:
  struct Offsets {
    size_t ln1, wqkv, bqkv, wo, bo, ln2, w1, b1, w2, b2, total;
  };
  int dim_, heads_, seq_, ffn_;
  std::string name_;
  Offsets off_;
  // Saved for backward; att_ holds the (B*heads*T) x T attention probabilities.
  Matrix xhat1_, a_, qkv_, att_, o_, h_, xhat2_, c_, pre_, f_;
  Eigen::VectorXf inv1_, inv2_;
};

// Embedding -> blocks -> LayerNorm -> Linear(d, vocab).
Model make_transformer(int vocab, int seq, int dim = 64, int heads = 4, int blocks = 2,
                       int ffn = 0);

}  // namespace commlab
