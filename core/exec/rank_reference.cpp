#include "exec/rank_reference.h"

#include <cmath>
#include <sstream>
#include <vector>

namespace commlab::exec {

void fill_test_input(int rank, std::span<float> buffer) {
  for (uint64_t i = 0; i < buffer.size(); ++i) buffer[i] = test_value(rank, i);
}

RankVerification verify_rank(const Plan& plan, int rank, std::span<const float> output,
                             double tolerance) {
  RankVerification v;
  const int n = plan.ranks;
  const size_t chunks = plan.chunk_owner.size();
  std::vector<std::vector<char>> contributes(chunks, std::vector<char>(n, 1));
  for (const DroppedContribution& d : plan.dropped) contributes[d.chunk][d.rank] = 0;
  auto check = [&](uint64_t i, double expected) {
    const double got = output[i];
    const double err = std::abs(got - expected);
    if (!(err <= tolerance)) {  // also catches NaN
      if (v.wrong == 0) {
        std::ostringstream msg;
        msg << "rank " << rank << " element " << i << ": expected " << expected << ", got " << got;
        v.first_mismatch = msg.str();
      }
      ++v.wrong;
    }
    if (std::isfinite(err)) v.max_abs_error = std::max(v.max_abs_error, err);
  };
  for (size_t c = 0; c < chunks; ++c) {
    const double scale = plan.chunk_scale.empty() ? 1.0 : plan.chunk_scale[c];
    const int owner = plan.chunk_owner[c];
    for (uint64_t i = plan.chunk_begin[c]; i < plan.chunk_begin[c + 1]; ++i) {
      switch (plan.op) {
        case CollectiveOp::kAllReduce:
        case CollectiveOp::kReduceScatter: {
          if (plan.op == CollectiveOp::kReduceScatter && owner != rank) break;
          double sum = 0;
          for (int r = 0; r < n; ++r)
            if (contributes[c][r]) sum += test_value(r, i);
          check(i, sum * scale);
          break;
        }
        case CollectiveOp::kAllGather:  // a rank that never received chunk c keeps its own copy
          check(i, test_value(contributes[c][rank] ? owner : rank, i));
          break;
        case CollectiveOp::kBroadcast: check(i, test_value(0, i)); break;
      }
    }
  }
  return v;
}

}  // namespace commlab::exec
