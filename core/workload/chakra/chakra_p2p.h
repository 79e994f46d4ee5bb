#pragma once
// The Chakra reader's check of point-to-point sizes (no protobuf): the scheduler times a message
// by its send's comm_size and never reads the receive's, so a 1 KB send received as 1 TB would
// replay as 1 KB without a word. Issue 31.
#include <string>

#include "workload/graph.h"

namespace commlab::workload::chakra_p2p {

// Sends from rank S to rank D with tag T pair with D's receives from S with tag T. When there are
// as many of each, the two lists of sizes must be the same multiset (then some pairing matches
// every size; otherwise every pairing mismatches one). Throws std::invalid_argument naming both
// nodes (LABEL.RANK.et, rank, node id) and both sizes. Unequal counts are left to the scheduler,
// which reports the unmatched message.
void check_sizes(const Graph& graph, const std::string& label);

}  // namespace commlab::workload::chakra_p2p
