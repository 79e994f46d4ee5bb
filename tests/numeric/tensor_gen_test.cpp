// Generators feed every codec study: they must be deterministic, independent of thread count,
// scaled like gradients, and reject unknown names with the documented message.
#include "numeric/tensor_gen.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>

namespace commlab {
namespace {

double stddev(const std::vector<float>& v) {
  double s2 = 0;
  for (float x : v) s2 += double(x) * x;
  return std::sqrt(s2 / double(v.size()));
}

TEST(TensorGen, DeterministicAndThreadCountIndependent) {
  for (const char* d : {"gaussian", "laplace", "student-t", "sparse:0.25"}) {
    omp_set_num_threads(1);
    auto a = generate_tensor(d, 200000, 5);
    omp_set_num_threads(2);
    auto b = generate_tensor(d, 200000, 5);
    EXPECT_EQ(a, b) << d;
    EXPECT_NE(a, generate_tensor(d, 200000, 6)) << d;
  }
}

TEST(TensorGen, ATensorGeneratedInBlocksIsTheTensorGeneratedAtOnce) {
  // codec --generate makes its values a block at a time: element i depends on
  // (seed, i) only, so blocks at any offsets, of sizes below and above the parallel threshold
  // (2^16), concatenate to the whole tensor.
  for (const char* d : {"gaussian", "laplace", "student-t", "sparse:0.25"}) {
    const std::vector<float> whole = generate_tensor(d, 300000, 7);
    std::vector<float> blocks;
    for (auto [first, n] : {std::pair<uint64_t, size_t>{0, 1000}, {1000, 99000}, {100000, 200000}})
      for (float x : generate_tensor_range(d, first, n, 7)) blocks.push_back(x);
    EXPECT_EQ(blocks, whole) << d;
    EXPECT_NE(generate_tensor_range(d, 1, 1000, 7), generate_tensor_range(d, 0, 1000, 7)) << d;
  }
}

TEST(TensorGen, ScaledLikeGradients) {
  // Every distribution has std kGeneratorStd; over 2e5 samples the estimate's relative error is
  // ~1/sqrt(2n) for the gaussian; student-t (nu = 3) has infinite kurtosis, hence its wider bound.
  EXPECT_NEAR(stddev(generate_tensor("gaussian", 200000, 1)), kGeneratorStd, 0.01 * kGeneratorStd);
  EXPECT_NEAR(stddev(generate_tensor("laplace", 200000, 1)), kGeneratorStd, 0.02 * kGeneratorStd);
  EXPECT_NEAR(stddev(generate_tensor("student-t", 200000, 1)), kGeneratorStd, 0.15 * kGeneratorStd);
}

TEST(TensorGen, SparseFractionIsExactZeros) {
  // Zeros ~ Binomial(n, F): sd = sqrt(n F (1-F)) = 194 for n = 2e5, F = 0.3; allow 5 sd.
  auto v = generate_tensor("sparse:0.3", 200000, 2);
  size_t zeros = 0;
  for (float x : v) zeros += x == 0.0f;
  EXPECT_NEAR(double(zeros), 60000.0, 5 * 194.0);
  auto none = generate_tensor("sparse:0", 1000, 2);
  for (float x : none) EXPECT_NE(x, 0.0f);
}

TEST(TensorGen, RejectsUnknownDistributions) {
  try {
    generate_tensor("uniform", 10, 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "unknown distribution 'uniform' (expected gaussian, laplace, student-t, sparse:F)");
  }
  EXPECT_THROW(generate_tensor("sparse:1.5", 10, 1), std::invalid_argument);
  EXPECT_THROW(generate_tensor("sparse:x", 10, 1), std::invalid_argument);
}

}  // namespace
}  // namespace commlab
