#pragma once
// Synthetic 2-D classification sets for teaching (spiral, circles, gaussian blobs, XOR) and
// character-level text from any file, all deterministic in the seed.
#include <cstdint>
#include <string>

#include "train/dataset.h"

namespace commlab {

enum class SyntheticKind { kSpiral, kCircles, kBlobs, kXor };

struct SyntheticConfig {
  SyntheticKind kind = SyntheticKind::kSpiral;
  int train_rows = 2000;
  int test_rows = 500;
  int classes = 3;     // spiral arms / blobs; circles and XOR are always 2 classes
  double noise = 0.1;  // standard deviation of the gaussian jitter
  uint64_t seed = 1;
};

SyntheticKind parse_synthetic_kind(const std::string& name);  // throws std::invalid_argument
TrainTest make_synthetic(const SyntheticConfig& config);

// Character-level language-model data: the vocabulary is the set of bytes in the file (sorted);
// rows are non-overlapping windows of `seq` characters (as float ids), labels the next characters.
// The last `test_fraction` of windows are the test set. Files above 64 MiB are refused.
Result<TrainTest> load_char_text(const std::string& path, int seq, double test_fraction);

}  // namespace commlab
