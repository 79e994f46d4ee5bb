#pragma once
// Row-major FP32 matrices: a batch is one sample per row, which matches how datasets are stored and
// how gradient buckets are laid out (a layer's parameters are one contiguous span).
#include <Eigen/Core>

namespace commlab {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;
using RowVectorMap = Eigen::Map<RowVector>;

}  // namespace commlab
