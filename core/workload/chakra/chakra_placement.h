#pragma once
// The Chakra reader's second half (no protobuf): nodes as parsed from one rank's file, in file
// order with dependencies by id, placed into a RankGraph in a topological order.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "workload/graph.h"

namespace commlab::workload::chakra_place {

struct RawNode {
  Node node;               // every field but the dependencies
  uint64_t dep_begin = 0;  // into RawRank::dep_ids: data deps, then ctrl deps
  uint32_t data = 0, ctrl = 0;
  uint64_t offset = 0;   // byte offset of its length prefix
  bool skipped = false;  // METADATA, MEM_*, INVALID, ...: its dependants inherit its deps
};

struct RawRank {
  std::string file;  // for messages
  int rank = 0;
  std::vector<RawNode> nodes;
  std::vector<uint64_t> dep_ids;
  std::unordered_map<uint64_t, uint32_t> index;  // node id -> nodes[] index
};

// Places the kept nodes in a topological order that keeps the file's order where it already is
// one (so a written graph reads back position for position). Throws std::invalid_argument naming
// the file, rank and node: a dependency on a missing node, a cycle, over 65535 deps of a kind,
// more than max_forwarded dependencies passed on through skipped nodes (*forwarded counts them
// over the whole trace: a skipped node's D dependencies are passed to each of its K dependants,
// D x K, to its skipped dependants once).
void place_rank(const RawRank& raw, RankGraph* out, uint64_t* forwarded, uint64_t max_forwarded);

}  // namespace commlab::workload::chakra_place
