#include "compress/powersgd.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "numeric/rng.h"

namespace commlab {

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void check_size(std::span<const float> s, size_t want, const char* what) {
  if (s.size() != want)
    throw bad_input(std::string("PowerSGD: ") + what + " has " + std::to_string(s.size()) +
                    " values, expected " + std::to_string(want));
}

}  // namespace

LowRankShape lowrank_shape(size_t size, int rank) {
  LowRankShape s;
  s.cols =
      std::max<size_t>(1, static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(size)))));
  s.rows = std::max<size_t>(1, (size + s.cols - 1) / s.cols);
  s.rank = std::min<size_t>({static_cast<size_t>(std::max(rank, 1)), s.rows, s.cols});
  return s;
}

bool lowrank_compresses(size_t size, int rank) {
  const LowRankShape s = lowrank_shape(size, rank);
  return (s.rows + s.cols) * s.rank < size;
}

void orthogonalise(Eigen::MatrixXf& m) {
  for (Eigen::Index i = 0; i < m.cols(); ++i) {
    const float norm = m.col(i).norm();
    if (!(norm > 1e-30f)) {
      m.col(i).setZero();
      continue;
    }
    m.col(i) /= norm;
    for (Eigen::Index j = i + 1; j < m.cols(); ++j) m.col(j) -= m.col(i).dot(m.col(j)) * m.col(i);
  }
}

PowerSgdState::PowerSgdState(size_t size, int rank, uint64_t seed, int bucket)
    : size_(size), shape_(lowrank_shape(size, rank)), residual_(size, 0.0f) {
  if (rank < 1) throw bad_input("PowerSGD: rank must be at least 1");
  q_.resize(static_cast<Eigen::Index>(shape_.cols), static_cast<Eigen::Index>(shape_.rank));
  StreamRng rng(CounterRng(seed, Purpose::kCodec, 0, static_cast<uint64_t>(bucket)));
  for (Eigen::Index i = 0; i < q_.size(); ++i) q_.data()[i] = static_cast<float>(rng.normal());
}

std::span<const float> PowerSgdState::begin_step(std::span<const float> grad) {
  check_size(grad, size_, "the gradient");
  RowMajor flat = RowMajor::Zero(static_cast<Eigen::Index>(shape_.rows),
                                 static_cast<Eigen::Index>(shape_.cols));
  for (size_t i = 0; i < size_; ++i) flat.data()[i] = grad[i] + residual_[i];
  // The residual holds a = g + e until finish_step subtracts what was sent.
  std::copy(flat.data(), flat.data() + size_, residual_.begin());
  m_ = flat;
  p_ = m_ * q_;
  return {p_.data(), static_cast<size_t>(p_.size())};
}

std::span<const float> PowerSgdState::project(std::span<const float> p_avg) {
  check_size(p_avg, shape_.p_size(), "P");
  std::copy(p_avg.begin(), p_avg.end(), p_.data());
  orthogonalise(p_);
  q_ = m_.transpose() * p_;
  return {q_.data(), static_cast<size_t>(q_.size())};
}

void PowerSgdState::finish_step(std::span<const float> q_avg, std::span<float> out) {
  check_size(q_avg, shape_.q_size(), "Q");
  if (out.size() != size_) throw bad_input("PowerSGD: output of the wrong size");
  std::copy(q_avg.begin(), q_avg.end(), q_.data());
  const RowMajor approx = p_ * q_.transpose();
  for (size_t i = 0; i < size_; ++i) {
    out[i] = approx.data()[i];
    residual_[i] -= out[i];  // e = M - M_hat
  }
}

}  // namespace commlab
