#pragma once
// Verification of one rank's buffer after a collective run across processes: each process holds
// only its own output, so it checks it against the reference computed on the fly from the
// deterministic test inputs (collective/reference.h test_value) of every rank, with the rule of
// verify_collective: SkipReduce's dropped contributions left out, unbiased chunks rescaled.
#include <cstdint>
#include <span>

#include "collective/plan.h"
#include "collective/reference.h"

namespace commlab::exec {

// Fills `buffer` with rank's test input (test_value(rank, i)).
void fill_test_input(int rank, std::span<float> buffer);

// Checks rank's output; `wrong` counts the elements off by more than `tolerance`.
struct RankVerification {
  uint64_t wrong = 0;
  double max_abs_error = 0;
  std::string first_mismatch;
};
RankVerification verify_rank(const Plan& plan, int rank, std::span<const float> output,
                             double tolerance);

}  // namespace commlab::exec
