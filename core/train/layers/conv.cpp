#include "train/layers/conv.h"

#include <cmath>
#include <stdexcept>

#include "io/status.h"
#include "train/model.h"

namespace commlab {

Conv2d::Conv2d(ImageShape in, int out_channels, int kernel, int pad, std::string name)
    : in_(in), k_(kernel), pad_(pad), name_(std::move(name)) {
  out_ = {in.h + 2 * pad - kernel + 1, in.w + 2 * pad - kernel + 1, out_channels};
  if (out_.h <= 0 || out_.w <= 0) throw bad_input(name_ + ": kernel larger than image");
  allocate(static_cast<size_t>(k_) * k_ * in_.c * out_.c + out_.c);
}

double Conv2d::forward_flops(int rows) const {
  return 2.0 * rows * out_.h * out_.w * static_cast<double>(k_) * k_ * in_.c * out_.c;
}

void Conv2d::im2col(const Matrix& x) {
  const int batch = static_cast<int>(x.rows());
  const int patch = k_ * k_ * in_.c;
  cols_.setZero(static_cast<Eigen::Index>(batch) * out_.h * out_.w, patch);
  for (int b = 0; b < batch; ++b) {
    const float* img = x.data() + static_cast<size_t>(b) * in_.size();
    for (int oy = 0; oy < out_.h; ++oy) {
      for (int ox = 0; ox < out_.w; ++ox) {
        float* col = cols_.data() + ((static_cast<size_t>(b) * out_.h + oy) * out_.w + ox) * patch;
        for (int ky = 0; ky < k_; ++ky) {
          const int iy = oy + ky - pad_;
          if (iy < 0 || iy >= in_.h) continue;
          for (int kx = 0; kx < k_; ++kx) {
            const int ix = ox + kx - pad_;
            if (ix < 0 || ix >= in_.w) continue;
            const float* src = img + (static_cast<size_t>(iy) * in_.w + ix) * in_.c;
            std::copy(src, src + in_.c, col + (ky * k_ + kx) * in_.c);
          }
        }
      }
    }
  }
}

void Conv2d::forward(const Matrix& x, Matrix& y) {
  const int batch = static_cast<int>(x.rows());
  const int patch = k_ * k_ * in_.c;
  im2col(x);
  auto w = ConstMatrixMap(params_.data(), patch, out_.c);
  auto bias =
      Eigen::Map<const RowVector>(params_.data() + static_cast<size_t>(patch) * out_.c, out_.c);
  Matrix out = cols_ * w;
  out.rowwise() += bias;
  // (B*Ho*Wo) x Cout and B x (Ho*Wo*Cout) are the same row-major bytes.
  y = Eigen::Map<Matrix>(out.data(), batch, out_.size());
}

void Conv2d::backward(const Matrix& dy, Matrix* dx) {
  const int batch = static_cast<int>(dy.rows());
  const int patch = k_ * k_ * in_.c;
  auto d = ConstMatrixMap(dy.data(), static_cast<Eigen::Index>(batch) * out_.h * out_.w, out_.c);
  auto dw = MatrixMap(grads_.data(), patch, out_.c);
  auto db = RowVectorMap(grads_.data() + static_cast<size_t>(patch) * out_.c, out_.c);
  dw.noalias() = cols_.transpose() * d;
  db = d.colwise().sum();
  if (!dx) return;
  auto w = ConstMatrixMap(params_.data(), patch, out_.c);
  Matrix dcols = d * w.transpose();
  dx->setZero(batch, in_.size());
  // col2im: scatter-add every patch entry back to the pixel it came from.
  for (int b = 0; b < batch; ++b) {
    float* img = dx->data() + static_cast<size_t>(b) * in_.size();
    for (int oy = 0; oy < out_.h; ++oy) {
      for (int ox = 0; ox < out_.w; ++ox) {
        const float* col =
            dcols.data() + ((static_cast<size_t>(b) * out_.h + oy) * out_.w + ox) * patch;
        for (int ky = 0; ky < k_; ++ky) {
          const int iy = oy + ky - pad_;
          if (iy < 0 || iy >= in_.h) continue;
          for (int kx = 0; kx < k_; ++kx) {
            const int ix = ox + kx - pad_;
            if (ix < 0 || ix >= in_.w) continue;
            float* dst = img + (static_cast<size_t>(iy) * in_.w + ix) * in_.c;
            const float* src = col + (ky * k_ + kx) * in_.c;
            for (int c = 0; c < in_.c; ++c) dst[c] += src[c];
          }
        }
      }
    }
  }
}

void Conv2d::init(const CounterRng& rng) {
  StreamRng s(rng);
  const size_t nw = static_cast<size_t>(k_) * k_ * in_.c * out_.c;
  const double scale = std::sqrt(2.0 / (k_ * k_ * in_.c));
  for (size_t i = 0; i < nw; ++i) params_[i] = static_cast<float>(s.normal() * scale);
  for (size_t i = nw; i < params_.size(); ++i) params_[i] = 0.0f;
}

MaxPool2d::MaxPool2d(ImageShape in, std::string name) : in_(in), name_(std::move(name)) {
  if (in.h % 2 || in.w % 2) throw bad_input(name_ + ": 2x2 pooling needs even H, W");
  out_ = {in.h / 2, in.w / 2, in.c};
}

void MaxPool2d::forward(const Matrix& x, Matrix& y) {
  const int batch = static_cast<int>(x.rows());
  y.resize(batch, out_.size());
  argmax_.resize(static_cast<size_t>(batch) * out_.size());
  for (int b = 0; b < batch; ++b) {
    const float* in = x.data() + static_cast<size_t>(b) * in_.size();
    float* out = y.data() + static_cast<size_t>(b) * out_.size();
    int32_t* arg = argmax_.data() + static_cast<size_t>(b) * out_.size();
    for (int oy = 0; oy < out_.h; ++oy) {
      for (int ox = 0; ox < out_.w; ++ox) {
        for (int c = 0; c < out_.c; ++c) {
          int best = -1;
          float v = 0;
          for (int dy = 0; dy < 2; ++dy) {
            for (int dx = 0; dx < 2; ++dx) {
              const int i = ((2 * oy + dy) * in_.w + 2 * ox + dx) * in_.c + c;
              if (best < 0 || in[i] > v) best = i, v = in[i];
            }
          }
          const int o = (oy * out_.w + ox) * out_.c + c;
          out[o] = v;
          arg[o] = best;
        }
      }
    }
  }
}

void MaxPool2d::backward(const Matrix& dy, Matrix* dx) {
  if (!dx) return;
  const int batch = static_cast<int>(dy.rows());
  dx->setZero(batch, in_.size());
  for (int b = 0; b < batch; ++b) {
    const float* d = dy.data() + static_cast<size_t>(b) * out_.size();
    const int32_t* arg = argmax_.data() + static_cast<size_t>(b) * out_.size();
    float* out = dx->data() + static_cast<size_t>(b) * in_.size();
    for (int o = 0; o < out_.size(); ++o) out[arg[o]] += d[o];
  }
}

Model make_cnn(ImageShape in, int classes, int c1, int c2) {
  Model m;
  auto conv1 = std::make_unique<Conv2d>(in, c1, 3, 1, "conv1");
  ImageShape s = conv1->out_shape();
  m.add(std::move(conv1));
  m.add(std::make_unique<Relu>("relu1"));
  auto pool1 = std::make_unique<MaxPool2d>(s, "pool1");
  s = pool1->out_shape();
  m.add(std::move(pool1));
  auto conv2 = std::make_unique<Conv2d>(s, c2, 3, 1, "conv2");
  s = conv2->out_shape();
  m.add(std::move(conv2));
  m.add(std::make_unique<Relu>("relu2"));
  auto pool2 = std::make_unique<MaxPool2d>(s, "pool2");
  s = pool2->out_shape();
  m.add(std::move(pool2));
  m.add(std::make_unique<Linear>(s.size(), classes, "fc"));
  return m;
}

}  // namespace commlab
