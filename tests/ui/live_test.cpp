// The Training tab as a live lab: a settings change re-trains at once with the old
// curve as a ghost; runs are kept, shown, hidden, renamed and removed; a refused run or a new Run
// never takes a result away; run names say what differs.
#include <gtest/gtest.h>

#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>

#include "run_naming.h"
#include "runs_list.h"
#include "training_bridge.h"
#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

QDoubleSpinBox* lr_box(TrainingView& view) {
  return qobject_cast<QDoubleSpinBox*>(view.panel()->control("training.lr"));
}

TEST(LiveMode, AChangeRestartsTheRunWithTheOldCurveAsAGhost) {
  app();
  TrainingView view;
  ASSERT_TRUE(view.live());  // on by default
  view.set_runs({test::small_run(30)}, "live");
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  ASSERT_EQ(view.samples().size(), 30u);
  const double old_loss = view.samples().back().train_loss;
  // At the new run's first points the old curve (all 30 iterations) is drawn as a ghost.
  size_t ghost_at_first = 0;
  QStringList names_at_first;
  QObject::connect(&view, &TrainingView::first_points_drawn, [&] {
    if (!names_at_first.isEmpty()) return;
    ghost_at_first = view.ghost().size();
    names_at_first = view.drawn_names();
  });
  lr_box(view)->setValue(0.08);  // a user edit: no Run pressed
  EXPECT_FALSE(view.idle());
  // One iteration at a time, so the check does not race a fast run past the ghost.
  view.bridge()->pause();
  view.step();
  ASSERT_TRUE(wait_for([&] { return !names_at_first.isEmpty(); }));
  view.pause_or_resume();  // resume
  EXPECT_EQ(ghost_at_first, 30u);
  EXPECT_TRUE(names_at_first.contains("before: baseline"))
      << names_at_first.join("|").toStdString();
  EXPECT_TRUE(names_at_first.contains("lr 0.08")) << names_at_first.join("|").toStdString();
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  // The new run (lr 0.08, same seed) trained all its iterations; a different lr gives a different
  // loss. The old curve stays drawn after the new one passed it (a history).
  ASSERT_EQ(view.samples().size(), 30u);
  EXPECT_EQ(view.current_name(), "lr 0.08");
  EXPECT_NE(view.samples().back().train_loss, old_loss);
  EXPECT_EQ(view.ghost().size(), 30u);
  EXPECT_TRUE(view.drawn_names().contains("before: baseline"));
}

TEST(LiveMode, EveryReplacedCurveStaysUntilClearedAndUndoBringsThemBack) {
  app();
  TrainingView view;
  view.set_runs({test::small_run(10)}, "live");
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  for (double lr : {0.08, 0.12}) {  // two live changes, each run to its end
    lr_box(view)->setValue(lr);
    ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  }
  EXPECT_EQ(view.ghost_count(), 2);
  const QStringList drawn = view.drawn_names();
  EXPECT_TRUE(drawn.contains("before: baseline")) << drawn.join("|").toStdString();
  EXPECT_TRUE(drawn.contains("before: lr 0.08")) << drawn.join("|").toStdString();
  view.clear_runs();
  EXPECT_EQ(view.ghost_count(), 0);
  EXPECT_FALSE(view.drawn_names().contains("before: baseline"));
  view.undo_remove();
  EXPECT_EQ(view.ghost_count(), 2);
  EXPECT_TRUE(view.drawn_names().contains("before: lr 0.08"));
}

TEST(LiveMode, ManyQuickChangesEndInOneRunOfTheLastSettings) {
  app();
  TrainingView view;
  view.set_runs({test::small_run(20)}, "live");
  for (double lr : {0.06, 0.07, 0.08, 0.09}) lr_box(view)->setValue(lr);
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  // The throttle always applies the last change: the run that finished used lr 0.09.
  EXPECT_EQ(view.current_name(), "lr 0.09");
  // Four changes inside one 250 ms window start at most two runs: the first at once, the last
  // at the end of the window (the two between are never started).
  EXPECT_LE(view.summaries().size(), 2u);
  EXPECT_EQ(view.samples().size(), 20u);
}

TEST(LiveMode, HeavySettingsWaitForRunAndSayWhy) {
  RunConfig c = test::small_run(5);
  c.workload.kind = WorkloadKind::kCatalog;
  EXPECT_NE(live_blocker(c), "");
  c = test::small_run(5);
  c.cluster.backend = ClusterBackend::kPacket;
  c.packet.background = "incast:4";
  EXPECT_NE(live_blocker(c), "");
  EXPECT_EQ(live_blocker(test::small_run(5)), "");
  app();
  TrainingView view;
  RunConfig heavy = test::small_run(5);
  heavy.cluster.backend = ClusterBackend::kPacket;
  heavy.packet.background = "incast:4";
  view.set_runs({heavy});
  lr_box(view)->setValue(0.08);
  EXPECT_TRUE(view.idle());  // no run started
  EXPECT_TRUE(view.samples().empty());
}

TEST(RunNames, SayWhatDiffersFromTheBaseline) {
  const RunConfig base = test::small_run(10);
  RunConfig c = base;
  c.training.lr = 0.08;
  c.techniques.skipreduce.skip = 2;
  EXPECT_EQ(changed_settings(base, c), (QStringList{"skip 2", "lr 0.08"}));
  EXPECT_EQ(describe_run(base, base, c), "skip 2, lr 0.08");
  // An unedited scenario run keeps its own name; an edit of it is described against the baseline.
  RunConfig skip = base;
  skip.name = "skipreduce-50";
  skip.techniques.skipreduce.skip = 2;
  EXPECT_EQ(describe_run(base, skip, skip), "skipreduce-50");
  RunConfig edited = skip;
  edited.training.lr = 0.08;
  EXPECT_EQ(describe_run(base, skip, edited), "skip 2, lr 0.08");
  // Back to the baseline's settings under another name: "baseline".
  RunConfig same = base;
  same.name = "run 6";
  EXPECT_EQ(describe_run(base, skip, same), "baseline");
}

// Run all of two runs, then what must never lose them.
struct AppFirst {  // the QApplication exists before the fixture's widgets
  AppFirst() { app(); }
};
struct TwoRuns : ::testing::Test, AppFirst {
  TrainingView view;
  void SetUp() override {
    view.set_live(false);
    RunConfig skip = test::small_run(8);
    skip.name = "skip-1";
    skip.techniques.skipreduce.skip = 1;
    view.set_runs({test::small_run(8), skip}, "two");
    ASSERT_TRUE(view.run_all());
    ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  }
};

TEST_F(TwoRuns, RunAllKeepsEveryResultAndALaterRunAddsOne) {
  // Both Run all results are kept (the last one too), under their scenario names.
  EXPECT_EQ(view.pinned_names(), (QStringList{"baseline", "skip-1"}));
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  EXPECT_EQ(view.pinned_count(), 2);
  EXPECT_EQ(view.drawn_names().size(), 3) << view.drawn_names().join("|").toStdString();
  EXPECT_EQ(view.runs_list()->row_count(), 3);
}

TEST_F(TwoRuns, ARefusedRunKeepsEveryResult) {
  ASSERT_TRUE(view.run());  // a current run beside the two kept ones
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  const QStringList before = view.drawn_names();
  ASSERT_EQ(before.size(), 3);
  // fattree:k=3 (odd k) is refused by the engine's checks on the worker; a batch of 66 on 4
  // ranks too. Neither run starts, and every curve stays.
  RunConfig bad = test::small_run(8);
  bad.cluster.spec = "fattree:k=3";
  view.panel()->set_config(bad);
  view.run();
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  EXPECT_FALSE(view.panel()->problems_text().isEmpty());
  EXPECT_EQ(view.drawn_names(), before);
  EXPECT_EQ(view.samples().size(), 8u);
  bad = test::small_run(8);
  bad.training.global_batch = 66;
  view.panel()->set_config(bad);
  view.run();
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  EXPECT_EQ(view.drawn_names(), before);
  EXPECT_EQ(view.pinned_count(), 2);
}

TEST_F(TwoRuns, TheRunsListHidesRenamesRemovesAndClears) {
  QTreeWidget* tree = view.runs_list()->tree();
  ASSERT_EQ(tree->topLevelItemCount(), 2);
  tree->topLevelItem(0)->setCheckState(0, Qt::Unchecked);  // hide "baseline"
  EXPECT_EQ(view.drawn_names(), QStringList{"skip-1"});
  tree->topLevelItem(0)->setCheckState(0, Qt::Checked);
  EXPECT_EQ(view.drawn_names(), (QStringList{"baseline", "skip-1"}));
  tree->topLevelItem(1)->setText(0, "one skipped");  // what a double-click edit commits
  EXPECT_EQ(view.drawn_names(), (QStringList{"baseline", "one skipped"}));
  tree->topLevelItem(0)->setSelected(true);
  QPushButton* remove = nullptr;
  QPushButton* clear = nullptr;
  for (QPushButton* b : view.runs_list()->findChildren<QPushButton*>()) {
    if (b->text() == "Remove") remove = b;
    if (b->text() == "Clear all") clear = b;
  }
  ASSERT_TRUE(remove && clear);
  remove->click();
  EXPECT_EQ(view.pinned_names(), QStringList{"one skipped"});
  EXPECT_EQ(view.drawn_names(), QStringList{"one skipped"});
  clear->click();
  EXPECT_EQ(view.pinned_count(), 0);
  EXPECT_EQ(tree->topLevelItemCount(), 0);
}

TEST_F(TwoRuns, RunsOfAnotherScenarioAreLabelledAndStay) {
  view.set_runs({test::small_run(4)}, "other");
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  // Two "baseline"s, told apart by the scenario they ran in.
  EXPECT_EQ(view.drawn_names(), (QStringList{"two: baseline", "two: skip-1", "baseline"}));
}

TEST(Progress, RunAllCountsEveryRunsIterations) {
  app();
  TrainingView view;
  view.set_live(false);
  RunConfig second = test::small_run(6);
  second.name = "second";
  view.set_runs({test::small_run(4), second});
  ASSERT_TRUE(view.run_all());
  // 4 + 6 iterations in the batch.
  EXPECT_TRUE(wait_for([&] { return view.progress_text().contains("/10 iterations"); }))
      << view.progress_text().toStdString();
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  EXPECT_EQ(view.progress_text(), "idle");
}

}  // namespace
}  // namespace commlab::ui

namespace commlab::ui {
namespace {

// While a new run is checked and built, the running one waits between two iterations (the cores
// are the new run's: that build is what a live change waits for); the engine's refusal of the new
// run lets the held one go on from where it stood, its samples still coming.
TEST(TrainingBridgeHold, ARefusalLetsTheHeldRunGoOn) {
  test::app();
  TrainingBridge bridge;
  bool refused = false;
  QObject::connect(&bridge, &TrainingBridge::failed, [&] { refused = true; });
  bridge.start(test::small_run(100'000));
  ASSERT_TRUE(test::wait_for([&] { return bridge.completed() >= 3; }));
  RunConfig bad = test::small_run(10);
  bad.training.global_batch = 66;  // not a multiple of the 4 ranks: refused on the worker
  bridge.start(bad);
  ASSERT_TRUE(test::wait_for([&] { return refused; }));
  ASSERT_TRUE(bridge.active());
  const int at = bridge.completed();
  EXPECT_GE(at, 3);
  EXPECT_TRUE(test::wait_for([&] { return bridge.completed() >= at + 3; }));
  EXPECT_FALSE(bridge.take_samples().empty());
  bridge.reset();
}

}  // namespace
}  // namespace commlab::ui
