#pragma once
// The obviously-correct answer a collective must produce, computed straight from the inputs in
// FP64: used by the CLI's verification and by the tests. It honours SkipReduce's dropped
// contributions as the plan reports them (reduce: left out of the sum; all-gather: the rank keeps
// its own value); tests check the reported pairs against separate statements of each rule.
#include <span>
#include <string>
#include <vector>

#include "collective/plan.h"

namespace commlab {

// Rank-r, element-i value of distinct integer test data: exact in FP32 sums for n <= 2^10.
float test_value(int rank, uint64_t index);

struct Verification {
  bool ok = true;
  double max_abs_error = 0;
  std::string first_mismatch;  // "rank 3 element 17: expected 12, got 11"
};

// Checks `outputs` (after the collective) against the reference computed from `inputs`, element
// by element where the operation defines a result, within `tolerance` (absolute).
Verification verify_collective(const Plan& plan, const std::vector<std::vector<float>>& inputs,
                               const std::vector<std::span<float>>& outputs, double tolerance);

}  // namespace commlab
