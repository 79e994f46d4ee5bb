#include "train/layers/layer.h"

#include <cmath>

namespace commlab {

Linear::Linear(int in, int out, std::string name) : in_(in), out_(out), name_(std::move(name)) {
  allocate(static_cast<size_t>(in) * out + out);
}

void Linear::forward(const Matrix& x, Matrix& y) {
  x_ = x;
  auto w = ConstMatrixMap(params_.data(), in_, out_);
  auto b = Eigen::Map<const RowVector>(params_.data() + static_cast<size_t>(in_) * out_, out_);
  y.noalias() = x * w;
  y.rowwise() += b;
}

void Linear::backward(const Matrix& dy, Matrix* dx) {
  auto dw = MatrixMap(grads_.data(), in_, out_);
  auto db = RowVectorMap(grads_.data() + static_cast<size_t>(in_) * out_, out_);
  dw.noalias() = x_.transpose() * dy;
  db = dy.colwise().sum();
  if (dx) {
    auto w = ConstMatrixMap(params_.data(), in_, out_);
    dx->noalias() = dy * w.transpose();
  }
}

void Linear::init(const CounterRng& rng) {
  StreamRng s(rng);
  const double scale = std::sqrt(2.0 / in_);
  const size_t nw = static_cast<size_t>(in_) * out_;
  for (size_t i = 0; i < nw; ++i) params_[i] = static_cast<float>(s.normal() * scale);
  for (size_t i = nw; i < params_.size(); ++i) params_[i] = 0.0f;
}

void Relu::forward(const Matrix& x, Matrix& y) {
  y = x.cwiseMax(0.0f);
  y_ = y;
}

void Relu::backward(const Matrix& dy, Matrix* dx) {
  if (dx) *dx = (y_.array() > 0.0f).select(dy, 0.0f);
}

}  // namespace commlab
