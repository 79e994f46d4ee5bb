#pragma once
// Shared by the collective tests: distinct integer-valued inputs per rank (exact in FP32 sums),
// and a helper that runs a plan on copies of them.
#include <span>
#include <vector>

#include "collective/reference.h"
#include "collective/simulated_executor.h"

namespace commlab::testing {

struct RunResult {
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<float>> outputs;
  CollectiveReport report;
  std::vector<std::span<float>> views() {
    std::vector<std::span<float>> v;
    for (auto& b : outputs) v.emplace_back(b);
    return v;
  }
};

inline RunResult run_on_test_data(const Plan& plan, const ExecutorOptions& options = {}) {
  RunResult r;
  r.inputs.assign(plan.ranks, std::vector<float>(plan.count));
  for (int rank = 0; rank < plan.ranks; ++rank)
    for (uint64_t i = 0; i < plan.count; ++i) r.inputs[rank][i] = test_value(rank, i);
  r.outputs = r.inputs;
  r.report = execute_plan(plan, r.views(), options);
  return r;
}

}  // namespace commlab::testing
