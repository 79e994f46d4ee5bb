#include "train/layers/layer.h"

#include <algorithm>
#include <cmath>

#include "train/layers/init_cache.h"

namespace commlab {

namespace {

constexpr uint64_t kLinearInit = 1;  // InitKey's kind of a Linear layer's weights

}  // namespace

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
  const size_t nw = static_cast<size_t>(in_) * out_;
  // He-normal, N(0, 2 / in): drawn once per stream and shape in a process (init_cache.h).
  const InitKey key{rng.key(), kLinearInit, static_cast<uint64_t>(in_),
                    static_cast<uint64_t>(out_)};
  cached_init(key, std::span<float>(params_).first(nw), [&](std::span<float> w) {
    StreamRng s(rng);
    const double scale = std::sqrt(2.0 / in_);
    for (float& v : w) v = static_cast<float>(s.normal() * scale);
  });
  std::fill(params_.begin() + static_cast<std::ptrdiff_t>(nw), params_.end(), 0.0f);
}

void Relu::forward(const Matrix& x, Matrix& y) {
  y = x.cwiseMax(0.0f);
  y_ = y;
}

void Relu::backward(const Matrix& dy, Matrix* dx) {
  if (dx) *dx = (y_.array() > 0.0f).select(dy, 0.0f);
}

}  // namespace commlab
