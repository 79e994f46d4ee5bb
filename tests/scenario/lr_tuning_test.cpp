// Learning-rate tuning (scenario/run/lr_tuning.h): the choice rule on hand-made trials, the tuning
// replicas' seeds (disjoint from the reported ones) and names, and end to end that a tuned run is
// exactly the run at the chosen learning rate, the one whose tuning seeds reach the target first.
#include "scenario/run/lr_tuning.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "scenario/run/experiment_runner.h"
#include "scenario/run/seed_stats.h"
#include "scenario/runner.h"
#include "scenario/scenario.h"
#include "train/data/sampler.h"

namespace commlab {
namespace {

TEST(LrTuning, TrialTakesTheCensoredMedianAndMeanAccuracy) {
  // Seeds 0.3, not reached, 0.1 s: sorted 0.1, 0.3, +inf; the median (N = 3) is 0.3.
  const LrTrial t = make_trial(0.1, {0.3, -1, 0.1}, {0.80, 0.70, 0.90});
  EXPECT_DOUBLE_EQ(t.median_tta_s, 0.3);
  EXPECT_EQ(t.reached, 2);
  // (0.80 + 0.70 + 0.90) / 3 = 0.80
  EXPECT_NEAR(t.mean_final_accuracy, 0.80, 1e-12);
  // Two of three not reached: the median is +inf, not estimable.
  EXPECT_TRUE(std::isnan(make_trial(0.2, {0.1, kNaN, -1}, {0.9, 0.5, 0.5}).median_tta_s));
}

TEST(LrTuning, ChoosesTheFastestThenTheMostAccurateThenTheSmallerLr) {
  LrTrial slow = make_trial(0.05, {0.4, 0.5, 0.6}, {0.9, 0.9, 0.9});  // median 0.5
  LrTrial fast = make_trial(0.1, {0.2, 0.3, 0.9}, {0.8, 0.8, 0.8});   // median 0.3
  LrTrial never = make_trial(0.4, {-1, -1, -1}, {0.99, 0.99, 0.99});  // not estimable
  EXPECT_EQ(choose_trial({slow, fast, never}), 1u) << "the smallest median wins over accuracy";
  EXPECT_EQ(choose_trial({never, slow}), 1u) << "an estimable median beats none";
  // Nobody reaches: the higher mean final accuracy.
  LrTrial low = make_trial(0.2, {-1, -1, -1}, {0.5, 0.5, 0.5});
  EXPECT_EQ(choose_trial({low, never}), 1u);
  // A full tie: the smaller learning rate, whatever the order.
  LrTrial twin = fast;
  twin.lr = 0.07;
  EXPECT_EQ(choose_trial({fast, twin}), 1u);
  EXPECT_EQ(choose_trial({twin, fast}), 0u);
}

RunConfig training_run(const std::string& name) {
  RunConfig c;
  c.name = name;
  c.seed = 7;
  c.seeds = 10;
  c.training.lr = 0.08;
  c.training.tune_seeds = 4;
  return c;
}

TEST(LrTuning, TuningRunsUseSeparateSeedsAndTheGrid) {
  RunConfig gridded = training_run("a"), plain = training_run("b"), catalog = training_run("c");
  gridded.training.lr_grid = {0.01, 0.2};
  catalog.workload.kind = WorkloadKind::kCatalog;
  // Without --tune-lr only the gridded run is tuned.
  std::vector<RunConfig> runs = tuning_runs({gridded, plain, catalog}, false);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "a@lr=0.01");
  EXPECT_EQ(runs[1].name, "a@lr=0.2");
  EXPECT_EQ(runs[1].training.lr, 0.2);
  // Seeds 1007..1010 never meet the reported 7..16 (seeds <= 100 < kTuneSeedOffset).
  EXPECT_EQ(runs[0].seed, 7 + kTuneSeedOffset);
  EXPECT_EQ(runs[0].seeds, 4);
  EXPECT_TRUE(runs[0].training.lr_grid.empty()) << "a tuning run is not tuned again";
  // --tune-lr: every training run, plain ones over lr x {1/2, 1, 2}; a catalog run has no
  // accuracy to tune for.
  runs = tuning_runs({gridded, plain, catalog}, true);
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[2].name, "b@lr=0.04");
  EXPECT_EQ(runs[3].training.lr, 0.08);
  EXPECT_EQ(runs[4].training.lr, 0.16);
}

Experiment spiral(const std::string& grid) {
  return parse_scenario_text(
      R"({"name": "tune", "seed": 3, "seeds": 2,
    "cluster": {"spec": "flat:2,gbps=100"},
    "workload": {"model": "mlp", "hidden": [16], "dataset": "spiral"},
    "training": {"ranks": 2, "iterations": 60, "global_batch": 32, "eval_every": 2,
                 "eval_rows": 0, "lr": 0.05, "target_accuracy": 0.6, "tune_seeds": 2},
    "runs": [{"name": "baseline", "set": {"training": {"lr_grid": )" +
          grid + R"(}}}]})",
      "tune.json");
}

TEST(LrTuning, ATunedRunIsTheRunAtTheChosenRate) {
  RunnerOptions o;
  o.reproducible = true;
  o.jobs = 2;
  const ExperimentOutcome tuned = run_experiment(spiral("[0.003, 0.3]"), o);
  ASSERT_FALSE(tuned.error);
  ASSERT_TRUE(tuned.summary.lr_tuning.has_value());
  const nlohmann::json tuning = lr_tuning_json(*tuned.summary.lr_tuning);
  const auto& t = tuning["runs"][0];
  EXPECT_EQ(t["seeds"][0], 1003);
  EXPECT_EQ(t["seeds"][1], 1004);
  ASSERT_EQ(t["grid"].size(), 2u);
  // lr 0.003 barely moves the weights in 60 iterations; 0.3 reaches 60% on the spiral.
  EXPECT_TRUE(t["grid"][0]["median_tta_s"].is_null());
  EXPECT_TRUE(t["grid"][1]["median_tta_s"].is_number());
  EXPECT_EQ(t["chosen_lr"], 0.3);
  EXPECT_NE(tuned.summary_json.find("\"lr_tuning\""), std::string::npos);

  // The reported seeds (3, 4) at the chosen rate are bit for bit the untuned run at lr 0.3.
  Experiment fixed = spiral("[]");
  fixed.runs[0].training.lr = 0.3;
  const ExperimentOutcome plain = run_experiment(fixed, o);
  ASSERT_FALSE(plain.error);
  EXPECT_FALSE(plain.summary.lr_tuning.has_value());
  ASSERT_EQ(tuned.results[0].per_seed.size(), 2u);
  for (size_t s = 0; s < 2; ++s) {
    EXPECT_EQ(tuned.results[0].per_seed[s].seed, plain.results[0].per_seed[s].seed);
    EXPECT_EQ(tuned.results[0].per_seed[s].final_train_loss,
              plain.results[0].per_seed[s].final_train_loss);
  }
}

TEST(LrTuning, AValidationSplitKeepsTuningOffTheTestSet) {
  // spiral: 2000 training rows, 500 test rows; 300 held out for validation.
  Experiment exp = spiral("[0.003, 0.3]");
  exp.runs[0].training.validation_rows = 300;
  const std::vector<RunConfig> tuning = tuning_runs(exp.runs, false);
  ASSERT_EQ(tuning.size(), 2u);
  EXPECT_TRUE(tuning[0].training.evaluate_on_validation);
  EXPECT_FALSE(exp.runs[0].training.evaluate_on_validation);
  // The synthetic set is drawn from the run's seed: each split is compared with its own seed's set.
  auto unsplit = [](RunConfig c) {
    c.training.validation_rows = 0;
    c.training.evaluate_on_validation = false;
    return load_run_data(c);
  };
  const std::shared_ptr<const TrainTest> reported = load_run_data(exp.runs[0]);
  const std::shared_ptr<const TrainTest> tuned = load_run_data(tuning[0]);
  const std::shared_ptr<const TrainTest> whole = unsplit(tuning[0]);
  const ValidationSplit split = validation_split(2000, 300);
  // Every run trains on the 2000 - 300 = 1700 other rows; a reported run evaluates on the test set,
  // a tuning run on the 300 validation rows.
  ASSERT_EQ(reported->train.rows(), 1700);
  ASSERT_EQ(tuned->train.rows(), 1700);
  EXPECT_EQ(reported->test.rows(), 500);
  EXPECT_TRUE(reported->test.x == unsplit(exp.runs[0])->test.x);
  ASSERT_EQ(tuned->test.rows(), 300);
  auto row = [](const Dataset& d, int r) {
    return std::vector<float>(d.x.row(r).data(), d.x.row(r).data() + d.x.cols());
  };
  std::set<std::vector<float>> train_rows, test_rows;
  for (int r = 0; r < tuned->train.rows(); ++r) train_rows.insert(row(tuned->train, r));
  for (int r = 0; r < whole->test.rows(); ++r) test_rows.insert(row(whole->test, r));
  for (int k = 0; k < 300; ++k) {
    // The validation rows are the training set's rows at the split's indices ...
    EXPECT_EQ(row(tuned->test, k), row(whole->train, split.validation[k])) << k;
    // ... none of them is trained on, and none is a test row.
    EXPECT_EQ(train_rows.count(row(tuned->test, k)), 0u) << k;
    EXPECT_EQ(test_rows.count(row(tuned->test, k)), 0u) << k;
  }
  // More validation rows than the training set holds: refused, naming the field.
  RunConfig too_many = exp.runs[0];
  too_many.training.validation_rows = 2000;
  try {
    load_run_data(too_many);
    ADD_FAILURE() << "2000 validation rows of 2000 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("training.validation_rows"), std::string::npos);
  }
}

TEST(LrTuning, TheTuningSaysWhereItEvaluatedAndWhetherItKeptTheUntunedRate) {
  RunnerOptions o;
  o.reproducible = true;
  o.jobs = 2;
  Experiment exp = spiral("[0.05, 0.3]");
  exp.runs[0].training.validation_rows = 300;
  const ExperimentOutcome tuned = run_experiment(exp, o);
  ASSERT_FALSE(tuned.error);
  ASSERT_TRUE(tuned.summary.lr_tuning.has_value());
  const nlohmann::json tuning = lr_tuning_json(*tuned.summary.lr_tuning);
  const auto& t = tuning["runs"][0];
  EXPECT_EQ(t["evaluated_on"], "validation: 300 training rows");
  EXPECT_EQ(t["untuned_lr"], 0.05);
  // chose_untuned is exactly chosen_lr == training.lr (0.05).
  EXPECT_EQ(t["chose_untuned"], t["chosen_lr"] == 0.05);
  // Without a split the tuning reads the test set, and a grid holding only lr keeps it.
  const ExperimentOutcome same = run_experiment(spiral("[0.05]"), o);
  ASSERT_FALSE(same.error);
  ASSERT_TRUE(same.summary.lr_tuning.has_value());
  EXPECT_EQ(tuning_evaluated_on(same.summary.lr_tuning->at(0)), "test set");
  EXPECT_EQ(same.summary.lr_tuning->at(0).chosen_lr, same.summary.lr_tuning->at(0).untuned_lr);
}

TEST(LrTuning, AGridOutsideTrainingIsRefused) {
  try {
    parse_scenario_text(R"({"name": "x", "workload": {"kind": "catalog", "catalog": "gpt3-175b"},
        "training": {"lr_grid": [0.1]}})",
                        "x.json");
    FAIL() << "a catalog run with lr_grid was accepted";
  } catch (const ScenarioError& e) {
    ASSERT_FALSE(e.problems.empty());
    EXPECT_EQ(e.problems[0].field, "training.lr_grid") << e.lines()[0];
  }
  // Twice the same value would train the same replicas twice under one name.
  EXPECT_THROW(
      parse_scenario_text(R"({"name": "x", "training": {"lr_grid": [0.1, 0.2, 0.1]}})", "x.json"),
      ScenarioError);
  // A grid value must be a positive learning rate.
  EXPECT_THROW(parse_scenario_text(R"({"name": "x", "training": {"lr_grid": [0.1, 0]}})", "x.json"),
               ScenarioError);
}

}  // namespace
}  // namespace commlab
