// RunSession::set_sample_budget: long runs keep a bounded, thinned sample store (issue #10: no
// memory growth), and nothing the run reports depends on it.
#include <gtest/gtest.h>

#include "scenario/runner.h"
#include "scenario/scenario.h"

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

}  // namespace
}  // namespace commlab
