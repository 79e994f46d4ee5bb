// The runs table beside the Training charts (issue 33): each row carries the run's final
// accuracy, time per iteration, time to target, speedup over the baseline and wire bytes, the
// numbers the engine's summary gives for that run.
#include <gtest/gtest.h>

#include <QPushButton>
#include <QTreeWidget>

#include "runs_list.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

TEST(RunsTable, RowsShowTheSummarysFigures) {
  test::app();
  TrainingView view;
  RunConfig base = test::spiral_run("baseline", 30, 2);
  base.training.target_accuracy = 0.5;
  RunConfig faster = base;
  faster.name = "lr 0.2";
  faster.training.lr = 0.2;
  view.set_runs({base, faster}, "table");
  view.run_all();
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && view.summaries().size() == 2; }));
  QTreeWidget* tree = view.runs_list()->tree();
  ASSERT_EQ(tree->topLevelItemCount(), 2);
  for (int i = 0; i < 2; ++i) {
    const RunSummary& s = view.summaries()[i];
    const QTreeWidgetItem* row = tree->topLevelItem(i);
    EXPECT_EQ(row->text(2), QString::number(s.final_test_accuracy, 'f', 3)) << i;
    EXPECT_EQ(row->text(3), QString::number(s.sim_time_s / 30 * 1e3, 'g', 4)) << i;
    ASSERT_GT(s.time_to_accuracy_s, 0) << i;
    EXPECT_EQ(row->text(4), QString::number(s.time_to_accuracy_s * 1e3, 'g', 4)) << i;
  }
  // Speedup = baseline TTA / run TTA, the baseline's own 1.00x.
  const double speedup =
      view.summaries()[0].time_to_accuracy_s / view.summaries()[1].time_to_accuracy_s;
  EXPECT_EQ(tree->topLevelItem(0)->text(5), "1.00x");
  EXPECT_EQ(tree->topLevelItem(1)->text(5), QString::number(speedup, 'f', 2) + "x");
  EXPECT_EQ(tree->headerItem()->text(7), "differs from the baseline");
  // Any run can be the baseline: select the second row, Use as baseline; it reads 1.00x and the
  // first row the inverse ratio.
  tree->topLevelItem(1)->setSelected(true);
  auto* use = view.runs_list()->findChild<QPushButton*>("use_as_baseline");
  ASSERT_NE(use, nullptr);
  ASSERT_TRUE(use->isEnabled());
  use->click();
  EXPECT_EQ(tree->topLevelItem(1)->text(5), "1.00x");
  EXPECT_EQ(tree->topLevelItem(0)->text(5), QString::number(1 / speedup, 'f', 2) + "x");
  EXPECT_TRUE(tree->topLevelItem(1)->font(5).bold());
  EXPECT_FALSE(tree->topLevelItem(0)->font(5).bold());
}

}  // namespace
}  // namespace commlab::ui
