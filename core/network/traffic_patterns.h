#pragma once
// Traffic patterns shared by the CLI (`traffic --pattern`) and the packet backend's background
// generators: which (src, dst) rank pairs a pattern makes, from the seeded counter RNG.
#include <cstdint>
#include <utility>
#include <vector>

#include "network/backend.h"
#include "network/packet_config.h"

namespace commlab {

// kPermutation: a random derangement (no rank sends to itself); kIncast: `senders` distinct
// random ranks other than `target`; kAllToAll: every ordered pair; kOnOff: no fixed pairs.
// Throws std::invalid_argument when the pattern does not fit the rank count.
std::vector<std::pair<int, int>> pattern_pairs(const TrafficSpec& spec, int ranks, uint64_t seed);

// One flow of spec.flow_bytes per pair, ids id_base, id_base + 1, ... (the ECMP keys).
std::vector<Flow> pattern_flows(const TrafficSpec& spec, int ranks, uint64_t seed,
                                uint64_t id_base = 0);

}  // namespace commlab
