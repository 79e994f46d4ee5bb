#pragma once
// Convolution (via im2col + one GEMM for the whole batch) and max-pooling. Activations are
// channel-last (H, W, C) flattened per row, so a batch of B images is B x (H*W*C) and the im2col
// product (B*Ho*Wo) x Cout is already the next layer's layout: no transposes.
#include "train/layers/layer.h"
#include "train/model.h"

namespace commlab {

struct ImageShape {
  int h = 0, w = 0, c = 0;
  int size() const { return h * w * c; }
};

// Square kernel k, stride 1, zero padding `pad`; params = [W (k*k*Cin x Cout), b (Cout)].
class Conv2d final : public Layer {
 public:
  std::string kind() const override { return "conv"; }
  Conv2d(ImageShape in, int out_channels, int kernel, int pad, std::string name);
  std::string name() const override { return name_; }
  void forward(const Matrix& x, Matrix& y) override;
  void backward(const Matrix& dy, Matrix* dx) override;
  void init(const CounterRng& rng) override;  // He-normal over fan-in k*k*Cin
  std::unique_ptr<Layer> clone() const override { return std::make_unique<Conv2d>(*this); }
  double forward_flops(int rows) const override;
  ImageShape out_shape() const { return out_; }

 private:
  void im2col(const Matrix& x);
  ImageShape in_, out_;
  int k_, pad_;
  std::string name_;
  Matrix cols_;  // (B*Ho*Wo) x (k*k*Cin) of the last forward
};

// 2x2 max-pooling with stride 2 (H and W must be even).
class MaxPool2d final : public Layer {
 public:
  MaxPool2d(ImageShape in, std::string name);
  std::string name() const override { return name_; }
  void forward(const Matrix& x, Matrix& y) override;
  void backward(const Matrix& dy, Matrix* dx) override;
  std::unique_ptr<Layer> clone() const override { return std::make_unique<MaxPool2d>(*this); }
  double forward_flops(int) const override { return 0; }
  double backward_flops(int, bool) const override { return 0; }
  ImageShape out_shape() const { return out_; }

 private:
  ImageShape in_, out_;
  std::string name_;
  std::vector<int32_t> argmax_;  // per output element: flat input index within its row
};

// conv(3x3, c1) - relu - pool - conv(3x3, c2) - relu - pool - linear: for 28x28x1 with c1=8,
// c2=16 that is 9,098 parameters.
Model make_cnn(ImageShape in, int classes, int c1 = 8, int c2 = 16);

}  // namespace commlab
