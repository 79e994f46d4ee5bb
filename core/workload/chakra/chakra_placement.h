#pragma once
// The Chakra reader's second half (no protobuf): nodes as parsed from one rank's file, in file
// order with dependencies by id, placed into a RankGraph in a topological order.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "workload/graph.h"

namespace commlab::workload::chakra_place {

// What a node has in the file beside its Node fields (kept apart so the Node array itself
// becomes the RankGraph's, moved, never copied).
struct RawLinks {
  uint64_t dep_begin = 0;  // into RawRank::dep_ids: data deps, then ctrl deps
  uint64_t offset = 0;     // byte offset of its length prefix
  uint32_t data = 0, ctrl = 0;
  bool skipped = false;  // METADATA, MEM_*, INVALID, ...: its dependants inherit its deps
};

// Bytes the reader holds per node and per dependency while a rank is read and placed (the Node,
// its links, its index entry, the placement's marks; a dependency's id, its resolved index and its
// position in the RankGraph): the reader's memory estimate (chakra_reader.cpp) counts these.
inline constexpr uint64_t kBytesPerRawNode = sizeof(Node) + sizeof(RawLinks) + 16 + 9;
inline constexpr uint64_t kBytesPerRawDep = 8 + 4 + 4;

struct RawRank {
  std::string file;  // for messages
  int rank = 0;
  std::vector<Node> nodes;  // every field but the dependencies
  std::vector<RawLinks> links;
  std::vector<uint64_t> dep_ids;
};

// Places the kept nodes in a topological order that keeps the file's order where it already is
// one (so a written graph reads back position for position); raw.nodes is moved into out->nodes.
// Throws std::invalid_argument naming the file, rank and node: a duplicate id, a dependency on a
// missing node, a cycle, over 65535 deps of a kind, more than max_forwarded dependencies passed
// on through skipped nodes (*forwarded counts them over the whole trace: a skipped node's D
// dependencies are passed to each of its K dependants, D x K, to its skipped dependants once).
void place_rank(RawRank& raw, RankGraph* out, uint64_t* forwarded, uint64_t max_forwarded);

}  // namespace commlab::workload::chakra_place
