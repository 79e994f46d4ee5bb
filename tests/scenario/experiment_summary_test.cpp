// The typed experiment summary (scenario/run/experiment_summary.h) and summary.json, its
// serialization: every number a reader takes from the struct is the one the file holds.
#include "scenario/run/experiment_summary.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/tta_runs.h"

namespace commlab {
namespace {

using testing::run_with_tta;

std::vector<RunResult> four_arms() {
  return {run_with_tta("baseline", {10, 12, 14, 16, 18, 20}),
          run_with_tta("clear", {5, 6.2, 6.9, 8.1, 9, 9.8}),
          run_with_tta("misses", {9, -1, 12, -1, 15, 17}),  // two seeds never reach the target
          run_with_tta("slow", {13, 15, 19, 20, 24, 25})};
}

// A number of the document: null stands for NaN (not reached, unknown).
double number(const nlohmann::json& v) {
  return v.is_number() ? v.get<double>() : NAN;
}

void expect_same(double typed, const nlohmann::json& written, const std::string& what) {
  if (std::isnan(typed))
    EXPECT_TRUE(written.is_null()) << what << ": " << written.dump();
  else
    EXPECT_DOUBLE_EQ(number(written), typed) << what;
}

TEST(ExperimentSummary, TheDocumentIsTheTypedSummary) {
  const ExperimentSummary s = summarize_experiment("typed", four_arms(), {0.8, 0.8, 0.8, 0.8});
  const nlohmann::json doc = summary_document(s);
  ASSERT_EQ(doc["runs"].size(), s.runs.size());
  EXPECT_EQ(s.baseline, 0u);
  for (size_t k = 0; k < s.runs.size(); ++k) {
    const RunStats& r = s.runs[k];
    const nlohmann::json& j = doc["runs"][k];
    EXPECT_EQ(j["name"], r.name());
    EXPECT_EQ(j["seeds"]["n"], r.seeds.seeds.size());
    EXPECT_EQ(j["seeds"]["time_to_accuracy_s"]["reached"], r.seeds.reached);
    ASSERT_TRUE(r.tta.time_to_accuracy.has_value()) << k;
    const TimeToAccuracy& t = *r.tta.time_to_accuracy;
    expect_same(t.seconds.estimate, j["time_to_accuracy"]["estimate_s"], "estimate_s");
    for (size_t i = 0; i < t.per_seed_s.size(); ++i)
      expect_same(t.per_seed_s[i], j["time_to_accuracy"]["per_seed_s"][i], "per_seed_s");
    EXPECT_EQ(r.tta.vs_baseline.has_value(), j.contains("speedup_vs_baseline")) << k;
    if (!r.tta.vs_baseline) continue;
    const BaselineComparison& c = *r.tta.vs_baseline;
    const nlohmann::json& sp = j["speedup_vs_baseline"];
    expect_same(c.speedup.estimate, sp["estimate"], "estimate");
    EXPECT_EQ(sp["censored"], c.speedup.censored);
    EXPECT_EQ(sp["method"], c.speedup.method);
    ASSERT_TRUE(c.holm.has_value());
    expect_same(c.holm->p_holm, sp["p_holm"], "p_holm");
    EXPECT_EQ(sp["holm_family"], c.holm->family);
    expect_same(c.accuracy_delta.estimate, j["accuracy_delta_vs_baseline"]["estimate"], "delta");
  }
  // The arm with misses: its 2 censored pairs make the rank-based estimate, and its two misses are
  // NaN in the struct, null in the file.
  const BaselineComparison& misses = *s.runs[2].tta.vs_baseline;
  EXPECT_EQ(misses.speedup.censored, 2);
  EXPECT_EQ(misses.speedup.method, kCensoredSpeedupMethod);
  EXPECT_TRUE(std::isnan(s.runs[2].tta.time_to_accuracy->per_seed_s[1]));
  // Holm over the 3 arms, each counted once: family 3 everywhere.
  for (size_t k = 1; k < 4; ++k) EXPECT_EQ(s.runs[k].tta.vs_baseline->holm->family, 3u);
  // The file's text is the document, indented, with a final newline.
  EXPECT_EQ(summary_text(s), doc.dump(2) + "\n");
  EXPECT_EQ(summary_json("typed", four_arms(), {0.8, 0.8, 0.8, 0.8}), summary_text(s));
}

// What the runner adds after the statistics: a fork's origin, an "mpi" run's measured split (NaN
// wall-clock values written null), the tuning; each appears in the document only when set.
TEST(ExperimentSummary, ForkMpiAndTuningAppearOnlyWhenSet) {
  ExperimentSummary s = summarize_experiment("extras", four_arms(), {});
  nlohmann::json doc = summary_document(s);
  EXPECT_FALSE(doc["runs"][1].contains("forked_from"));
  EXPECT_FALSE(doc["runs"][1].contains("mpi"));
  EXPECT_FALSE(doc.contains("lr_tuning"));
  // Without targets, "target" is null.
  EXPECT_TRUE(doc["runs"][0]["time_to_accuracy"]["target"].is_null());
  s.runs[1].forked_from = ForkOrigin{"baseline", 40};
  MpiMeasure& m = s.runs[2].mpi.emplace();
  m.processes = 4;
  m.mean.compute_s = NAN;
  m.max.wall_s = 1.5;
  s.lr_tuning.emplace();
  doc = summary_document(s);
  EXPECT_EQ(doc["runs"][1]["forked_from"],
            (nlohmann::json{{"run", "baseline"}, {"iteration", 40}}));
  EXPECT_EQ(doc["runs"][2]["mpi"]["processes"], 4);
  EXPECT_TRUE(doc["runs"][2]["mpi"]["measured_mean"]["compute_s"].is_null());
  EXPECT_EQ(doc["runs"][2]["mpi"]["measured_max"]["wall_s"], 1.5);
  EXPECT_TRUE(doc["lr_tuning"]["runs"].empty());
}

// Per-class accuracy is typed in the summary, and summary.json's "class_accuracy" key is written
// from it: only for the runs that have classes, with the paired worst-class difference for arms.
TEST(ExperimentSummary, ClassAccuracyIsTypedAndWritten) {
  std::vector<RunResult> runs = four_arms();
  // Seed k (0..5): baseline classes {0.9, 0.7 + 0.01 k}, "clear" {0.6 - 0.01 k, 0.95}; the other
  // two arms have none.
  for (size_t k = 0; k < 6; ++k) {
    runs[0].per_seed[k].final_class_accuracy = {0.9, 0.7 + 0.01 * static_cast<double>(k)};
    runs[1].per_seed[k].final_class_accuracy = {0.6 - 0.01 * static_cast<double>(k), 0.95};
  }
  runs[0].summary = runs[0].per_seed.front();
  runs[1].summary = runs[1].per_seed.front();
  const ExperimentSummary s = summarize_experiment("classes", runs, {0.8, 0.8, 0.8, 0.8});
  ASSERT_TRUE(s.runs[0].class_accuracy.has_value());
  ASSERT_TRUE(s.runs[1].class_accuracy.has_value());
  EXPECT_FALSE(s.runs[2].class_accuracy.has_value());
  const ClassAccuracy& base = *s.runs[0].class_accuracy;
  const ClassAccuracy& clear = *s.runs[1].class_accuracy;
  // The baseline's worst class is class 1 on every seed: 0.70 .. 0.75, mean 0.725; no delta.
  EXPECT_EQ(base.worst.label, 1);
  EXPECT_DOUBLE_EQ(base.worst.accuracy, 0.7);
  EXPECT_EQ(base.seeds.worst_classes, std::vector<int>(6, 1));
  EXPECT_NEAR(base.seeds.worst.mean, 0.725, 1e-12);
  EXPECT_FALSE(base.worst_delta_vs_baseline.has_value());
  // "clear": class 0, 0.60 .. 0.55 (mean 0.575); paired with the baseline seed by seed,
  // (0.6 - 0.01 k) - (0.7 + 0.01 k) = -0.1 - 0.02 k, mean -0.1 - 0.02 * 2.5 = -0.15 over 6 pairs.
  EXPECT_EQ(clear.worst.label, 0);
  EXPECT_NEAR(clear.seeds.worst.mean, 0.575, 1e-12);
  ASSERT_TRUE(clear.worst_delta_vs_baseline.has_value());
  EXPECT_EQ(clear.worst_delta_vs_baseline->pairs, 6);
  EXPECT_NEAR(clear.worst_delta_vs_baseline->estimate, -0.15, 1e-12);
  // The document holds exactly the typed values, and no key for the runs without classes.
  const nlohmann::json doc = summary_document(s);
  EXPECT_EQ(doc["runs"][0]["class_accuracy"], class_accuracy_json(base));
  EXPECT_EQ(doc["runs"][1]["class_accuracy"], class_accuracy_json(clear));
  EXPECT_EQ(doc["runs"][1]["class_accuracy"]["worst_class"], 0);
  expect_same(clear.worst_delta_vs_baseline->estimate,
              doc["runs"][1]["class_accuracy"]["worst_delta_vs_baseline"]["estimate"],
              "worst delta");
  EXPECT_FALSE(doc["runs"][2].contains("class_accuracy"));
  EXPECT_FALSE(doc["runs"][3].contains("class_accuracy"));
}

TEST(ExperimentSummary, EquivalenceNamesBothRuns) {
  ExperimentSummary s = summarize_experiment("same", four_arms(), {});
  const EquivalentRun same{3, 1, 7};
  EXPECT_EQ(equivalence_text(s, same), "arm slow equals arm clear on seed 7 (identical series)");
}

}  // namespace
}  // namespace commlab
