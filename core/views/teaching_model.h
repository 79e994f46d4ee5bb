#pragma once
// The data behind the teaching view, Qt-free so tests can check it: a collective on a few ranks run
// step by step by the real executor on buffers where rank r holds 2^r everywhere. After any step,
// the bits of a cell's value say exactly which ranks' contributions it contains (real data, not a
// drawing of what the algorithm is supposed to do).
#include <cstdint>
#include <string>
#include <vector>

#include "collective/plan.h"

namespace commlab::views {

struct TeachingSettings {
  int ranks = 4;                   // 2..kTeachingMaxRanks
  std::string algorithm = "ring";  // ring | tree | hd | hier | direct
  int ranks_per_node = 2;          // hier: consecutive ranks share a node
  int skip = 0;                    // SkipReduce s (algorithms whose descriptor skips)
  std::string policy = "naive";    // naive | random | selective
  uint64_t iteration = 0;          // random policy: rotation depends on the iteration
  uint64_t seed = 1;
  // Trimming: this fraction of packets arrives trimmed to its 1-bit EDEN head (the paper's
  // Bernoulli emulation, collective/codec_wire.h TrimWire, 32 values per packet). The collective
  // then also runs on a second copy of the buffers through that real codec; cells whose values
  // differ from the exact run are marked approximate.
  double trim_rate = 0;
  bool operator==(const TeachingSettings&) const = default;
};

// One frame: the buffers after a step (frame 0: before the first step).
struct TeachingFrame {
  std::string phase;                         // empty for frame 0
  std::vector<Transfer> transfers;           // the step's transfers
  std::vector<std::vector<uint32_t>> masks;  // [rank][cell]: bit r set = contains rank r's data
  // Trimming only: [rank][cell] the largest relative error of the cell's values in the trimmed run
  // against the exact one (0: exact), and this step's packets and how many arrived trimmed.
  std::vector<std::vector<float>> error;
  uint64_t packets = 0, trimmed = 0;
  std::string caption;
};

struct TeachingTrace {
  TeachingSettings settings;
  int ranks = 0;
  uint64_t count = 0;                // elements per rank
  std::vector<uint64_t> cell_begin;  // display cells: size cells + 1
  std::vector<TeachingFrame> frames;
  int skipped_steps = 0;  // reduce-scatter steps SkipReduce removed
  int rotation = 0;       // SkipReduce ring rotation (random policy)
  // Per cell, the ranks SkipReduce leaves out of it (bitmask), from the plan.
  std::vector<uint32_t> dropped_mask;

  int cells() const { return static_cast<int>(cell_begin.size()) - 1; }
  int steps() const { return static_cast<int>(frames.size()) - 1; }
  // Cells [first, last] that a transfer covers.
  std::pair<int, int> cells_of(const Transfer& t) const;
};

// Rank r holds 2^r, so a cell's value is the bitmask of the ranks it holds: sums of up to 16 ranks
// stay below 2^16, exact in FP32 (24-bit significand).
inline constexpr int kTeachingMaxRanks = 16;
inline constexpr uint32_t kTeachingPacketValues = 32;  // values per trimmable packet

// Throws std::invalid_argument for settings the engine rejects (e.g. SkipReduce with direct).
TeachingTrace compute_teaching_trace(const TeachingSettings& settings);

// "step 3/6 reduce-scatter: rank 0 sends chunk 3 to rank 1, which adds it; ..."
std::string teaching_caption(const TeachingTrace& trace, int frame);

}  // namespace commlab::views
