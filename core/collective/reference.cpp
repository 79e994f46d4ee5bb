#include "collective/reference.h"

#include <cmath>
#include <sstream>

namespace commlab {

float test_value(int rank, uint64_t index) {
  return static_cast<float>((rank + 1) * 3 + static_cast<int>(index % 13) - 6);
}

Verification verify_collective(const Plan& plan, const std::vector<std::vector<float>>& inputs,
                               const std::vector<std::span<float>>& outputs, double tolerance) {
  Verification v;
  const int n = plan.ranks;
  const size_t chunks = plan.chunk_owner.size();
  // contributes[c][r]: does rank r's input reach chunk c's sum (all-gather: does r receive c)?
  std::vector<std::vector<char>> contributes(chunks, std::vector<char>(n, 1));
  for (const DroppedContribution& d : plan.dropped) contributes[d.chunk][d.rank] = 0;

  auto check = [&](int rank, uint64_t i, double expected) {
    double got = outputs[rank][i];
    double err = std::abs(got - expected);
    if (!(err <= tolerance)) {  // also catches NaN
      if (v.ok) {
        std::ostringstream msg;
        msg << "rank " << rank << " element " << i << ": expected " << expected << ", got " << got;
        v.first_mismatch = msg.str();
      }
      v.ok = false;
    }
    if (std::isfinite(err)) v.max_abs_error = std::max(v.max_abs_error, err);
  };

  for (size_t c = 0; c < chunks; ++c) {
    double scale = plan.chunk_scale.empty() ? 1.0 : plan.chunk_scale[c];
    for (uint64_t i = plan.chunk_begin[c]; i < plan.chunk_begin[c + 1]; ++i) {
      double sum = 0;
      for (int r = 0; r < n; ++r)
        if (contributes[c][r]) sum += inputs[r][i];
      switch (plan.op) {
        case CollectiveOp::kAllReduce:
          for (int r = 0; r < n; ++r) check(r, i, sum * scale);
          break;
        case CollectiveOp::kReduceScatter: check(plan.chunk_owner[c], i, sum * scale); break;
        case CollectiveOp::kAllGather:  // a rank that never received chunk c keeps its own copy
          for (int r = 0; r < n; ++r)
            check(r, i, contributes[c][r] ? inputs[plan.chunk_owner[c]][i] : inputs[r][i]);
          break;
        case CollectiveOp::kBroadcast:
          for (int r = 0; r < n; ++r) check(r, i, inputs[0][i]);
          break;
      }
    }
  }
  return v;
}

}  // namespace commlab
