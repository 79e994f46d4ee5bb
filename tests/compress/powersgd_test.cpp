// PowerSGD (core/compress/powersgd.h) on one rank: shapes, Gram-Schmidt, exact reconstruction of an
// exactly rank-r matrix after one step, and error feedback's invariant.
#include "compress/powersgd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "numeric/rng.h"

namespace commlab {
namespace {

double rel_error(std::span<const float> got, std::span<const float> want) {
  double err = 0, ref = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    err += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    ref += double(want[i]) * want[i];
  }
  return std::sqrt(err / ref);
}

double norm(std::span<const float> v) {
  double s = 0;
  for (float x : v) s += double(x) * x;
  return std::sqrt(s);
}

// One PowerSGD step of a single rank (the averages of one P and one Q are themselves).
std::vector<float> one_step(PowerSgdState& s, std::span<const float> g) {
  std::span<const float> p = s.begin_step(g);
  const std::vector<float> p_avg(p.begin(), p.end());
  std::span<const float> q = s.project(p_avg);
  const std::vector<float> q_avg(q.begin(), q.end());
  std::vector<float> out(g.size());
  s.finish_step(q_avg, out);
  return out;
}

// rows x cols, rank r, row-major: M = A B^T with Gaussian A (rows x r) and B (cols x r).
std::vector<float> rank_r_matrix(size_t rows, size_t cols, int r, uint64_t seed) {
  StreamRng rng(CounterRng(seed, Purpose::kGenerator));
  Eigen::MatrixXf a(rows, r), b(cols, r);
  for (Eigen::Index i = 0; i < a.size(); ++i) a.data()[i] = float(rng.normal());
  for (Eigen::Index i = 0; i < b.size(); ++i) b.data()[i] = float(rng.normal());
  const Eigen::MatrixXf m = a * b.transpose();
  std::vector<float> flat(rows * cols);
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j) flat[i * cols + j] = m(i, j);
  return flat;
}

TEST(PowerSgdShape, IsNearSquareAndCompressesOnlyWhenSmaller) {
  const LowRankShape s = lowrank_shape(200960, 4);  // fc1 of a 784-256 MLP (+ bias)
  EXPECT_EQ(s.cols, 449u);                          // ceil(sqrt(200960)) = 449
  EXPECT_EQ(s.rows, 448u);                          // ceil(200960 / 449)
  EXPECT_EQ(s.rank, 4u);
  EXPECT_TRUE(lowrank_compresses(200960, 4));
  EXPECT_FALSE(lowrank_compresses(10, 4));  // 4 x 3, rank 3: (4 + 3) * 3 = 21 > 10
  EXPECT_EQ(lowrank_shape(10, 4).rank, 3u);
}

TEST(PowerSgd, GramSchmidtGivesOrthonormalColumns) {
  StreamRng rng(CounterRng(5, Purpose::kGenerator));
  Eigen::MatrixXf m(50, 6);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = float(rng.normal());
  orthogonalise(m);
  const Eigen::MatrixXf gram = m.transpose() * m;
  EXPECT_LT((gram - Eigen::MatrixXf::Identity(6, 6)).cwiseAbs().maxCoeff(), 1e-5);
}

// M = A B^T of rank r. P = M Q = A (B^T Q), and B^T Q (r x r) is invertible for a random Q
// (almost surely), so P spans exactly the column space of M; orthonormalised, P P^T projects onto
// it, hence P Q^T = P (M^T P)^T = P P^T M = M: one power iteration reconstructs M exactly (up to
// FP32 rounding), and the residual is ~0.
TEST(PowerSgd, ReconstructsAnExactlyRankRMatrixInOneStep) {
  const size_t rows = 64, cols = 64;  // lowrank_shape(4096) is 64 x 64
  const int r = 4;
  const std::vector<float> m = rank_r_matrix(rows, cols, r, 11);
  PowerSgdState state(m.size(), r, /*seed=*/1, /*bucket=*/0);
  ASSERT_EQ(state.shape().rows, rows);
  ASSERT_EQ(state.shape().cols, cols);
  const std::vector<float> out = one_step(state, m);
  EXPECT_LT(rel_error(out, m), 1e-5);
  EXPECT_LT(norm(state.residual()) / norm(m), 1e-5);
}

// Rank r+2 data at rank r: the step is lossy, and e = (g + e_prev) - sent (FP32 rounding aside).
TEST(PowerSgd, ErrorFeedbackKeepsWhatWasNotSent) {
  const size_t rows = 40, cols = 40;
  std::vector<float> g = rank_r_matrix(rows, cols, 4, 21);
  const std::vector<float> g2 = rank_r_matrix(rows, cols, 2, 22);
  for (size_t i = 0; i < g.size(); ++i) g[i] += 0.1f * g2[i];
  PowerSgdState state(g.size(), 4, 3, 0);
  std::vector<float> previous(g.size(), 0.0f);
  for (int t = 0; t < 3; ++t) {
    const std::vector<float> out = one_step(state, g);
    for (size_t i = 0; i < g.size(); ++i)
      EXPECT_NEAR(state.residual()[i] + out[i], g[i] + previous[i], 1e-4f);
    previous.assign(state.residual().begin(), state.residual().end());
  }
}

TEST(PowerSgd, RejectsBuffersOfTheWrongSize) {
  PowerSgdState state(100, 2, 1, 0);
  std::vector<float> g(99);
  EXPECT_THROW(state.begin_step(g), std::invalid_argument);
}

}  // namespace
}  // namespace commlab
