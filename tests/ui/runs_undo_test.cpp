// Remove and Clear all acted with no confirmation and no undo. Undo remove brings
// the runs back (kept curves, names, order); runs kept since stay.
#include <gtest/gtest.h>

#include <QPushButton>
#include <QTreeWidget>

#include "runs_list.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

RunConfig tiny(const std::string& name, int skip) {
  RunConfig c = test::spiral_run(name, 8, 4);
  c.techniques.skipreduce.skip = skip;
  return c;
}

TEST(RunsUndo, RemoveAndClearAllCanBeUndone) {
  app();
  TrainingView view;
  view.set_live(false);
  view.set_runs({tiny("baseline", 0), tiny("skip-1", 1)}, "two");
  ASSERT_TRUE(view.run_all());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  const QStringList both{"baseline", "skip-1"};
  ASSERT_EQ(view.pinned_names(), both);
  auto* undo = view.runs_list()->findChild<QPushButton*>("undo_remove");
  ASSERT_NE(undo, nullptr);
  EXPECT_FALSE(undo->isEnabled());
  // Remove one (as the button does: the selected row).
  QTreeWidget* tree = view.runs_list()->tree();
  tree->topLevelItem(0)->setSelected(true);
  for (QPushButton* b : view.runs_list()->findChildren<QPushButton*>())
    if (b->text() == "Remove") b->click();
  EXPECT_EQ(view.pinned_names(), QStringList{"skip-1"});
  EXPECT_TRUE(undo->isEnabled());
  undo->click();
  EXPECT_EQ(view.pinned_names(), both);
  EXPECT_EQ(view.drawn_names(), both);
  EXPECT_FALSE(undo->isEnabled());
  // Clear all, then a new run, then undo: the cleared runs come back before the new one.
  view.clear_runs();
  EXPECT_EQ(view.pinned_count(), 0);
  EXPECT_TRUE(view.drawn_names().isEmpty() || view.drawn_names() == QStringList{"current"});
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  view.pin();
  ASSERT_EQ(view.pinned_count(), 1);
  ASSERT_TRUE(view.can_undo_remove());
  view.undo_remove();
  ASSERT_EQ(view.pinned_count(), 3);
  EXPECT_EQ(view.pinned_names().mid(0, 2), both);
}

// Step mode promised "about 9 min left" from the wall clock of a paused run.
TEST(StepMode, APausedRunPromisesNoTimeLeft) {
  app();
  TrainingView view;
  view.set_live(false);
  RunConfig c = tiny("baseline", 0);
  c.training.iterations = 50;
  view.set_runs({c}, "step");
  view.step();
  ASSERT_TRUE(wait_for([&] { return view.samples().size() == 1; }));
  QTest::qWait(700);  // past the half second after which an estimate is shown
  view.step();
  ASSERT_TRUE(wait_for([&] { return view.samples().size() == 2; }));
  QTest::qWait(100);
  EXPECT_FALSE(view.progress_text().contains("left")) << view.progress_text().toStdString();
  EXPECT_TRUE(view.progress_text().contains("paused")) << view.progress_text().toStdString();
  view.reset();
}

}  // namespace
}  // namespace commlab::ui
