// summary.json's and series.csv's test accuracy by class: the worst class, its statistics over the
// seeds and its paired difference from the baseline.
#include "scenario/run/class_accuracy.h"

#include <gtest/gtest.h>

#include <cmath>

namespace commlab {
namespace {

RunResult with_seeds(const std::string& name, const std::vector<std::vector<double>>& per_seed) {
  RunResult r;
  for (size_t k = 0; k < per_seed.size(); ++k) {
    RunSummary s;
    s.name = name;
    s.seed = 7 + k;
    s.iterations = 10;
    s.final_class_accuracy = per_seed[k];
    r.per_seed.push_back(s);
  }
  r.summary = r.per_seed.front();
  return r;
}

TEST(ClassAccuracy, WorstClassSkipsClassesWithoutRows) {
  const double nan = std::nan("");
  // min over {0.9, 0.4, 0.7} (the NaN class untested) = 0.4, class 2.
  const WorstClass w = worst_class_accuracy({0.9, nan, 0.4, 0.7});
  EXPECT_EQ(w.label, 2);
  EXPECT_EQ(w.accuracy, 0.4);
  // A tie keeps the lower label.
  EXPECT_EQ(worst_class_accuracy({0.5, 0.5}).label, 0);
  EXPECT_EQ(worst_class_accuracy({}).label, -1);
  EXPECT_TRUE(std::isnan(worst_class_accuracy({nan}).accuracy));
}

TEST(ClassAccuracy, SummaryHasTheWorstClassOverSeedsAndPairedWithTheBaseline) {
  const RunResult base = with_seeds("baseline", {{0.9, 0.8}, {0.85, 0.95}, {0.7, 0.9}});
  const RunResult arm = with_seeds("naive", {{0.9, 0.5}, {0.6, 0.95}, {0.65, 0.9}});
  const std::optional<ClassAccuracy> b = class_accuracy_stats(base, base);
  ASSERT_TRUE(b.has_value());
  // The first seed's classes {0.9, 0.8}: worst 0.8, class 1.
  EXPECT_EQ(b->final, (std::vector<double>{0.9, 0.8}));
  EXPECT_EQ(b->worst.accuracy, 0.8);
  EXPECT_EQ(b->worst.label, 1);
  EXPECT_FALSE(b->worst_delta_vs_baseline.has_value());
  // Worst per seed: baseline 0.8 (class 1), 0.85 (class 0), 0.7 (class 0); arm 0.5, 0.6, 0.65.
  EXPECT_EQ(b->seeds.n, 3u);
  EXPECT_EQ(b->seeds.worst_values, (std::vector<double>{0.8, 0.85, 0.7}));
  EXPECT_EQ(b->seeds.worst_classes, (std::vector<int>{1, 0, 0}));
  // Mean (0.8 + 0.85 + 0.7) / 3 = 0.78333; s = 0.076376 (deviations 0.01667, 0.06667, -0.08333),
  // half-width t_{0.975,2} s / sqrt(3) = 4.302653 * 0.076376 / 1.732051 = 0.189729.
  EXPECT_NEAR(b->seeds.worst.mean, 0.78333333333333333, 1e-12);
  EXPECT_NEAR(b->seeds.worst.half_width, 0.189729, 1e-6);
  // Per class mean over seeds: (0.9 + 0.85 + 0.7) / 3, (0.8 + 0.95 + 0.9) / 3.
  ASSERT_EQ(b->seeds.final_mean.size(), 2u);
  EXPECT_NEAR(b->seeds.final_mean[0], 2.45 / 3, 1e-12);
  EXPECT_NEAR(b->seeds.final_mean[1], 2.65 / 3, 1e-12);
  const std::optional<ClassAccuracy> a = class_accuracy_stats(arm, base);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(a->worst_delta_vs_baseline.has_value());
  // Paired differences -0.3, -0.25, -0.05: mean -0.2 over 3 pairs.
  EXPECT_EQ(a->worst_delta_vs_baseline->pairs, 3);
  EXPECT_NEAR(a->worst_delta_vs_baseline->estimate, -0.2, 1e-12);
  // summary.json's form of the same values.
  const nlohmann::json bj = class_accuracy_json(*b);
  EXPECT_EQ(bj["final"], nlohmann::json::array({0.9, 0.8}));
  EXPECT_EQ(bj["worst"], 0.8);
  EXPECT_EQ(bj["worst_class"], 1);
  EXPECT_FALSE(bj.contains("worst_delta_vs_baseline"));
  EXPECT_EQ(bj["seeds"]["worst_values"], nlohmann::json::array({0.8, 0.85, 0.7}));
  EXPECT_EQ(bj["seeds"]["worst_classes"], nlohmann::json::array({1, 0, 0}));
  EXPECT_NEAR(bj["seeds"]["worst_mean"].get<double>(), 0.78333333333333333, 1e-12);
  EXPECT_NEAR(bj["seeds"]["worst_ci95"][1].get<double>(), 0.78333333333333333 + 0.189729, 1e-6);
  const nlohmann::json aj = class_accuracy_json(*a);
  EXPECT_EQ(aj["worst_delta_vs_baseline"]["pairs"], 3);
  EXPECT_NEAR(aj["worst_delta_vs_baseline"]["estimate"].get<double>(), -0.2, 1e-12);
}

// A seed without per-class values has no worst class: -1 in the struct, null in the file, and
// the mean is over the seeds that have one.
TEST(ClassAccuracy, SeedWithoutClassesHasNoWorstClass) {
  const RunResult run = with_seeds("r", {{0.6, 0.4}, {}, {0.3, 0.9}});
  const std::optional<ClassAccuracy> c = class_accuracy_stats(run, run);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->seeds.worst_classes, (std::vector<int>{1, -1, 0}));
  EXPECT_TRUE(std::isnan(c->seeds.worst_values[1]));
  // Known worst values 0.4 and 0.3: mean 0.35 over n = 2.
  EXPECT_EQ(c->seeds.worst.n, 2);
  EXPECT_NEAR(c->seeds.worst.mean, 0.35, 1e-12);
  const nlohmann::json j = class_accuracy_json(*c);
  EXPECT_TRUE(j["seeds"]["worst_classes"][1].is_null());
  EXPECT_TRUE(j["seeds"]["worst_values"][1].is_null());
  EXPECT_EQ(j["seeds"]["n"], 3);
}

// A run without per-class accuracy (a catalog or language-model run) has none.
TEST(ClassAccuracy, NoClassesNoKey) {
  RunResult r;
  r.summary.name = "catalog";
  EXPECT_FALSE(class_accuracy_stats(r, r).has_value());
}

// series.csv ends with the worst class's accuracy and every class's in one cell (';' between,
// empty for a class without rows), so the header is the same for every data set.
TEST(ClassAccuracy, SeriesRowEndsWithTheClasses) {
  Sample s;
  s.iteration = 1;
  s.test_accuracy = 0.5;
  s.class_accuracy = {0.75, std::nan(""), 0.25};
  const std::string row = series_row("r", s);
  EXPECT_TRUE(row.ends_with(",0.25,0.75;;0.25\n")) << row;
  const auto& cols = series_columns();
  EXPECT_EQ(cols[cols.size() - 2], "worst_class_accuracy");
  EXPECT_EQ(cols.back(), "class_accuracy");
  Sample unevaluated;
  const std::string plain = series_row("r", unevaluated);
  EXPECT_TRUE(plain.ends_with(",,\n")) << plain;
}

}  // namespace
}  // namespace commlab
