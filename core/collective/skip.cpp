#include "collective/skip.h"

#include <algorithm>
#include <stdexcept>

#include "io/status.h"
#include "numeric/rng.h"

namespace commlab {

SkipPolicy parse_skip_policy(const std::string& name) {
  if (name == "naive") return SkipPolicy::kNaive;
  if (name == "random") return SkipPolicy::kRandom;
  if (name == "selective") return SkipPolicy::kSelective;
  throw bad_input("unknown skip policy '" + name + "' (expected naive, random or selective)");
}

SkipDecision decide_skip(const SkipConfig& config, int ranks, int bucket,
                         const std::string& bucket_name, uint64_t elements, uint64_t iteration,
                         int segment) {
  if (ranks < 1)
    throw StatusError("ranks", "expected at least 1 rank, got " + std::to_string(ranks));
  if (config.skip < 0 || config.skip > std::max(ranks - 1, 0))
    throw StatusError("skip", "expected 0 to ranks - 1 (" + std::to_string(std::max(ranks - 1, 0)) +
                                  ") steps on " + std::to_string(ranks) + " ranks, got " +
                                  std::to_string(config.skip));
  SkipDecision d;
  if (ranks < 2 || config.skip <= 0) return d;
  d.skip = config.skip;  // within [0, ranks - 1], checked above
  if (config.policy == SkipPolicy::kSelective) {
    bool is_protected = std::find(config.protected_buckets.begin(), config.protected_buckets.end(),
                                  bucket_name) != config.protected_buckets.end();
    if (is_protected || elements < config.min_elements) return SkipDecision{};
  }
  if (config.policy != SkipPolicy::kNaive) {
    CounterRng rng(config.seed, Purpose::kSkipRotation, static_cast<uint64_t>(bucket), iteration);
    d.rotation = static_cast<int>(rng.below(static_cast<uint64_t>(segment), ranks));
  }
  return d;
}

}  // namespace commlab
