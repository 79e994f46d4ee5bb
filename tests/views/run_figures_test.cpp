// The runs table's figures (core/views/run_figures.h) are summary.json's for the same run.
#include "views/run_figures.h"

#include <gtest/gtest.h>

#include "scenario/runner.h"
#include "scenario/scenario.h"

namespace commlab::views {
namespace {

RunConfig spiral(double target) {
  RunConfig c = parse_scenario_text(R"({"name": "t", "seed": 2,
    "cluster": {"spec": "flat:4,gbps=100"},
    "workload": {"model": "mlp", "hidden": [16], "dataset": "spiral"},
    "training": {"ranks": 4, "iterations": 40, "global_batch": 32, "eval_every": 2,
                 "eval_rows": 0, "lr": 0.1}})",
                                    "t.json")
                    .runs.at(0);
  c.training.target_accuracy = target;
  return c;
}

TEST(RunFigures, AreTheSummarysNumbers) {
  RunSession session(spiral(0.5));
  session.run();
  const RunSummary s = session.summary();
  ASSERT_GT(s.time_to_accuracy_s, 0);  // spiral reaches 50% within 40 iterations
  const RunFigures f = run_figures(session.samples(), 0.5, 0);
  EXPECT_EQ(f.tta_s, s.time_to_accuracy_s);  // the same smoothed crossing
  EXPECT_EQ(f.final_accuracy, s.final_test_accuracy);
  EXPECT_DOUBLE_EQ(f.s_per_iteration, s.sim_time_s / 40);
  // Mean bytes per iteration = the run's total / its iterations (every sample kept here).
  EXPECT_DOUBLE_EQ(f.wire_bytes_per_iteration, static_cast<double>(s.bytes_on_wire) / 40);
  EXPECT_DOUBLE_EQ(tta_speedup(f, f), 1.0);
}

TEST(RunFigures, AnUnreachedTargetHasNoTimeAndNoSpeedup) {
  RunSession session(spiral(0.999));
  session.run();
  const RunFigures never = run_figures(session.samples(), 0.999, 0);
  EXPECT_EQ(never.tta_s, -1);
  RunSession reached(spiral(0.5));
  reached.run();
  const RunFigures f = run_figures(reached.samples(), 0.5, 0);
  EXPECT_EQ(tta_speedup(f, never), -1);
  EXPECT_EQ(tta_speedup(never, f), -1);
  EXPECT_EQ(run_figures({}, 0.5, 0).final_accuracy, -1);  // no samples yet
}

}  // namespace
}  // namespace commlab::views
