#pragma once
// A collective as data: a sequence of bulk-synchronous steps, each a set of transfers of buffer
// regions between ranks. Algorithms (one file each, registered by name in algorithms.cpp) build
// plans; the executor runs them on real buffers and times them on a network backend.
#include <cstdint>
#include <string>
#include <vector>

namespace commlab {

enum class CollectiveOp { kAllReduce, kReduceScatter, kAllGather, kBroadcast };
const char* op_name(CollectiveOp op);
CollectiveOp parse_op(const std::string& name);  // throws std::invalid_argument
// nccl-tests bus-bandwidth factor: busbw = algbw * factor (all-reduce 2(n-1)/n, RS/AG (n-1)/n).
double busbw_factor(CollectiveOp op, int ranks);

// Elements [offset, offset + count) of the sender's buffer go to the same region of the receiver,
// which adds them (reduce) or overwrites its copy (copy).
struct Transfer {
  int src = 0;
  int dst = 0;
  uint64_t offset = 0;
  uint64_t count = 0;
  bool reduce = false;
};

struct PlanStep {
  std::vector<Transfer> transfers;
  uint32_t repeat = 1;  // time-only plans fold identical consecutive steps into one
  std::string phase;    // "reduce-scatter", "all-gather", ... (for display and reports)
};

// A (chunk, rank) contribution SkipReduce left out of a reduced chunk.
struct DroppedContribution {
  int chunk = 0;
  int rank = 0;
};

struct Plan {
  CollectiveOp op = CollectiveOp::kAllReduce;
  int ranks = 0;
  uint64_t count = 0;  // elements per rank
  std::vector<PlanStep> steps;
  // Which element range each chunk covers (for reports and the teaching view), chunk -> owner.
  std::vector<uint64_t> chunk_begin;  // size chunks + 1
  std::vector<int> chunk_owner;
  std::vector<DroppedContribution> dropped;
  // Chunks whose reduced value is rescaled by ranks / contributors (unbiased SkipReduce).
  std::vector<double> chunk_scale;  // empty, or one per chunk
  uint64_t total_steps() const;
};

// Split `count` elements into `parts` nearly equal contiguous chunks: chunk c is
// [c*count/parts, (c+1)*count/parts), so sizes differ by at most one element.
inline uint64_t chunk_start(uint64_t count, uint64_t parts, uint64_t c) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(count) * c) / parts);
}

inline int mod(int64_t a, int n) {
  return static_cast<int>(((a % n) + n) % n);
}

}  // namespace commlab
