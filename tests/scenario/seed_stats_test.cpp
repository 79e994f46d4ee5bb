// Seeds and intervals: the Student-t interval on known inputs, the seed replicas,
// time-to-accuracy against the baseline paired by seed, and seeds that never reach the target.
#include "scenario/run/seed_stats.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/tta_runs.h"

namespace commlab {
namespace {

TEST(SeedStats, StudentTIntervalOfKnownValues) {
  // {1, 2, 3}: mean 2, s = 1, half-width t_{0.975,2} * 1 / sqrt(3) = 4.302653 / 1.732051 = 2.484.
  const Interval iv = mean_ci95({1, 2, 3});
  EXPECT_EQ(iv.n, 3);
  EXPECT_DOUBLE_EQ(iv.mean, 2.0);
  EXPECT_NEAR(iv.half_width, 2.484138, 1e-6);
  EXPECT_NEAR(iv.lo(), 2 - 2.484138, 1e-6);
  // {10, 12}: s = sqrt(2), t_{0.975,1} = 12.706205: half-width 12.706205 * sqrt(2) / sqrt(2).
  EXPECT_NEAR(mean_ci95({10, 12}).half_width, 12.706205, 1e-6);
  // One value: a mean, no interval; none: no mean.
  EXPECT_FALSE(mean_ci95({0.5}).has_interval());
  EXPECT_DOUBLE_EQ(mean_ci95({0.5}).mean, 0.5);
  EXPECT_TRUE(std::isnan(mean_ci95({}).mean));
}

TEST(SeedStats, TQuantileMatchesTablesBeyondThirty) {
  EXPECT_NEAR(t_quantile_975(30), 2.042272, 1e-6);
  EXPECT_NEAR(t_quantile_975(40), 2.021075, 1e-5);
  EXPECT_NEAR(t_quantile_975(60), 2.000298, 1e-5);
  EXPECT_NEAR(t_quantile_975(120), 1.979930, 1e-5);
  EXPECT_TRUE(std::isnan(t_quantile_975(0)));
}

TEST(SeedStats, IntervalsOverlapOnlyWhenBothExist) {
  EXPECT_TRUE(mean_ci95({1, 2, 3}).overlaps(mean_ci95({3, 4, 5})));
  EXPECT_FALSE(mean_ci95({1.0, 1.1}).overlaps(mean_ci95({1000, 1000.1})));
  EXPECT_FALSE(mean_ci95({1}).overlaps(mean_ci95({1, 2})));
}

TEST(SeedStats, ExpandsEveryRunIntoConsecutiveSeeds) {
  RunConfig a, b;
  a.name = "a";
  a.seed = 7;
  a.seeds = 3;
  b.name = "b";
  b.seed = 1;
  std::vector<size_t> first;
  std::vector<RunConfig> r = expand_seeds({a, b}, 0, &first);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(first, (std::vector<size_t>{0, 3, 4}));
  EXPECT_EQ(r[0].name, "a");
  EXPECT_EQ(r[1].name, "a@seed=8");
  EXPECT_EQ(r[2].seed, 9u);
  EXPECT_EQ(r[3].name, "b");
  EXPECT_EQ(expand_seeds({a, b}, 2, &first).size(), 4u);  // --seeds 2 for both
  EXPECT_EQ(first, (std::vector<size_t>{0, 2, 4}));
}

using testing::run_with_tta;

TEST(SeedStats, TimeToAccuracyRatioIsPairedBySeed) {
  const RunResult base = run_with_tta("baseline", {2, 4, 6});
  const RunResult fast = run_with_tta("fast", {1, 2, 3});
  const SeedStats st = seed_stats(fast, base);
  EXPECT_EQ(st.seeds, (std::vector<uint64_t>{1, 2, 3}));
  // Times {1, 2, 3}: mean 2, half-width t_{0.975,2} * 1 / sqrt(3) = 2.484138.
  EXPECT_DOUBLE_EQ(st.time_to_accuracy_s.interval.mean, 2.0);
  EXPECT_NEAR(st.time_to_accuracy_s.interval.half_width, 2.484138, 1e-6);
  // Each seed takes half the baseline's time: ratios {0.5, 0.5, 0.5}, speedups {2, 2, 2}.
  EXPECT_DOUBLE_EQ(st.time_to_accuracy_ratio.mean, 0.5);
  EXPECT_DOUBLE_EQ(st.time_to_accuracy_speedup.mean, 2.0);
  EXPECT_DOUBLE_EQ(st.time_to_accuracy_speedup.half_width, 0.0);
  // Iterations are 10 x the time: {10, 20, 30}, mean 20.
  EXPECT_DOUBLE_EQ(st.iterations_to_accuracy.interval.mean, 20.0);
  // [2 -+ 2.48] and the baseline's [4 -+ 4.97] overlap.
  EXPECT_EQ(st.time_to_accuracy_s.against_baseline, NoiseCheck::kWithinNoise);
  EXPECT_EQ(st.baseline, "baseline");
  // summary.json's form of the same values.
  const nlohmann::json j = seed_stats_json(st);
  EXPECT_EQ(j["n"], 3);
  EXPECT_EQ(j["values"], nlohmann::json::array({1, 2, 3}));
  EXPECT_DOUBLE_EQ(j["time_to_accuracy_s"]["mean"].get<double>(), 2.0);
  EXPECT_NEAR(j["time_to_accuracy_s"]["half_width"].get<double>(), 2.484138, 1e-6);
  EXPECT_TRUE(j["time_to_accuracy_s"]["within_noise_of_baseline"].get<bool>());
  EXPECT_DOUBLE_EQ(j["time_to_accuracy_speedup"]["mean"].get<double>(), 2.0);
  // The baseline against itself: ratio 1, no within-noise verdict.
  const SeedStats b = seed_stats(base, base);
  EXPECT_DOUBLE_EQ(b.time_to_accuracy_ratio.mean, 1.0);
  EXPECT_EQ(b.time_to_accuracy_s.against_baseline, NoiseCheck::kNotCompared);
  EXPECT_FALSE(seed_stats_json(b)["time_to_accuracy_s"].contains("within_noise_of_baseline"));
}

TEST(SeedStats, SeedsThatNeverReachTheTargetAreNullAndLeftOut) {
  const RunResult base = run_with_tta("baseline", {2, 4, 6});
  const RunResult slow = run_with_tta("slow", {4, -1, 12});
  const SeedStats st = seed_stats(slow, base);
  EXPECT_EQ(st.reached, 2);
  EXPECT_TRUE(std::isnan(st.time_to_accuracy_s.values[1]));
  // The two reached seeds: (4 + 12) / 2 = 8; ratios 4/2 and 12/6, mean 2 over 2 pairs.
  EXPECT_DOUBLE_EQ(st.time_to_accuracy_s.interval.mean, 8.0);
  EXPECT_EQ(st.time_to_accuracy_ratio.n, 2);
  EXPECT_DOUBLE_EQ(st.time_to_accuracy_ratio.mean, 2.0);
  const nlohmann::json j = seed_stats_json(st);
  EXPECT_EQ(j["time_to_accuracy_s"]["reached"], 2);
  EXPECT_TRUE(j["time_to_accuracy_s"]["values"][1].is_null());
  // No seed reached: no mean, written null.
  const RunResult never = run_with_tta("never", {-1});
  const SeedStats n = seed_stats(never, base);
  EXPECT_TRUE(std::isnan(n.time_to_accuracy_s.interval.mean));
  EXPECT_TRUE(std::isnan(n.time_to_accuracy_speedup.mean));
  EXPECT_TRUE(seed_stats_json(n)["time_to_accuracy_s"]["mean"].is_null());
  EXPECT_TRUE(seed_stats_json(n)["time_to_accuracy_speedup"]["mean"].is_null());
}

TEST(SeedStats, TimeToAccuracyStatisticsForSummaryJson) {
  // 6 seeds, so the order-statistic interval exists (N = 6: [x_(1), x_(6)], coverage 1 - 2/64).
  RunResult base = run_with_tta("baseline", {2, 4, 6, 8, 10, 12});
  RunResult fast = run_with_tta("fast", {1, 2, 3, 4, 5, -1});
  const TtaStats st = tta_stats(fast, base, 0.83);
  ASSERT_TRUE(st.time_to_accuracy.has_value());
  const TimeToAccuracy& t = *st.time_to_accuracy;
  EXPECT_DOUBLE_EQ(t.target, 0.83);
  EXPECT_EQ(t.seconds.seeds, 6);
  EXPECT_EQ(t.seconds.reached, 5);
  EXPECT_TRUE(std::isnan(t.per_seed_s[5]));
  // Sorted 1, 2, 3, 4, 5, +inf: median (x_(3) + x_(4)) / 2 = 3.5.
  EXPECT_DOUBLE_EQ(t.seconds.estimate, 3.5);
  // Iterations (10 x the time here): median (30 + 40) / 2 = 35.
  EXPECT_DOUBLE_EQ(t.iterations.estimate, 35);
  // [x_(1), x_(6)] = [1, +inf]: the upper end is a non-reaching seed, unbounded.
  ASSERT_TRUE(t.seconds.has_interval());
  EXPECT_DOUBLE_EQ(t.seconds.lo, 1);
  EXPECT_TRUE(std::isinf(t.seconds.hi));
  EXPECT_NEAR(t.seconds.coverage, 1 - 2.0 / 64, 1e-12);
  // Speedup over all 6 pairs (seed 6 censored: the arm missed, d_6 = -inf ranked worst); the
  // other d_k = ln 2. Walsh averages: 1 at -inf (d_6 with itself), 5 at -inf / 2 (d_6 with ln 2),
  // 15 at ln 2: HL = W_(11) = ln 2, estimate 2. Five tied |d|: normal approximation, midranks 3
  // (x5) and 6, sd = sqrt((5 * 9 + 36) / 4) = 4.5; k = floor(21/2 + 1/2 - 1.959964 * 4.5) = 2:
  // [W_(2), W_(20)] = [-inf, ln 2], speedup [0, 2]: within noise.
  ASSERT_TRUE(st.vs_baseline.has_value());
  const PairedSpeedup& sp = st.vs_baseline->speedup;
  EXPECT_NEAR(sp.estimate, 2.0, 1e-12);
  EXPECT_EQ(sp.pairs, 6);
  EXPECT_EQ(sp.pairs_run, 6);
  EXPECT_EQ(sp.censored, 1);
  EXPECT_EQ(sp.method, kCensoredSpeedupMethod);
  EXPECT_DOUBLE_EQ(sp.lo, 0);
  EXPECT_NEAR(sp.hi, 2.0, 1e-12);
  EXPECT_EQ(sp.verdict, "within noise");
  EXPECT_EQ(sp.arm_missed, 1);
  EXPECT_EQ(st.vs_baseline->baseline, "baseline");
  // Final accuracies are equal seed by seed (0.8 + 0.01 k in both): delta 0 over 6 pairs.
  EXPECT_EQ(st.vs_baseline->accuracy_delta.pairs, 6);
  EXPECT_NEAR(st.vs_baseline->accuracy_delta.estimate, 0.0, 1e-12);
  // summary.json's form: the unbounded end and the missed seed are null.
  const nlohmann::json j = tta_stats_json(st);
  EXPECT_DOUBLE_EQ(j["time_to_accuracy"]["ci95_s"][0].get<double>(), 1);
  EXPECT_TRUE(j["time_to_accuracy"]["ci95_s"][1].is_null());
  EXPECT_TRUE(j["time_to_accuracy"]["per_seed_s"][5].is_null());
  EXPECT_EQ(j["speedup_vs_baseline"]["baseline"], "baseline");
  EXPECT_EQ(j["speedup_vs_baseline"]["pairs_run"], 6);
  EXPECT_EQ(j["accuracy_delta_vs_baseline"]["pairs"], 6);
  // The baseline itself: time_to_accuracy only.
  const TtaStats b = tta_stats(base, base);
  EXPECT_TRUE(b.time_to_accuracy.has_value());
  EXPECT_FALSE(b.vs_baseline.has_value());
  EXPECT_FALSE(tta_stats_json(b).contains("speedup_vs_baseline"));
  // A run without test accuracy (catalog): nothing.
  RunResult catalog = run_with_tta("catalog", {-1});
  catalog.per_seed[0].final_test_accuracy = std::nan("");
  catalog.summary = catalog.per_seed[0];
  const TtaStats none = tta_stats(catalog, base);
  EXPECT_FALSE(none.time_to_accuracy.has_value());
  EXPECT_FALSE(none.vs_baseline.has_value());
  EXPECT_TRUE(tta_stats_json(none).empty());
}

TEST(SeedStats, GroupsReplicasIntoOneResultPerRun) {
  std::vector<RunResult> replicas(3);
  for (int i = 0; i < 3; ++i) replicas[i].summary.seed = 10 + i;
  replicas[2].complete = false;
  std::vector<size_t> first_of;
  std::vector<RunResult> g = group_replicas(replicas, {1, 1, 1}, {0, 2, 3}, &first_of);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].per_seed.size(), 2u);
  EXPECT_EQ(g[0].per_seed[1].seed, 11u);
  EXPECT_TRUE(g[1].per_seed.empty());
  EXPECT_FALSE(g[1].complete);
  EXPECT_EQ(first_of, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(baseline_run(g), 0u);
}

}  // namespace
}  // namespace commlab
