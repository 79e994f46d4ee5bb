// Live forks: TrainingBridge::start(config, paused, fork) continues the running
// training from the iteration it has reached. Stepped to iteration K and forked there, the GUI's
// run has the numbers of RunSession's fork at K, which is what commlab-cli run --fork-at K runs
// (tests/cli/fork_cli_test.cpp, tests/scenario/fork_test.cpp).
#include <gtest/gtest.h>

#include "scenario/runner.h"
#include "training_bridge.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

// Steps a paused bridge run to exactly `k` iterations.
void step_to(TrainingBridge& bridge, int k) {
  for (int i = bridge.completed(); i < k; ++i) {
    bridge.step();
    ASSERT_TRUE(wait_for([&] { return bridge.completed() == i + 1; }));
  }
}

TEST(ForkBridge, AForkAtIterationKHasTheEnginesForkNumbers) {
  app();
  const RunConfig parent_config = test::spiral_run("baseline", 20, 5);
  RunConfig child_config = parent_config;
  child_config.name = "lr 0.2";
  child_config.training.lr = 0.2;

  TrainingBridge bridge;
  bridge.start(parent_config, /*paused=*/true);
  step_to(bridge, 6);
  bridge.take_samples();  // the parent's: the fork's own come next
  bridge.start(child_config, /*paused=*/false, /*fork=*/true);
  ASSERT_TRUE(wait_for([&] { return bridge.summary().has_value(); }));
  EXPECT_EQ(bridge.forked_at(), 6);
  const std::vector<Sample> gui = bridge.take_samples();

  RunSession parent(parent_config);
  for (int i = 0; i < 6; ++i) parent.step();
  RunSession fork(child_config, parent);
  fork.run();
  ASSERT_EQ(gui.size(), 20u);  // the parent's 6, then the fork's 14
  ASSERT_EQ(fork.samples().size(), 20u);
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(gui[i].iteration, static_cast<int>(i) + 1);
    EXPECT_EQ(gui[i].train_loss, fork.samples()[i].train_loss) << "iteration " << i + 1;
    EXPECT_EQ(gui[i].sim_time_s, fork.samples()[i].sim_time_s) << "iteration " << i + 1;
  }
  EXPECT_EQ(bridge.summary()->final_test_accuracy, fork.summary().final_test_accuracy);
  // A restart at lr 0.2 is another run: the fork is not just the new settings from scratch.
  RunSession restart(child_config);
  restart.run();
  EXPECT_NE(restart.summary().final_train_loss, fork.summary().final_train_loss);
}

TEST(ForkBridge, AChangeAForkCannotMakeRestartsFromIterationOne) {
  app();
  const RunConfig parent_config = test::spiral_run("baseline", 40, 5);
  RunConfig bigger_batch = parent_config;
  bigger_batch.training.global_batch = 128;  // the training itself: not a fork
  TrainingBridge bridge;
  bridge.start(parent_config, /*paused=*/true);
  step_to(bridge, 3);
  bridge.take_samples();
  bridge.start(bigger_batch, /*paused=*/true, /*fork=*/true);
  bridge.step();
  ASSERT_TRUE(wait_for([&] { return bridge.forked_at() == 0 && bridge.completed() == 1; }));
  const std::vector<Sample> samples = bridge.take_samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples.front().iteration, 1);
  bridge.reset();
}

// A run stepped to K before the GUI thread read the worker's "session built" message is still
// the running run: an edit forks it at K (a bridge that waited for that message would restart the
// edit from iteration 1).
TEST(ForkBridge, ARunSteppedBeforeTheGuiHeardOfItsBuildIsForked) {
  app();
  const RunConfig parent_config = test::spiral_run("baseline", 20, 5);
  RunConfig child_config = parent_config;
  child_config.training.lr = 0.2;
  TrainingBridge bridge;
  bridge.start(parent_config, /*paused=*/true);
  for (int i = 0; i < 4; ++i) bridge.step();
  ASSERT_TRUE(test::wait_without_events([&] { return bridge.completed() == 4; }));
  bridge.start(child_config, /*paused=*/false, /*fork=*/true);
  ASSERT_TRUE(wait_for([&] { return bridge.summary().has_value(); }));
  EXPECT_EQ(bridge.forked_at(), 4);
}

}  // namespace
}  // namespace commlab::ui
