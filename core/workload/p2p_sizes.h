#pragma once
// Point-to-point sizes must agree: the scheduler times a message by its send's bytes and never
// reads the receive's, so a 1 KB send received as 1 TB would replay as 1 KB without a word (issue
// 31). check_graph runs it for every producer; the Chakra reader runs it with its file names.
#include <string>

#include "workload/graph.h"

namespace commlab::workload {

// Sends from rank S to rank D with tag T pair with D's receives from S with tag T. When there are
// as many of each, the two lists of sizes must be the same multiset (then some pairing matches
// every size; otherwise every pairing mismatches one). Throws std::invalid_argument naming both
// nodes (LABEL.RANK.et when a trace's label is given, then rank and node id) and both sizes.
// Unequal counts are left to the scheduler, which reports the unmatched message.
void check_p2p_sizes(const Graph& graph, const std::string& trace_label = "");

}  // namespace commlab::workload
