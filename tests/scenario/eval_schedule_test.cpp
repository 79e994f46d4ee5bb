// The adaptive evaluation cadence (train/eval_schedule.h) against the time-to-accuracy crossing it
// must not move (scenario/run/tta_stats.h).
#include "train/eval_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "scenario/run/tta_stats.h"

namespace commlab {
namespace {

// Drives a schedule over `iterations` with accuracy a(t) and returns the evaluations it asked for.
template <typename Curve>
std::vector<EvalPoint> evaluate(EvalSchedule& schedule, int iterations, Curve a) {
  std::vector<EvalPoint> evals;
  for (int t = 1; t <= iterations; ++t)
    if (schedule.due(t)) {
      evals.push_back({t, 1e-3 * t, a(t)});
      schedule.record(t, a(t));
    }
  return evals;
}

std::vector<int> iterations_of(const std::vector<EvalPoint>& evals) {
  std::vector<int> out;
  for (const EvalPoint& e : evals) out.push_back(e.iteration);
  return out;
}

TEST(EvalSchedule, WithoutAFarCadenceItIsEveryKAndTheLast) {
  // every = 7 over 30 iterations: 7, 14, 21, 28 and the last, 30; every = 0: the last only.
  EvalSchedule fixed({.every = 7}, 30);
  EXPECT_EQ(iterations_of(evaluate(fixed, 30, [](int) { return 1.0; })),
            (std::vector<int>{7, 14, 21, 28, 30}));
  EvalSchedule last({.every = 0}, 30);
  EXPECT_EQ(iterations_of(evaluate(last, 30, [](int) { return 1.0; })), std::vector<int>{30});
}

TEST(EvalSchedule, FineOnlyBetweenTheBandAndTheSettledCrossing) {
  // a(t) = t / 100; every 2, far every 10, fine from 0.5, until 0.795, window W = 8 (h = 4).
  // Far: 10..50; a(50) = 0.5 starts the fine phase. The trailing smoothed value at T is the mean
  // over [T - 8, T] = a(T - 4) on a line, so s(84) = 0.8 (s(82) = 0.78) settles at T = 84.
  // Then far again: 90, 100, ..., 200.
  EvalSchedule s({.every = 2, .far_every = 10, .fine_from = 0.5, .fine_until = 0.795, .window = 8},
                 200);
  std::vector<int> expected{10, 20, 30, 40, 50};
  for (int t = 52; t <= 84; t += 2) expected.push_back(t);
  for (int t = 90; t <= 200; t += 10) expected.push_back(t);
  EXPECT_EQ(iterations_of(evaluate(s, 200, [](int t) { return t / 100.0; })), expected);
  EXPECT_EQ(s.phase(), EvalSchedule::Phase::kSettled);
}

TEST(EvalSchedule, TheCrossingEqualsTheFineCadenceThroughout) {
  // A noisy saturating curve, a(t) = 0.84 - 0.5 exp(-t / 40) + 0.02 sin(2.7 t): evaluated every 2
  // iterations throughout and adaptively (far 10, fine from target - 0.05 until 0.83, W = 8), the
  // smoothed crossings of every target up to 0.83 agree to the last bit, with about half the
  // evaluations.
  auto a = [](int t) { return 0.84 - 0.5 * std::exp(-t / 40.0) + 0.02 * std::sin(2.7 * t); };
  EvalSchedule fine({.every = 2}, 240);
  const std::vector<EvalPoint> all = evaluate(fine, 240, a);
  for (double target : {0.78, 0.80, 0.82, 0.83}) {
    EvalSchedule adaptive(
        {.every = 2, .far_every = 10, .fine_from = 0.78 - 0.05, .fine_until = 0.83, .window = 8},
        240);
    const std::vector<EvalPoint> some = evaluate(adaptive, 240, a);
    const SmoothedCrossing want = smoothed_crossing_over_iterations(all, target, 8);
    const SmoothedCrossing got = smoothed_crossing_over_iterations(some, target, 8);
    ASSERT_TRUE(want.reached) << target;
    EXPECT_EQ(got.reached, want.reached) << target;
    EXPECT_EQ(got.iterations, want.iterations) << target;
    EXPECT_EQ(got.time_s, want.time_s) << target;
    EXPECT_LT(some.size(), all.size() * 2 / 3) << target;
    EXPECT_EQ(some.back().iteration, 240);  // the final accuracy is always measured
    EXPECT_EQ(some.back().accuracy, all.back().accuracy);
  }
}

TEST(EvalSchedule, AForkReplaysItsParentThroughItsOwnBand) {
  // The parent settles at 0.6 (a(t) = t / 100: T = 64) and evaluates at 70 and 80; a fork at
  // iteration 80 aiming at 0.9 replays the parent's evaluations through its own band: 0.9 is not
  // settled, so it evaluates every 2 from there (82, 84, ...) where the parent evaluates every 10.
  const EvalCadence parent_band{
      .every = 2, .far_every = 10, .fine_from = 0.5, .fine_until = 0.6, .window = 8};
  EvalSchedule parent(parent_band, 200);
  evaluate(parent, 80, [](int t) { return t / 100.0; });
  EXPECT_EQ(parent.phase(), EvalSchedule::Phase::kSettled);
  EXPECT_FALSE(parent.due(82));
  EvalCadence fork_band = parent_band;
  fork_band.fine_until = 0.9;
  EvalSchedule fork(fork_band, 200);
  fork.continue_from(parent);
  EXPECT_EQ(fork.phase(), EvalSchedule::Phase::kFine);
  EXPECT_TRUE(fork.due(82));
}

}  // namespace
}  // namespace commlab
