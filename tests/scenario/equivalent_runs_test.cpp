// Runs that are the same computation (scenario/run/equivalent_runs.h) and Holm's adjustment across
// an experiment's arms in summary.json (results_io.h): detection on hand-made series, end to end on
// two scenario arms that are mathematically the same run, and the adjusted p-values.
#include "scenario/run/equivalent_runs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "scenario/run/experiment_runner.h"
#include "scenario/run/rank_stats.h"
#include "scenario/scenario.h"
#include "support/tta_runs.h"

namespace commlab {
namespace {

RunResult series(const std::string& name, double slope) {
  RunResult r;
  r.summary.name = name;
  r.summary.seed = 7;
  r.summary.iterations = 3;
  for (int i = 1; i <= 3; ++i) {
    Sample s;
    s.iteration = i;
    s.sim_time_s = 0.001 * i;
    s.train_loss = 1.0 - slope * i;
    s.test_accuracy = 0.5 + slope * i;
    s.wall_time_s = 0.1 * i;
    r.samples.push_back(s);
  }
  return r;
}

TEST(EquivalentRuns, IdenticalSeriesButWallTimeAndTheGradientsScale) {
  RunResult a = series("a", 0.1), b = series("b", 0.1), c = series("c", 0.2);
  // Wall time measures the host; a run at 2x lr with gradients halved updates identically, so the
  // learning rate, the gradient norm and NMSE are settings and scale, not the computation's
  // outcome.
  b.samples[1].wall_time_s = 9;
  b.samples[1].lr = 2 * a.samples[1].lr + 1;
  b.samples[1].grad_norm = 2 * a.samples[1].grad_norm + 1;
  b.samples[1].nmse = a.samples[1].nmse + 0.25;
  EXPECT_TRUE(identical_series(a, b));
  EXPECT_FALSE(identical_series(a, c));
  // One value of one sample differs: not the same run.
  RunResult d = series("d", 0.1);
  d.samples[2].test_accuracy += 1e-12;
  EXPECT_FALSE(identical_series(a, d));
  // Another seed, or a different summary: not compared as the same.
  RunResult e = series("e", 0.1);
  e.summary.seed = 8;
  EXPECT_FALSE(identical_series(a, e));
  // Each later run against the first earlier one it equals: b = a, c alone, f = c.
  const std::vector<RunResult> runs = {a, b, c, series("f", 0.2)};
  const std::vector<EquivalentRun> same = equivalent_runs(runs);
  ASSERT_EQ(same.size(), 2u);
  EXPECT_EQ(same[0].run, 1u);
  EXPECT_EQ(same[0].same_as, 0u);
  EXPECT_EQ(same[1].run, 3u);
  EXPECT_EQ(same[1].same_as, 2u);
  const nlohmann::json j = equivalent_runs_json({"a", "b", "c", "f"}, same);
  EXPECT_EQ(equivalence_text(j[0]), "arm b equals arm a on seed 7 (identical series)");
  // Runs without samples (nothing recorded) are never merged.
  EXPECT_FALSE(identical_series(RunResult{}, RunResult{}));
}

// 4 ranks on the spiral set; the SkipReduce paper's semantics with lr x N/(N-s) (a chunk that lost
// s = 2 of N = 4 contributions is divided by 4, the learning rate doubled) against unbiased
// skipping (the chunk divided by its 2 contributors) at the base rate: lr * sum / 4 * 2 and
// lr * sum / 2 are the same product (the factors are powers of two), so the runs are one.
Experiment same_run_twice() {
  return parse_scenario_text(R"({"name": "same", "seed": 7, "seeds": 2,
    "cluster": {"spec": "flat:4,gbps=100"},
    "workload": {"model": "mlp", "hidden": [16], "dataset": "spiral"},
    "training": {"ranks": 4, "iterations": 30, "global_batch": 32, "eval_every": 5,
                 "eval_rows": 0, "lr": 0.05, "target_accuracy": 0.5},
    "techniques": {"skipreduce": {"min_elements": 0}},
    "runs": [{"name": "baseline"},
             {"name": "lrcomp", "set": {"techniques": {"skipreduce":
                 {"skip": 2, "policy": "random", "lr_compensation": true}}}},
             {"name": "unbiased", "set": {"techniques": {"skipreduce":
                 {"skip": 2, "policy": "random", "unbiased": true}}}}]})",
                             "same.json");
}

TEST(EquivalentRuns, TwoArmsThatAreTheSameRunAreMergedInSummaryJson) {
  RunnerOptions o;
  o.reproducible = true;
  o.jobs = 2;
  const ExperimentOutcome out = run_experiment(same_run_twice(), o);
  ASSERT_FALSE(out.error);
  const nlohmann::json doc = nlohmann::json::parse(out.summary_json);
  std::string runs;  // what each run ended with, to show on a failure
  for (const nlohmann::json& r : doc["runs"])
    runs += r["name"].get<std::string>() + ": loss " + r["final_train_loss"].dump() + ", sim " +
            r["sim_time_s"].dump() + ", bytes " + r["bytes_on_wire"].dump() + "\n";
  ASSERT_TRUE(doc.contains("equivalent_runs")) << runs;
  ASSERT_EQ(doc["equivalent_runs"].size(), 1u);
  const nlohmann::json& e = doc["equivalent_runs"][0];
  EXPECT_EQ(e["run"], "unbiased");
  EXPECT_EQ(e["equals"], "lrcomp");
  EXPECT_EQ(e["seed"], 7);
  EXPECT_EQ(equivalence_text(e), "arm unbiased equals arm lrcomp on seed 7 (identical series)");
  // The baseline differs from both (it skips nothing: other times).
  // Holm counts the pair once: a family of 1 distinct arm, and both carry its p-value unchanged
  // (m = 1: p_holm = min(1, 1 * p)).
  const nlohmann::json& a = doc["runs"][1]["speedup_vs_baseline"];
  const nlohmann::json& b = doc["runs"][2]["speedup_vs_baseline"];
  EXPECT_EQ(a["holm_family"], 1);
  EXPECT_EQ(b["holm_family"], 1);
  EXPECT_EQ(a["p_holm"], b["p_holm"]);
  if (a["p_value"].is_number()) EXPECT_EQ(a["p_holm"], a["p_value"]);
}

TEST(EquivalentRuns, NoEntryWhenEveryRunDiffers) {
  Experiment exp = same_run_twice();
  exp.runs[2].training.lr = 0.07;  // another rate: another computation
  RunnerOptions o;
  o.reproducible = true;
  const ExperimentOutcome out = run_experiment(exp, o);
  ASSERT_FALSE(out.error);
  EXPECT_FALSE(nlohmann::json::parse(out.summary_json).contains("equivalent_runs"));
}

using testing::run_with_tta;

TEST(Holm, SummaryJsonAdjustsTheArmsPValuesTogether) {
  const std::vector<RunResult> runs = {
      run_with_tta("baseline", {10, 12, 14, 16, 18, 20}),
      run_with_tta("clear", {5, 6.2, 6.9, 8.1, 9, 9.8}),      // about 2x faster on every seed
      run_with_tta("weak", {9.5, 12.5, 13, 16.4, 17, 20.5}),  // within noise
      run_with_tta("slow", {13, 15, 19, 20, 24, 25})};        // slower
  const nlohmann::json doc =
      nlohmann::json::parse(summary_json("holm", runs, {0.8, 0.8, 0.8, 0.8}));
  std::vector<double> p;
  for (size_t k = 1; k < 4; ++k) {
    const nlohmann::json& sp = doc["runs"][k]["speedup_vs_baseline"];
    ASSERT_TRUE(sp["p_value"].is_number()) << k;
    p.push_back(sp["p_value"].get<double>());
  }
  // Holm over the m = 3 arms: sorted p_(1) <= p_(2) <= p_(3), adjusted
  // p_(i) = max_{j <= i} min(1, (3 - j + 1) p_(j)); each arm's p_holm is its adjusted value.
  const std::vector<double> want = holm_adjust(p);
  for (size_t k = 1; k < 4; ++k) {
    const nlohmann::json& sp = doc["runs"][k]["speedup_vs_baseline"];
    EXPECT_EQ(sp["holm_family"], 3) << k;
    EXPECT_DOUBLE_EQ(sp["p_holm"].get<double>(), want[k - 1]) << k;
    EXPECT_GE(sp["p_holm"].get<double>(), sp["p_value"].get<double>()) << k;
  }
  // The smallest p is multiplied by 3: the clear arm's.
  EXPECT_LT(p[0], p[1]);
  EXPECT_DOUBLE_EQ(want[0], std::min(1.0, 3 * p[0]));
  // The baseline has no speedup and so no adjusted p.
  EXPECT_FALSE(doc["runs"][0].contains("speedup_vs_baseline"));
}

}  // namespace
}  // namespace commlab
