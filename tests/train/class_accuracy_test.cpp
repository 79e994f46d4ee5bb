// Test accuracy by class: of the rows labelled k, the fraction predicted k; the classes' accuracies
// weighted by their row counts give back the overall accuracy, whatever the chunking.
#include <gtest/gtest.h>

#include <cmath>

#include "train/data/synthetic.h"
#include "train/trainer.h"

namespace commlab {
namespace {

// Seven rows, three classes; the prediction is each row's largest logit.
//   label 0: rows predicted 0, 0, 2  -> 2 of 3 right
//   label 1: rows predicted 1, 0     -> 1 of 2
//   label 2: rows predicted 2, 2     -> 2 of 2
TEST(ClassAccuracy, HandMadeEvaluationCountsEachClass) {
  Matrix logits(7, 3);
  logits << 5, 1, 0,  //
      3, 0, 1,        //
      0, 1, 4,        //
      0, 6, 1,        //
      2, 1, 0,        //
      0, 0, 3,        //
      1, 2, 9;
  const std::vector<int32_t> y = {0, 0, 0, 1, 1, 2, 2};
  const LossStats s = softmax_cross_entropy(logits, y, nullptr);
  EXPECT_EQ(s.class_count, (std::vector<int64_t>{3, 2, 2}));
  EXPECT_EQ(s.class_correct, (std::vector<int64_t>{2, 1, 2}));
  // c_k / n_k: 2/3, 1/2, 2/2.
  const std::vector<double> a = s.class_accuracy();
  ASSERT_EQ(a.size(), 3u);
  EXPECT_DOUBLE_EQ(a[0], 2.0 / 3);
  EXPECT_DOUBLE_EQ(a[1], 0.5);
  EXPECT_DOUBLE_EQ(a[2], 1.0);
  // sum_k n_k a_k / n = (2 + 1 + 2) / 7 = correct / count.
  EXPECT_EQ(s.correct, 5);
  EXPECT_DOUBLE_EQ((3 * a[0] + 2 * a[1] + 2 * a[2]) / 7, static_cast<double>(s.correct) / s.count);
}

// A class with no row has no accuracy (NaN), not 0: it was never tested.
TEST(ClassAccuracy, AClassWithoutRowsIsNaN) {
  Matrix logits(2, 3);
  logits << 1, 0, 0,  //
      0, 0, 1;
  const LossStats s = softmax_cross_entropy(logits, std::vector<int32_t>{0, 2}, nullptr);
  const std::vector<double> a = s.class_accuracy();
  EXPECT_EQ(a[0], 1.0);
  EXPECT_TRUE(std::isnan(a[1]));
  EXPECT_EQ(a[2], 1.0);
}

// The trainer's evaluation sums the per-class counts over its 500-row chunks: on 1,300 rows (three
// chunks) the counts add up to the rows of each class, and the count-weighted mean of the classes'
// accuracies is the sample's test accuracy.
TEST(ClassAccuracy, TrainerEvaluationWeightsBackToTheOverallAccuracy) {
  SyntheticConfig sc;
  sc.kind = SyntheticKind::kBlobs;
  sc.classes = 4;
  sc.train_rows = 512;
  sc.test_rows = 1300;
  sc.noise = 0.6;  // overlapping blobs: some rows wrong, so the check is not 1 = 1
  const TrainTest d = make_synthetic(sc);
  TrainerConfig c;
  c.ranks = 2;
  c.global_batch = 32;
  c.iterations = 4;
  c.seed = 3;
  ExactAverageReducer reducer;
  DataParallelTrainer t(make_mlp(2, {16}, d.train.num_classes), d.train, d.test, c, reducer);
  const Sample last = t.run();
  ASSERT_TRUE(last.evaluated());
  const LossStats e = t.evaluate(0);
  ASSERT_EQ(e.class_count.size(), 4u);
  std::vector<int64_t> rows(4, 0);
  for (int32_t label : d.test.y) ++rows[label];
  EXPECT_EQ(e.class_count, rows);
  ASSERT_EQ(last.class_accuracy.size(), 4u);
  double weighted = 0;
  for (size_t k = 0; k < 4; ++k) weighted += static_cast<double>(rows[k]) * last.class_accuracy[k];
  EXPECT_NEAR(weighted / 1300, last.test_accuracy, 1e-12);
  EXPECT_LT(last.test_accuracy, 1.0);
}

}  // namespace
}  // namespace commlab
