// SkipReduce (research/skipreduce.md): the ring runs n-1-s reduce-scatter steps; chunk c keeps only
// its owner and the n-1-s ranks before it. The expected sums come from a separate statement of the
// rule below, not from the ring's code.
#include <gtest/gtest.h>

#include <set>

#include "collective/algorithms.h"
#include "test_util.h"

namespace commlab {
namespace {

// The rule, stated independently: with rotation sigma, chunk c is owned by rank (c + sigma) mod n,
// and the s ranks owner+1 .. owner+s (mod n) are the ones whose contribution is skipped.
std::set<int> kept_ranks(int n, int s, int sigma, int c) {
  std::set<int> kept;
  int owner = (c + sigma) % n;
  for (int r = 0; r < n; ++r) {
    int after_owner = ((r - owner) % n + n) % n;  // 0 for the owner, 1 for its successor, ...
    if (after_owner == 0 || after_owner > s) kept.insert(r);
  }
  return kept;
}

TEST(SkipReduce, EachChunkSumsExactlyTheKeptRanks) {
  for (int n : {2, 3, 4, 8, 13}) {
    for (int s = 0; s <= n; ++s) {
      for (int sigma : {0, 1, n - 1}) {
        PlanRequest req;
        req.ranks = n;
        req.count = 10 * n + 3;
        req.skip = SkipDecision{s, sigma};
        Plan plan = build_plan("ring", req);
        auto run = testing::run_on_test_data(plan);
        int eff = std::min(s, n - 1);
        for (int c = 0; c < n; ++c) {
          std::set<int> kept = kept_ranks(n, eff, sigma % n, c);
          EXPECT_EQ(static_cast<int>(kept.size()), n - eff);
          for (uint64_t i = plan.chunk_begin[c]; i < plan.chunk_begin[c + 1]; ++i) {
            float expected = 0;
            for (int r : kept) expected += run.inputs[r][i];
            for (int r = 0; r < n; ++r)
              ASSERT_EQ(run.outputs[r][i], expected)
                  << "n=" << n << " s=" << s << " sigma=" << sigma << " chunk " << c;
          }
        }
        // The collective reports exactly the dropped (chunk, rank) pairs.
        EXPECT_EQ(plan.dropped.size(), static_cast<size_t>(n * eff));
        // 2(n-1) - s steps (s capped at n-1: then only the all-gather remains).
        EXPECT_EQ(plan.total_steps(), static_cast<uint64_t>(2 * (n - 1) - eff));
      }
    }
  }
}

TEST(SkipReduce, UnbiasedVariantRescalesByNOverNMinusS) {
  PlanRequest req;
  req.ranks = 8;
  req.count = 64;
  req.skip = SkipDecision{4, 0};
  req.unbiased_skip = true;
  Plan plan = build_plan("ring", req);
  auto run = testing::run_on_test_data(plan);
  // Scale n/(n-s) = 2: every chunk is twice the sum of its 4 kept ranks.
  for (int c = 0; c < 8; ++c) {
    std::set<int> kept = kept_ranks(8, 4, 0, c);
    for (uint64_t i = plan.chunk_begin[c]; i < plan.chunk_begin[c + 1]; ++i) {
      float sum = 0;
      for (int r : kept) sum += run.inputs[r][i];
      EXPECT_EQ(run.outputs[3][i], 2 * sum);
    }
  }
}

TEST(SkipReduce, RandomPolicyIsAPureFunctionOfBucketAndIteration) {
  SkipConfig cfg{4, SkipPolicy::kRandom, 42};
  // Every rank calls decide_skip with the same arguments: no rank enters it, so they agree.
  std::set<int> rotations;
  for (uint64_t it = 0; it < 64; ++it) {
    SkipDecision a = decide_skip(cfg, 8, 3, "fc1", 1 << 20, it);
    SkipDecision b = decide_skip(cfg, 8, 3, "fc1", 1 << 20, it);
    EXPECT_EQ(a.rotation, b.rotation);
    EXPECT_EQ(a.skip, 4);
    rotations.insert(a.rotation);
  }
  // Over 64 iterations the rotation takes most of its 8 values (all 8 with probability > 0.99).
  EXPECT_GE(rotations.size(), 7u);
  // Naive never rotates.
  cfg.policy = SkipPolicy::kNaive;
  for (uint64_t it = 0; it < 8; ++it)
    EXPECT_EQ(decide_skip(cfg, 8, 3, "fc1", 1 << 20, it).rotation, 0);
}

TEST(SkipReduce, SelectiveProtectsNamedAndSmallBuckets) {
  SkipConfig cfg{4, SkipPolicy::kSelective, 1};
  cfg.protected_buckets = {"embedding"};
  EXPECT_EQ(decide_skip(cfg, 8, 0, "embedding", 1 << 20, 5).skip, 0);
  EXPECT_EQ(decide_skip(cfg, 8, 1, "fc", 99999, 5).skip, 0);  // under 100,000 elements
  EXPECT_EQ(decide_skip(cfg, 8, 1, "fc", 100000, 5).skip, 4);
}

TEST(SkipReduce, OtherAlgorithmsRefuseASkip) {
  PlanRequest req;
  req.ranks = 8;
  req.count = 64;
  req.skip = SkipDecision{2, 0};
  EXPECT_THROW(build_plan("tree", req), std::invalid_argument);
}

}  // namespace
}  // namespace commlab
