// The Training tab's x-axis follows what differs between the runs on screen until the user picks
// one: simulated time when their time per iteration differs (SkipReduce here), iterations when
// only the learning rate does; a choice made in the combo is kept whatever runs come next.
#include "axis_default.h"

#include <gtest/gtest.h>

#include <QComboBox>

#include "run_chart_pages.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

// Appends n iterations of s_per_iteration simulated seconds each after the last sample.
void add_iterations(std::vector<Sample>& samples, int n, double s_per_iteration) {
  const int from = samples.empty() ? 0 : samples.back().iteration;
  const double start = samples.empty() ? 0 : samples.back().sim_time_s;
  for (int k = 1; k <= n; ++k) {
    Sample next;
    next.iteration = from + k;
    next.sim_time_s = start + k * s_per_iteration;
    samples.push_back(next);
  }
}

std::vector<Sample> steady(int n, double s_per_iteration) {
  std::vector<Sample> out;
  add_iterations(out, n, s_per_iteration);
  return out;
}

TEST(AxisDefault, TimePerIterationDiffersBeyondTheTolerance) {
  const std::vector<Sample> a = steady(20, 1.0), b = steady(20, 1.01), c = steady(20, 1.5);
  const std::vector<Sample> none;
  // 1.01 / 1.0 is within 2%; 1.5 / 1.0 is not.
  EXPECT_FALSE(time_per_iteration_differs({&a, &b}));
  EXPECT_TRUE(time_per_iteration_differs({&a, &b, &c}));
  // A run without an iteration says nothing; one run alone never differs.
  EXPECT_FALSE(time_per_iteration_differs({&c, &none}));
  EXPECT_FALSE(time_per_iteration_differs({&c}));
}

TEST(AxisDefault, AForkIsMeasuredOnItsOwnIterations) {
  // 40 iterations at 1 s, then 20 at 2 s (a fork that made each iteration twice as slow): the
  // recent slope is 2 s, where the mean over the run is 80 s / 60 = 1.33 s.
  std::vector<Sample> fork = steady(40, 1.0);
  add_iterations(fork, 20, 2.0);
  EXPECT_DOUBLE_EQ(recent_s_per_iteration(fork), 2.0);
  EXPECT_DOUBLE_EQ(recent_s_per_iteration(steady(1, 0.5)), 0.5);
}

QComboBox* x_axis(TrainingView& view) {
  return view.findChild<QComboBox*>("x_axis");
}

// baseline and SkipReduce s = 2 on 4 ranks: the skip removes reduce-scatter steps, so each of its
// iterations is shorter in simulated time, and the charts plot against simulated time.
TEST(AxisDefault, RunsThatDifferInTimeArePlottedAgainstSimulatedTime) {
  app();
  TrainingView view;
  view.set_live(false);
  ASSERT_FALSE(view.charts()->by_time());
  view.set_runs(test::spiral_pair_runs(0.6), "cmp");
  ASSERT_TRUE(view.run_all(8));
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.run_ids().size() == 2; }));
  EXPECT_TRUE(view.charts()->by_time());
  EXPECT_EQ(x_axis(view)->currentText(), "simulated time");
}

// Two learning rates: the same time per iteration, so iterations stay the axis.
TEST(AxisDefault, RunsThatDifferOnlyInLearningRateStayOnIterations) {
  app();
  TrainingView view;
  view.set_live(false);
  std::vector<RunConfig> runs = test::spiral_pair_runs(0.6);
  runs[1] = runs[0];
  runs[1].name = "lr";
  runs[1].training.lr *= 2;
  view.set_runs(runs, "lr");
  ASSERT_TRUE(view.run_all(8));
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.run_ids().size() == 2; }));
  EXPECT_FALSE(view.charts()->by_time());
}

// The user picks "iteration" in the combo (a key, as at the keyboard): runs that differ in time
// come next and the axis stays as chosen.
TEST(AxisDefault, TheUsersChoiceIsKept) {
  app();
  TrainingView view;
  view.set_live(false);
  view.show();
  view.set_runs(test::spiral_pair_runs(0.6), "cmp");
  ASSERT_TRUE(view.run_all(8));
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.run_ids().size() == 2; }));
  ASSERT_TRUE(view.charts()->by_time());
  QComboBox* combo = x_axis(view);
  combo->setFocus();
  QTest::keyClick(combo, Qt::Key_Up);
  ASSERT_EQ(combo->currentIndex(), 0);
  EXPECT_FALSE(view.charts()->by_time());
  ASSERT_TRUE(view.run_all(8));
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.run_ids().size() == 4; }));
  EXPECT_FALSE(view.charts()->by_time());
}

}  // namespace
}  // namespace commlab::ui
