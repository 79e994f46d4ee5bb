#pragma once
// Rank-r PowerSGD (Vogels et al. 2019) for one rank and one bucket, with error feedback and warm
// start. The bucket (plus the residual) is laid out row-major as a rows x cols matrix M
// (cols = ceil(sqrt(size)), zero-padded). One step is three local phases around two all-reduces
// that the caller runs (scenario/run/compressed_reducer):
//   P = M Q                     -> all-reduce P (average)
//   P = orthogonalise(P); Q = M^T P  -> all-reduce Q (average)
//   M_hat = P Q^T; e = M - M_hat; Q is kept for the next step (warm start).
// Matrices are column-major (Eigen's default), so P and Q are contiguous float buffers. Between
// begin_step and finish_step residual() holds M (g + e), after it e.
#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace commlab {

struct LowRankShape {
  size_t rows = 0, cols = 0, rank = 0;
  size_t p_size() const { return rows * rank; }
  size_t q_size() const { return cols * rank; }
};

// cols = ceil(sqrt(size)), rows = ceil(size / cols), rank = min(rank, rows, cols).
LowRankShape lowrank_shape(size_t size, int rank);
// PowerSGD sends (rows + cols) * rank values instead of size: worth it only when that is smaller.
// Smaller buckets (biases, small layers) are all-reduced exactly, as PowerSGD does.
bool lowrank_compresses(size_t size, int rank);

// Modified Gram-Schmidt on the columns, in order; a column whose remaining norm is below 1e-30
// becomes zero (M Q can be rank-deficient, e.g. a zero gradient).
void orthogonalise(Eigen::MatrixXf& m);

class PowerSgdState {
 public:
  // The initial Q is standard normal from (seed, bucket): the same on every rank, as PowerSGD's
  // shared seed gives.
  PowerSgdState(size_t size, int rank, uint64_t seed, int bucket);
  const LowRankShape& shape() const { return shape_; }
  // M = reshape(grad + residual); returns P = M Q (rows x rank).
  std::span<const float> begin_step(std::span<const float> grad);
  // p_avg: the average of every rank's P. Orthogonalises it and returns Q = M^T P (cols x rank).
  std::span<const float> project(std::span<const float> p_avg);
  // q_avg: the average of every rank's Q. Writes M_hat = P Q^T (the first size entries) to `out`,
  // sets residual = M - M_hat and keeps Q for the next step.
  void finish_step(std::span<const float> q_avg, std::span<float> out);
  std::span<const float> residual() const { return residual_; }

 private:
  size_t size_;
  LowRankShape shape_;
  std::vector<float> residual_;
  Eigen::MatrixXf m_, p_, q_;
};

}  // namespace commlab
