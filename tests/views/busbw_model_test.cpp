#include "views/busbw_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace commlab::views {
namespace {

TEST(BusbwModel, RingCeilingIsTheLinkAndLatencySlowsSmallMessages) {
  // Ring's ceiling is the link bandwidth: busbw = B when alpha = 0 (B = 25 GB/s).
  const auto result = compute_busbw(8, 25, 5, 1024, 4096);
  ASSERT_EQ(result.front().algorithm, "ring");
  EXPECT_NEAR(result.front().ceiling_gbps, 25.0, 0.25);
  // 1 KiB over 14 steps of 5 us: busbw = 1 KiB / 70 us x 14/8, far below the ceiling.
  EXPECT_LT(result.front().points.front().busbw_gbps, 0.5 * result.front().ceiling_gbps);
}

TEST(BusbwModel, RingSlicingOffIsThePlainAlphaBetaRing) {
  // Slicing off: ring all-reduce of S bytes on n ranks takes 2(n-1)(alpha + S/(n B)), so
  // busbw = S / t x 2(n-1)/n. n = 8, B = 25 GB/s, alpha = 5 us, S = 64 MiB.
  const double S = 64.0 * (1 << 20), n = 8, B = 25e9, alpha = 5e-6;
  const double t = 2 * (n - 1) * (alpha + S / (n * B));
  const double expected = S / t / 1e9 * 2 * (n - 1) / n;
  const auto off = compute_busbw(8, 25, 5, 64 << 20, 64 << 20, PipelineConfig{0, 0});
  EXPECT_NEAR(off.front().points.front().busbw_gbps, expected, 1e-6 * expected);
  // NCCL's default slicing (512 KiB slices of 2 MiB chunks) pays alpha per slice: another curve.
  const auto on = compute_busbw(8, 25, 5, 64 << 20, 64 << 20);
  EXPECT_GT(std::abs(on.front().points.front().busbw_gbps - expected), 0.01 * expected);
}

TEST(BusbwModel, NcclModeNamesItsCurvesAndTheChoicePerSize) {
  // 2 nodes x 8 H100: the tuner's curve and NCCL's forced ring and tree, every point labelled
  // "ALGO PROTO xCHANNELS"; the tuner changes its choice across 1 KiB..1 GiB.
  const auto result = compute_nccl_busbw("dgx-h100-pod:nodes=2", "auto", 0, 1024, 1ull << 30);
  ASSERT_EQ(result.size(), 3u);
  EXPECT_EQ(result[0].algorithm, "NCCL");
  EXPECT_EQ(result[1].algorithm, "ring (NCCL)");
  EXPECT_EQ(result[2].algorithm, "tree (NCCL)");
  std::set<std::string> choices;
  for (const BusbwPoint& p : result[0].points) {
    EXPECT_FALSE(p.choice.empty());
    choices.insert(p.choice.substr(0, p.choice.rfind(' ')));  // algorithm and protocol
  }
  EXPECT_GE(choices.size(), 2u);
  // On the largest message the tuner's curve is at least as fast as either forced one.
  EXPECT_GE(
      result[0].points.back().busbw_gbps,
      0.999 * std::max(result[1].points.back().busbw_gbps, result[2].points.back().busbw_gbps));
}

}  // namespace
}  // namespace commlab::views
