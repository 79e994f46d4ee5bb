#pragma once
// What a collective's Chakra comm_size means, shared by the reader and the writer (no protobuf
// here). ASTRA-sim takes comm_size as the bytes of this rank's INPUT buffer for every collective
// (astra-sim/system/astraccl/native_collectives/collective_algorithm/Ring.cc: an all-gather's
// final_data_size = data_size * nodes_in_ring), while CommLab's Node::bytes is the collective's
// whole buffer (graph.h): the same number for all-reduce, reduce-scatter, all-to-all and
// broadcast, and the gathered output, comm_size x group size, for all-gather. docs/workload.md
// "What comm_size means" quotes the sources.
#include <cstdint>
#include <optional>

#include "workload/graph.h"

namespace commlab::workload::chakra_size {

// comm_size for a collective of `bytes` (Node::bytes) over `group_size` ranks. An all-gather
// whose bytes are not a multiple of the group writes the rounded-up shard (what each rank
// contributes at most); the writer then keeps the exact bytes in commlab_comm_bytes.
inline uint64_t comm_size_of(CommOp op, uint64_t bytes, uint64_t group_size) {
  if (op != CommOp::kAllGather || group_size <= 1) return bytes;
  return bytes / group_size + (bytes % group_size != 0 ? 1 : 0);
}

// True when comm_size_of loses the exact bytes (the reader would infer another number).
inline bool needs_exact_bytes(CommOp op, uint64_t bytes, uint64_t group_size) {
  return op == CommOp::kAllGather && group_size > 1 && bytes % group_size != 0;
}

// Node::bytes from a comm_size read under ASTRA-sim's convention; nullopt when it overflows.
inline std::optional<uint64_t> bytes_of(CommOp op, uint64_t comm_size, uint64_t group_size) {
  if (op != CommOp::kAllGather || group_size <= 1) return comm_size;
  if (comm_size > UINT64_MAX / group_size) return std::nullopt;
  return comm_size * group_size;
}

}  // namespace commlab::workload::chakra_size
