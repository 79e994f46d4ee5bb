#include "views/teaching_model.h"

#include <gtest/gtest.h>

#include <bit>
#include <stdexcept>

#include "collective/algorithms.h"
#include "io/status.h"

namespace commlab::views {
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

TEST(TeachingModel, TrimmedPacketsMakeExactlyTheCellsTheyFedApproximate) {
  const TeachingTrace exact = compute_teaching_trace(TeachingSettings{});
  TeachingSettings s;
  s.trim_rate = 1.0;
  const TeachingTrace all = compute_teaching_trace(s);
  ASSERT_EQ(all.steps(), exact.steps());
  // Ring on 4 ranks, 840 values: chunks of 210 values, packets of 32 -> ceil(210 / 32) = 7 per
  // transfer, 4 transfers per step; at rate 1 every one arrives trimmed.
  const uint64_t per_step = 4 * ((210 + kTeachingPacketValues - 1) / kTeachingPacketValues);
  for (int f = 1; f <= all.steps(); ++f) {
    EXPECT_EQ(all.frames[f].packets, per_step) << "step " << f;
    EXPECT_EQ(all.frames[f].trimmed, per_step) << "step " << f;
    // Trimming changes values, never which ranks' contributions a cell holds.
    EXPECT_EQ(all.frames[f].masks, exact.frames[f].masks) << "step " << f;
  }
  // Before any step every value is exact; after step 1 exactly the cells received are
  // approximate (a 1-bit head cannot carry 2^r exactly), the rest untouched.
  for (const auto& rank : all.frames[0].error)
    for (float e : rank) EXPECT_EQ(e, 0.0f);
  const TeachingFrame& f1 = all.frames[1];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      bool received = false;
      for (const Transfer& t : f1.transfers) {
        auto [first, last] = all.cells_of(t);
        received |= t.dst == r && c >= first && c <= last;
      }
      if (received)
        EXPECT_GT(f1.error[r][c], 0.0f) << "rank " << r << " cell " << c;
      else
        EXPECT_EQ(f1.error[r][c], 0.0f) << "rank " << r << " cell " << c;
    }
  EXPECT_NE(f1.caption.find("28 of 28 packets arrived trimmed"), std::string::npos) << f1.caption;

  // At rate 0.5 some but not all packets are trimmed, the same ones on every computation.
  s.trim_rate = 0.5;
  const TeachingTrace half = compute_teaching_trace(s), again = compute_teaching_trace(s);
  uint64_t packets = 0, trimmed = 0;
  for (int f = 1; f <= half.steps(); ++f) {
    packets += half.frames[f].packets;
    trimmed += half.frames[f].trimmed;
    EXPECT_EQ(half.frames[f].trimmed, again.frames[f].trimmed);
    EXPECT_EQ(half.frames[f].error, again.frames[f].error);
  }
  EXPECT_GT(trimmed, 0u);
  EXPECT_LT(trimmed, packets);
  // Without trimming no error is tracked at all.
  EXPECT_TRUE(exact.frames[1].error.empty());
  s.trim_rate = 1.5;
  EXPECT_THROW(compute_teaching_trace(s), std::invalid_argument);
}

TEST(TeachingModel, RejectsWhatTheEngineCannotShow) {
  TeachingSettings s;
  s.ranks = kTeachingMaxRanks + 1;
  EXPECT_THROW(compute_teaching_trace(s), std::invalid_argument);
  s.ranks = 4;
  s.algorithm = "no-such-algorithm";
  EXPECT_THROW(compute_teaching_trace(s), std::invalid_argument);
  // Tree has a SkipReduce analogue since the collectives learned it (dropped pairs): shown, not
  // refused.
  s.algorithm = "tree";
  s.skip = 1;
  EXPECT_NO_THROW(compute_teaching_trace(s));
  // Beyond the tree's depth floor(log2 4) = 2 the plan would clamp: refused, naming the field.
  s.skip = 3;
  try {
    compute_teaching_trace(s);
    ADD_FAILURE() << "tree skip 3 on 4 ranks was accepted";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status.field, "skip");
  }
  s.algorithm = "direct";
  s.skip = 1;
  EXPECT_THROW(compute_teaching_trace(s), std::invalid_argument);
}

// Every algorithm whose descriptor has a skip limit is shown skipping, at every rank count up to
// the page's 16: the trace reports the skipped steps and SkipReduce's dropped contributions, and
// every cell misses exactly the ranks the plan says it dropped.
TEST(TeachingModel, EverySkippingAlgorithmShowsItsDroppedRanks) {
  for (const Algorithm& a : algorithms()) {
    if (!a.skips() || a.whole_nodes || a.name == "nccl-tree") continue;
    for (int n : {4, 8, 16}) {
      TeachingSettings s;
      s.algorithm = a.name;
      s.ranks = n;
      s.skip = 1;
      const TeachingTrace trace = compute_teaching_trace(s);
      EXPECT_EQ(trace.skipped_steps, 1) << a.name << " n=" << n;
      uint32_t dropped_any = 0;
      const uint32_t all = (1u << n) - 1;
      for (int c = 0; c < trace.cells(); ++c) {
        dropped_any |= trace.dropped_mask[c];
        for (int r = 0; r < n; ++r)
          ASSERT_EQ(trace.frames.back().masks[r][c] | trace.dropped_mask[c], all)
              << a.name << " n=" << n << " rank " << r << " cell " << c;
      }
      EXPECT_NE(dropped_any, 0u) << a.name << " n=" << n << " dropped nothing";
    }
  }
}

}  // namespace
}  // namespace commlab::views
