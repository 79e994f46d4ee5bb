#include "collective/collective_settings.h"

#include <cmath>
#include <stdexcept>

#include "collective/plan.h"
#include "collective/skip.h"
#include "io/size_parse.h"

namespace commlab {

std::optional<Status> skip_problem(const std::string& algorithm, int ranks, long long skip) {
  if (skip < 0)
    return invalid_input("skip", "expected a non-negative integer, got " + std::to_string(skip));
  const Algorithm* a = lookup_algorithm(algorithm);
  if (a == nullptr || !a->skips()) return std::nullopt;  // build_plan refuses skips it cannot run
  const SkipLimit limit = a->skip_limit(ranks);
  if (skip <= limit.max) return std::nullopt;
  return invalid_input("skip", algorithm + " on " + std::to_string(ranks) +
                                   " ranks skips at most " + std::to_string(limit.max) + " " +
                                   limit.what + ", got " + std::to_string(skip));
}

StatusOr<CollectiveSettings> collective_settings(const CollectiveRequest& r) {
  CollectiveSettings s;
  s.algorithm = lookup_algorithm(r.algorithm);
  if (s.algorithm == nullptr) {
    try {
      find_algorithm(r.algorithm);  // its message lists the known names
    } catch (const std::invalid_argument& e) {
      return invalid_input("algorithm", e.what());
    }
  }
  try {
    s.op = parse_op(r.op);
  } catch (const std::invalid_argument& e) {
    return invalid_input("op", e.what());
  }
  if (std::optional<Status> bad = out_of_range("ranks", r.ranks, kCollectiveRanks)) return *bad;
  if (r.bytes < 1 || r.bytes > kMaxCollectiveBytes)
    return invalid_input("bytes", "expected 1 to " + std::to_string(kMaxCollectiveBytes) +
                                      " bytes per rank (1 TiB), got " + std::to_string(r.bytes));
  if (std::optional<Status> bad = skip_problem(r.algorithm, r.ranks, r.skip)) return *bad;
  try {
    s.skip.policy = parse_skip_policy(r.skip_policy);
  } catch (const std::invalid_argument& e) {
    return invalid_input("skip_policy", e.what());
  }
  // Bytes per element on the wire in the time plane: a cast (2, 1) or a codec's mean (fractions
  // of a byte); at most FP64's 8.
  if (!(std::isfinite(r.element_bytes) && r.element_bytes > 0 && r.element_bytes <= 8))
    return invalid_input("element_bytes",
                         "expected a number in (0, 8], got " + limit_text(r.element_bytes));
  if (!(std::isfinite(r.reduce_gbps) && r.reduce_gbps >= 0))
    return invalid_input("reduce_gbps",
                         "expected a finite number >= 0, got " + limit_text(r.reduce_gbps));
  for (auto [field, value] :
       {std::pair{"slice_bytes", r.slice_bytes}, {"chunk_bytes", r.chunk_bytes}})
    if (value > kMaxCollectiveBytes)
      return invalid_input(field, "expected at most " + std::to_string(kMaxCollectiveBytes) +
                                      " bytes, got " + std::to_string(value));
  s.ranks = r.ranks;
  s.bytes = r.bytes;
  s.skip.skip = r.skip;
  s.skip.seed = r.seed;
  s.skip.unbiased = r.unbiased;
  s.iteration = r.iteration;
  s.element_bytes = r.element_bytes;
  s.reduce_Bps = r.reduce_gbps * 1e9;
  s.pipeline = PipelineConfig{r.slice_bytes, r.chunk_bytes};
  return s;
}

}  // namespace commlab
