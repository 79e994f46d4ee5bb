#pragma once
// SkipReduce (the SkipReduce paper, docs/papers.md): skip s of the N-1 steps of the ring reduce-scatter, so the
// collective really gets shorter. Chunk c, owned by rank (c + rotation) mod N, then sums only the
// owner and the N-1-s ranks before it; the s ring-successors of the owner are dropped.
#include <cstdint>
#include <string>
#include <vector>

namespace commlab {

enum class SkipPolicy { kNaive, kRandom, kSelective };
SkipPolicy parse_skip_policy(const std::string& name);  // throws std::invalid_argument

struct SkipConfig {
  int skip = 0;  // s; s >= N-1 means no reduce-scatter at all
  SkipPolicy policy = SkipPolicy::kNaive;
  uint64_t seed = 0;
  bool unbiased = false;  // beyond the paper: rescale each chunk by N / (N - s)
  // Selective: never skip these buckets (by name) nor buckets under this many elements.
  std::vector<std::string> protected_buckets;
  uint64_t min_elements = 100000;
};

// What one ring collective call does: the effective skip and the ring rotation.
struct SkipDecision {
  int skip = 0;
  int rotation = 0;
};

// Every rank derives the same decision from (seed, bucket, iteration) alone: no communication.
// `segment` lets large buffers rotate per segment as the patched NCCL does per chunk loop.
SkipDecision decide_skip(const SkipConfig& config, int ranks, int bucket,
                         const std::string& bucket_name, uint64_t elements, uint64_t iteration,
                         int segment = 0);

}  // namespace commlab
