// techniques.skipreduce.lr_compensation: the paper's SkipReduce divides a chunk that
// summed N - s contributions by N, a learning-rate cut of (N - s) / N. Compensating on the
// learning rate must give the update the unbiased variant gives, and the scenario checks refuse
// the combinations where the factor would be wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "scenario/runner.h"
#include "scenario/scenario.h"

namespace commlab {
namespace {

RunConfig skip_run(const std::string& skipreduce, double lr) {
  return parse_scenario_text(R"({"name": "lr", "seed": 5,
    "cluster": {"spec": "flat:8,gbps=100"},
    "workload": {"model": "mlp", "hidden": [16], "dataset": "spiral"},
    "training": {"ranks": 8, "iterations": 30, "global_batch": 64, "eval_every": 0,
                 "eval_rows": 0, "momentum": 0.9, "lr": )" +
                                 std::to_string(lr) + R"(},
    "techniques": {"skipreduce": )" +
                                 skipreduce + "}}",
                             "lr.json")
      .runs.at(0);
}

TEST(SkipLr, FactorIsNOverNMinusS) {
  // N = 8, s = 4: 8 / (8 - 4) = 2; s = 6: 8 / 2 = 4; ratio 0.25 gives s = round(0.25 * 8) = 2:
  // 8 / 6. Without the option, or without skipping, the factor is 1.
  EXPECT_DOUBLE_EQ(skipreduce_lr_factor(skip_run(
                       R"({"skip": 4, "min_elements": 0, "lr_compensation": true})", 0.05)),
                   2.0);
  EXPECT_DOUBLE_EQ(skipreduce_lr_factor(skip_run(
                       R"({"skip": 6, "min_elements": 0, "lr_compensation": true})", 0.05)),
                   4.0);
  EXPECT_DOUBLE_EQ(skipreduce_lr_factor(skip_run(
                       R"({"ratio": 0.25, "min_elements": 0, "lr_compensation": true})", 0.05)),
                   8.0 / 6.0);
  EXPECT_DOUBLE_EQ(skipreduce_lr_factor(skip_run(R"({"skip": 4, "min_elements": 0})", 0.05)), 1.0);
  EXPECT_DOUBLE_EQ(skipreduce_lr_factor(skip_run(R"({"skip": 0, "lr_compensation": true})", 0.05)),
                   1.0);
  EXPECT_DOUBLE_EQ(
      trainer_config(skip_run(R"({"skip": 4, "min_elements": 0, "lr_compensation": true})", 0.05))
          .optimizer.lr,
      0.1);
}

TEST(SkipLr, CompensatedSkipTrainsLikeUnbiasedSkip) {
  // Random s = 4 on 8 ranks, every bucket skipped (min_elements 0): each chunk sums 4 of the 8
  // contributions. Plain: g_hat = S / 8; unbiased: S / 4; so SGD with lr 2L on plain skipping and
  // lr L on unbiased skipping make the same update 2L S / 8 = L S / 4 every iteration (momentum is
  // linear), up to float rounding of where the factor is applied. The uncompensated run at lr L
  // takes half steps and must differ.
  RunSession compensated(skip_run(
      R"({"skip": 4, "policy": "random", "min_elements": 0, "lr_compensation": true})", 0.05));
  RunSession unbiased(
      skip_run(R"({"skip": 4, "policy": "random", "min_elements": 0, "unbiased": true})", 0.05));
  RunSession plain(skip_run(R"({"skip": 4, "policy": "random", "min_elements": 0})", 0.05));
  compensated.run();
  unbiased.run();
  plain.run();
  const double a = compensated.summary().final_train_loss;
  const double b = unbiased.summary().final_train_loss;
  const double c = plain.summary().final_train_loss;
  EXPECT_NEAR(a, b, 1e-4 * std::abs(b));
  EXPECT_GT(std::abs(a - c), 1e-3 * std::abs(b));
}

// The first problem of a scenario that must be refused (empty when it is accepted).
std::string first_problem(const std::string& text) {
  try {
    parse_scenario_text(text, "x.json");
  } catch (const ScenarioError& e) {
    return e.problems.empty() ? "refused without a problem" : e.lines()[0];
  }
  return "";
}

TEST(SkipLr, RefusedWithUnbiasedOrOffTheRing) {
  const std::string base = R"({"name": "x", "cluster": {"spec": "flat:8"},
      "workload": {"model": "mlp", "hidden": [8], "dataset": "spiral"},)";
  // Both compensations at once would scale the gradient by (N / (N - s))^2.
  const std::string both =
      first_problem(base + R"("techniques": {"skipreduce": {"skip": 4, "unbiased": true,
                                               "lr_compensation": true}}})");
  EXPECT_NE(both.find("techniques.skipreduce.lr_compensation"), std::string::npos) << both;
  EXPECT_NE(both.find("unbiased"), std::string::npos) << both;
  // The factor is the ring's; tree loses another share of contributions per chunk.
  const std::string tree = first_problem(base + R"("collective": {"algorithm": "tree"},
      "techniques": {"skipreduce": {"skip": 2, "lr_compensation": true}}})");
  EXPECT_NE(tree.find("techniques.skipreduce.lr_compensation"), std::string::npos) << tree;
  // Either alone on the ring is accepted.
  EXPECT_EQ(first_problem(base + R"("techniques": {"skipreduce": {"skip": 4,
                                                   "lr_compensation": true}}})"),
            "");
}

}  // namespace
}  // namespace commlab
