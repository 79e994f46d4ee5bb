// RunSession::set_sample_budget: long runs keep a bounded, thinned sample store (no
// memory growth), and nothing the run reports depends on it.
#include <gtest/gtest.h>

#include "scenario/runner.h"
#include "scenario/scenario.h"
#include "train/sample_store.h"

namespace commlab {
namespace {

RunConfig tiny_run() {
  return parse_scenario_text(R"({"name": "budget", "seed": 9,
    "cluster": {"spec": "flat:2,gbps=100"},
    "workload": {"model": "mlp", "hidden": [8], "dataset": "spiral"},
    "training": {"ranks": 2, "iterations": 100, "global_batch": 16, "eval_every": 7,
                 "eval_rows": 0}})",
                             "budget.json")
      .runs.at(0);
}

TEST(SampleBudget, KeepsAtMostTheBudgetAndTheSameSummary) {
  RunSession all(tiny_run()), thin(tiny_run());
  thin.set_sample_budget(8);
  int seen = 0;
  thin.run([&](const Sample& s) { EXPECT_EQ(s.iteration, ++seen); });  // observer sees all
  all.run();
  EXPECT_EQ(seen, 100);
  EXPECT_EQ(all.samples().size(), 100u);
  // 100 iterations into 8 slots: the stride doubles 1 -> 2 -> ... -> 16 (100/16 = 6 kept).
  ASSERT_LE(thin.samples().size(), 8u);
  ASSERT_GE(thin.samples().size(), 4u);
  const int stride = thin.samples()[1].iteration - thin.samples()[0].iteration;
  for (const Sample& s : thin.samples()) {
    EXPECT_EQ(s.iteration % stride, 0) << s.iteration;
    // A kept sample is the very sample of that iteration.
    EXPECT_EQ(s.train_loss, all.samples()[s.iteration - 1].train_loss);
  }
  const RunSummary a = all.summary(), b = thin.summary();
  EXPECT_EQ(a.final_train_loss, b.final_train_loss);
  EXPECT_EQ(a.final_test_accuracy, b.final_test_accuracy);
  EXPECT_EQ(a.sim_time_s, b.sim_time_s);
  EXPECT_EQ(a.bytes_on_wire, b.bytes_on_wire);
  // The last evaluation is at iteration 100 (the final one is always evaluated).
  EXPECT_EQ(b.final_test_accuracy, all.samples().back().test_accuracy);
}

TEST(SampleStore, KeepLatestEndsAtTheNewestSampleAndStaysBounded) {
  // 1,000 samples into a budget of 16 with keep_latest (the GUI's store): at most 16 kept by the
  // rule plus the provisional newest one, every kept iteration a multiple of the stride, the last
  // element always the newest sample; without a budget everything is kept.
  SampleStore gui(16, true), all;
  for (int i = 1; i <= 1000; ++i) {
    Sample s;
    s.iteration = i;
    s.train_loss = 1.0 / i;
    gui.add(s);
    all.add(s);
    ASSERT_EQ(gui.samples().back().iteration, i);
    ASSERT_LE(gui.samples().size(), 17u);
  }
  EXPECT_EQ(all.samples().size(), 1000u);
  // 1000 iterations into 16 slots: the stride doubles to 64 (1000 / 64 = 15 kept).
  EXPECT_EQ(gui.stride(), 64u);
  for (size_t k = 0; k + 1 < gui.samples().size(); ++k)
    EXPECT_EQ(gui.samples()[k].iteration % 64, 0) << gui.samples()[k].iteration;
  EXPECT_EQ(gui.samples().back().train_loss, 1.0 / 1000);
  gui.clear();
  EXPECT_TRUE(gui.samples().empty());
  EXPECT_EQ(gui.stride(), 1u);
}

}  // namespace
}  // namespace commlab
