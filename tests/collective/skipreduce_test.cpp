// SkipReduce (the SkipReduce paper, docs/papers.md): the ring runs n-1-s reduce-scatter steps;
// chunk c keeps only its owner and the n-1-s ranks before it. The expected sums come from a
// separate statement of the rule below, not from the ring's code.
#include <gtest/gtest.h>

#include <set>

#include "collective/algorithms.h"
#include "io/status.h"
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
        // Beyond N-1 steps there is nothing left to skip: refused, never clamped.
        if (s > n - 1) {
          EXPECT_THROW(build_plan("ring", req), StatusError) << "n=" << n << " s=" << s;
          continue;
        }
        Plan plan = build_plan("ring", req);
        auto run = testing::run_on_test_data(plan);
        const int eff = s;
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

TEST(SkipReduce, HierAndDirectRefuseASkip) {
  PlanRequest req;
  req.ranks = 8;
  req.count = 64;
  req.skip = SkipDecision{2, 0};
  EXPECT_THROW(build_plan("hier", req), std::invalid_argument);
  EXPECT_THROW(build_plan("direct", req), std::invalid_argument);
}

// Rank r holds 2^r everywhere: after the collective each element's value is the bit set of the
// ranks whose data reached it, so the data itself says which (chunk, rank) pairs were dropped.
std::set<std::pair<int, int>> dropped_seen_in_data(const Plan& plan) {
  std::vector<std::vector<float>> data(plan.ranks, std::vector<float>(plan.count));
  std::vector<std::span<float>> views;
  for (int r = 0; r < plan.ranks; ++r) {
    std::fill(data[r].begin(), data[r].end(), static_cast<float>(1u << r));
    views.emplace_back(data[r]);
  }
  execute_plan(plan, views, {});
  std::set<std::pair<int, int>> seen;
  const bool gather = plan.op == CollectiveOp::kAllGather;
  for (size_t c = 0; c < plan.chunk_owner.size(); ++c) {
    const int owner = plan.chunk_owner[c];
    for (uint64_t i = plan.chunk_begin[c]; i < plan.chunk_begin[c + 1]; ++i) {
      for (int holder = 0; holder < plan.ranks; ++holder) {
        if (plan.op == CollectiveOp::kReduceScatter && holder != owner) continue;
        auto bits = static_cast<uint32_t>(data[holder][i]);
        if (gather) {  // holder either received the owner's value or kept its own
          if (bits != (1u << owner)) seen.insert({static_cast<int>(c), holder});
        } else {
          for (int r = 0; r < plan.ranks; ++r)
            if (!(bits >> r & 1)) seen.insert({static_cast<int>(c), r});
        }
      }
    }
  }
  return seen;
}

TEST(SkipReduce, ReportedDroppedPairsAreWhatTheDataShows) {
  for (const char* algo : {"ring", "tree", "hd"})
    for (CollectiveOp op :
         {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter, CollectiveOp::kAllGather})
      for (int n : {2, 3, 4, 8, 13})
        for (int s : {0, 1, 2, 3, 12}) {
          PlanRequest req;
          req.op = op;
          req.ranks = n;
          req.count = 3 * n + 2;
          req.skip = SkipDecision{s, n > 2 ? 1 : 0};
          // A skip beyond the algorithm's limit on n ranks is refused (the plan would clamp it).
          if (s > find_algorithm(algo).skip_limit(n).max) {
            EXPECT_THROW(build_plan(algo, req), StatusError) << algo << " n=" << n << " s=" << s;
            continue;
          }
          Plan plan = build_plan(algo, req);
          std::set<std::pair<int, int>> reported;
          for (const DroppedContribution& d : plan.dropped) reported.insert({d.chunk, d.rank});
          EXPECT_EQ(reported.size(), plan.dropped.size()) << "duplicates";
          EXPECT_EQ(dropped_seen_in_data(plan), reported)
              << algo << " " << op_name(op) << " n=" << n << " s=" << s;
          if (s == 0) EXPECT_TRUE(reported.empty());
        }
}

TEST(SkipReduce, StandaloneRingAllGatherSkipsItsLastSteps) {
  const int n = 8, s = 3;
  PlanRequest req;
  req.op = CollectiveOp::kAllGather;
  req.ranks = n;
  req.count = 80;
  req.skip = SkipDecision{s, 0};
  Plan plan = build_plan("ring", req);
  // n-1-s steps; chunk c (owner c) never reaches the s ranks before its owner: c-1 .. c-s.
  EXPECT_EQ(plan.total_steps(), static_cast<uint64_t>(n - 1 - s));
  std::set<std::pair<int, int>> expected;
  for (int c = 0; c < n; ++c)
    for (int j = 1; j <= s; ++j) expected.insert({c, (c - j + n) % n});
  std::set<std::pair<int, int>> reported;
  for (const DroppedContribution& d : plan.dropped) reported.insert({d.chunk, d.rank});
  EXPECT_EQ(reported, expected);
}

TEST(SkipReduce, StandaloneRingReduceScatterFollowsTheAllReduceRule) {
  for (int n : {3, 8, 13})
    for (int s = 1; s < n; s += 2) {
      PlanRequest req;
      req.op = CollectiveOp::kReduceScatter;
      req.ranks = n;
      req.count = 5 * n + 1;
      req.skip = SkipDecision{s, 2};
      Plan plan = build_plan("ring", req);
      auto run = testing::run_on_test_data(plan);
      for (int c = 0; c < n; ++c) {
        std::set<int> kept = kept_ranks(n, s, 2, c);
        for (uint64_t i = plan.chunk_begin[c]; i < plan.chunk_begin[c + 1]; ++i) {
          float expected = 0;
          for (int r : kept) expected += run.inputs[r][i];
          ASSERT_EQ(run.outputs[plan.chunk_owner[c]][i], expected) << "n=" << n << " s=" << s;
        }
      }
      // n-1-s steps.
      EXPECT_EQ(plan.total_steps(), static_cast<uint64_t>(n - 1 - s));
    }
}

TEST(SkipReduce, TreeDropsTheDeepestLevelsAndHdTheLastHalvingRounds) {
  // Tree over 13 ranks (depth 3), s = 1: the 6 ranks at depth 3 (positions 7..12) of each tree are
  // missing from that tree's half; 2 x 3 - 1 = 5 steps.
  PlanRequest req;
  req.ranks = 13;
  req.count = 130;
  req.skip = SkipDecision{1, 0};
  Plan tree = build_plan("tree", req);
  EXPECT_EQ(tree.total_steps(), 5u);
  EXPECT_EQ(tree.dropped.size(), 2u * 6);
  for (const DroppedContribution& d : tree.dropped) {
    int position = d.chunk == 0 ? d.rank : 12 - d.rank;
    EXPECT_GE(position, 7) << "chunk " << d.chunk << " rank " << d.rank;
  }
  // hd over 8 ranks, s = 2: chunk c keeps only the ranks agreeing with c on the low 2 bits
  // (8 / 2^2 = 2 of 8), so 6 of 8 contributions per chunk are dropped; 2 log2(8) - 2 = 4 steps.
  req.ranks = 8;
  req.skip = SkipDecision{2, 0};
  Plan hd = build_plan("hd", req);
  EXPECT_EQ(hd.total_steps(), 4u);
  EXPECT_EQ(hd.dropped.size(), 8u * 6);
  for (const DroppedContribution& d : hd.dropped) EXPECT_NE((d.chunk ^ d.rank) & 3, 0);
}

TEST(SkipReduce, UnbiasedRescalesEveryAlgorithmByRanksOverContributors) {
  for (const char* algo : {"ring", "tree", "hd"}) {
    PlanRequest req;
    req.ranks = 8;
    req.count = 64;
    req.skip = SkipDecision{1, 0};
    req.unbiased_skip = true;
    Plan plan = build_plan(algo, req);
    std::vector<int> missing(plan.chunk_owner.size(), 0);
    for (const DroppedContribution& d : plan.dropped) ++missing[d.chunk];
    ASSERT_EQ(plan.chunk_scale.size(), missing.size()) << algo;
    // Scale of chunk c = n / (n - dropped(c)).
    for (size_t c = 0; c < missing.size(); ++c)
      EXPECT_DOUBLE_EQ(plan.chunk_scale[c], 8.0 / (8 - missing[c])) << algo << " chunk " << c;
    auto run = testing::run_on_test_data(plan);
    Verification v = verify_collective(plan, run.inputs, run.views(), 1e-4);
    EXPECT_TRUE(v.ok) << algo << ": " << v.first_mismatch;
  }
}

}  // namespace
}  // namespace commlab
