#pragma once
// A layer of a sequential model. Parameters and gradients live in one contiguous span per layer, so
// a layer with parameters is exactly one gradient bucket for the collective.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "numeric/rng.h"
#include "train/tensor.h"

namespace commlab {

class Layer {
 public:
  virtual ~Layer() = default;
  virtual std::string name() const = 0;
  // What the parameters are, in order: (kind, offset, count) runs over params() with kinds
  // "embedding", "attention", "mlp", "norm", "linear", "conv" (the codec tables by layer type).
  struct ParamSegment {
    std::string kind;
    size_t offset = 0;
    size_t count = 0;
  };
  virtual std::vector<ParamSegment> param_segments() const {
    return params_.empty() ? std::vector<ParamSegment>{}
                           : std::vector<ParamSegment>{{kind(), 0, params_.size()}};
  }
  // The kind of every parameter of a layer that has one kind (param_segments' default).
  virtual std::string kind() const { return "linear"; }
  // y = f(x) for a batch (one sample per row); keeps what backward needs.
  virtual void forward(const Matrix& x, Matrix& y) = 0;
  // Given dL/dy of the last forward, writes the parameter gradient (overwriting, not accumulating)
  // and dL/dx into *dx unless dx is null (the first layer needs no input gradient).
  virtual void backward(const Matrix& dy, Matrix* dx) = 0;
  // Deterministic initialisation from the counter RNG (same on every rank).
  virtual void init(const CounterRng& /*rng*/) {}
  virtual std::unique_ptr<Layer> clone() const = 0;

  // Multiply-add FLOPs (2 per MAC) of forward and backward for `rows` input rows.
  virtual double forward_flops(int rows) const = 0;
  // Backward is two GEMMs per weight GEMM (weight and input gradient); the first layer skips the
  // input gradient.
  virtual double backward_flops(int rows, bool input_grad) const {
    return (input_grad ? 2 : 1) * forward_flops(rows);
  }

  std::span<float> params() { return params_; }
  std::span<const float> params() const { return params_; }
  std::span<float> grads() { return grads_; }
  std::span<const float> grads() const { return grads_; }
  size_t num_params() const { return params_.size(); }

 protected:
  void allocate(size_t n) {
    params_.assign(n, 0.0f);
    grads_.assign(n, 0.0f);
  }
  std::vector<float> params_;
  std::vector<float> grads_;
};

// y = x W + b with W stored in x out (row-major), params = [W, b].
class Linear final : public Layer {
 public:
  Linear(int in, int out, std::string name);
  std::string name() const override { return name_; }
  void forward(const Matrix& x, Matrix& y) override;
  void backward(const Matrix& dy, Matrix* dx) override;
  void init(const CounterRng& rng) override;  // He-normal weights, zero bias
  std::unique_ptr<Layer> clone() const override { return std::make_unique<Linear>(*this); }
  double forward_flops(int rows) const override { return 2.0 * rows * in_ * out_; }
  int in() const { return in_; }
  int out() const { return out_; }

 private:
  int in_, out_;
  std::string name_;
  Matrix x_;  // input of the last forward
};

class Relu final : public Layer {
 public:
  explicit Relu(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void forward(const Matrix& x, Matrix& y) override;
  void backward(const Matrix& dy, Matrix* dx) override;
  std::unique_ptr<Layer> clone() const override { return std::make_unique<Relu>(*this); }
  double forward_flops(int) const override { return 0; }
  double backward_flops(int, bool) const override { return 0; }

 private:
  std::string name_;
  Matrix y_;
};

}  // namespace commlab
