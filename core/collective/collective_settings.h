#pragma once
// One collective call's settings, checked once for every door (commlab-cli collective, view, the
// Python module): the algorithm and op, the ranks, the bytes per rank, SkipReduce within what the
// algorithm can skip on those ranks, the time plane's element size and reduction speed. Statuses
// name the field as the Python argument is named ("skip", "skip_policy"); the CLI prints the flag
// of the same name (--skip, --skip-policy).
#include <cstdint>
#include <optional>
#include <string>

#include "collective/algorithms.h"
#include "io/bounds.h"
#include "io/status.h"

namespace commlab {

// Bytes per rank a collective may be given (1 TiB): bytes_on_wire cannot overflow below it.
inline constexpr uint64_t kMaxCollectiveBytes = 1ull << 40;
// Ranks a collective may span.
inline constexpr int kMaxCollectiveRanks = 1 << 20;
inline constexpr Bounds<int> kCollectiveRanks{1, kMaxCollectiveRanks, "ranks"};

// What the user asked for, as text and numbers.
struct CollectiveRequest {
  std::string algorithm = "ring";
  std::string op = "allreduce";
  int ranks = 8;
  uint64_t bytes = 1 << 20;  // per rank
  int skip = 0;
  std::string skip_policy = "naive";
  uint64_t seed = 0;
  uint64_t iteration = 0;
  bool unbiased = false;
  double element_bytes = 4.0;  // time plane: bytes per element on the wire (2: BF16)
  double reduce_gbps = 0.0;    // reduction speed, GB/s (0: the executor's default)
  uint64_t slice_bytes = 512 << 10;
  uint64_t chunk_bytes = 2 << 20;
};

struct CollectiveSettings {
  const Algorithm* algorithm = nullptr;
  CollectiveOp op = CollectiveOp::kAllReduce;
  int ranks = 8;
  uint64_t bytes = 1 << 20;
  SkipConfig skip;
  uint64_t iteration = 0;
  double element_bytes = 4.0;
  double reduce_Bps = 0.0;
  PipelineConfig pipeline;
};

// Every field of `request` checked; the first problem found, naming its field.
StatusOr<CollectiveSettings> collective_settings(const CollectiveRequest& request);

// SkipReduce's skip `skip` within what `algorithm` can skip on `ranks` ranks (field "skip"): a
// negative skip, or one beyond the algorithm's limit, which a plan would otherwise clamp.
std::optional<Status> skip_problem(const std::string& algorithm, int ranks, long long skip);

}  // namespace commlab
