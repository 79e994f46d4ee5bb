#include "teaching_model.h"

#include <gtest/gtest.h>

#include <bit>
#include <stdexcept>

namespace commlab::ui {
namespace {

TEST(TeachingModel, RingAllReduceOnFourRanksEndsWithEveryContributorEverywhere) {
  TeachingTrace trace = compute_teaching_trace(TeachingSettings{});
  // Ring all-reduce on n = 4: n-1 reduce-scatter + n-1 all-gather steps, n chunks.
  ASSERT_EQ(trace.steps(), 6);
  ASSERT_EQ(trace.cells(), 4);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      // Start: rank r holds only 2^r.
      EXPECT_EQ(trace.frames[0].masks[r][c], 1u << r);
      // End: 1 + 2 + 4 + 8 = 0b1111 on every rank and chunk.
      EXPECT_EQ(trace.frames[6].masks[r][c], 0xFu) << "rank " << r << " chunk " << c;
    }
  // After the reduce-scatter (step n-1 = 3) each rank owns exactly one complete chunk.
  for (int r = 0; r < 4; ++r) {
    int complete = 0;
    for (int c = 0; c < 4; ++c) complete += trace.frames[3].masks[r][c] == 0xFu;
    EXPECT_EQ(complete, 1) << "rank " << r;
  }
  // Each reduce-scatter step adds exactly one contributor to the received chunk.
  const Transfer& t = trace.frames[1].transfers.front();
  auto [cell, last] = trace.cells_of(t);
  ASSERT_EQ(cell, last);
  EXPECT_EQ(std::popcount(trace.frames[1].masks[t.dst][cell]), 2);
  EXPECT_NE(trace.frames[1].caption.find("step 1/6 reduce-scatter: rank 0 sends chunk"),
            std::string::npos)
      << trace.frames[1].caption;
  EXPECT_NE(trace.frames[6].caption.find("all 4 contributions"), std::string::npos);
}

TEST(TeachingModel, SkipReduceOneStepMakesEveryChunkMissExactlyOneRank) {
  TeachingSettings s;
  s.skip = 1;
  TeachingTrace trace = compute_teaching_trace(s);
  // SkipReduce removes s of the n-1 reduce-scatter steps: 2 + 3 steps remain.
  EXPECT_EQ(trace.steps(), 5);
  EXPECT_EQ(trace.skipped_steps, 1);
  const auto& last = trace.frames.back().masks;
  for (int c = 0; c < trace.cells(); ++c) {
    EXPECT_EQ(std::popcount(trace.dropped_mask[c]), 1) << "chunk " << c;
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(std::popcount(last[r][c]), 3) << "rank " << r << " chunk " << c;
      // The missing rank is the one the plan says SkipReduce dropped from this chunk.
      EXPECT_EQ(last[r][c] | trace.dropped_mask[c], 0xFu);
    }
  }
  // Naive policy, no rotation: chunk c is owned by rank c and drops its ring successor c+1.
  EXPECT_EQ(trace.dropped_mask[0], 1u << 1);
  EXPECT_NE(trace.frames.back().caption.find("chunk 0 lacks rank 1;"), std::string::npos)
      << trace.frames.back().caption;
}

TEST(TeachingModel, EveryAlgorithmAndRankCountCompletesTheSum) {
  for (const char* algo : {"ring", "tree", "hd", "direct"})
    for (int n = 2; n <= kTeachingMaxRanks; ++n) {
      TeachingSettings s;
      s.ranks = n;
      s.algorithm = algo;
      TeachingTrace trace = compute_teaching_trace(s);
      const uint32_t all = (1u << n) - 1;
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < trace.cells(); ++c)
          ASSERT_EQ(trace.frames.back().masks[r][c], all)
              << algo << " n=" << n << " rank " << r << " cell " << c;
    }
}

TEST(TeachingModel, RandomPolicyRotatesTheDroppedRanks) {
  TeachingSettings s;
  s.skip = 1;
  s.policy = "random";
  uint32_t seen = 0;
  for (uint64_t it = 0; it < 16; ++it) {
    s.iteration = it;
    seen |= compute_teaching_trace(s).dropped_mask[0];
  }
  // Over 16 iterations chunk 0's dropped rank is not always the same one.
  EXPECT_GT(std::popcount(seen), 1);
}

TEST(TeachingModel, RejectsWhatTheEngineCannotShow) {
  TeachingSettings s;
  s.ranks = 9;
  EXPECT_THROW(compute_teaching_trace(s), std::invalid_argument);
  s.ranks = 4;
  s.algorithm = "no-such-algorithm";
  EXPECT_THROW(compute_teaching_trace(s), std::invalid_argument);
  // Tree has a SkipReduce analogue since the collectives learned it (dropped pairs): shown, not
  // refused.
  s.algorithm = "tree";
  s.skip = 1;
  EXPECT_NO_THROW(compute_teaching_trace(s));
}

}  // namespace
}  // namespace commlab::ui
