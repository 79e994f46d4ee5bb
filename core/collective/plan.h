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
  // Consecutive pipelined steps form one NCCL-style pipeline in the time plane: slice k of step
  // j+1 may start once slice k of step j has arrived (and the sender's link is free).
  bool pipelined = false;
};

// NCCL's ring protocol (Simple) as the time plane models it: the message is processed in loops of
// ranks * chunk_bytes; in each loop a rank's chunk is sent in slices of slice_bytes, and slices
// pipeline across the ring's steps. Defaults follow NCCL: a 4 MiB buffer in NCCL_STEPS = 8 step
// slots gives 512 KiB slices; a chunk is ALLREDUCE_CHUNKSTEPS = 4 slots (2 MiB). slice_bytes = 0
// turns pipelining off (bulk-synchronous steps). The data plane ignores this: slicing only
// regroups element-wise sums that are the same either way.
struct PipelineConfig {
  uint64_t slice_bytes = 512ull << 10;
  uint64_t chunk_bytes = 2ull << 20;
};

// A (chunk, rank) pair SkipReduce left out: for reducing operations rank's contribution is missing
// from chunk's sum; for all-gather rank never received chunk (it keeps its own copy there).
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
  PipelineConfig pipeline;          // for steps marked pipelined
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
