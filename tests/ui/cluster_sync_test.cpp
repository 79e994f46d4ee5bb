// Ranks and the cluster spec stay in step, refusals name the control to
// change and sit above the fold, a red spin box keeps its arrows, a typed 3456 is reported (not
// cut to 345), and a clashing edit never stops the running run.
#include "cluster_sync.h"

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <filesystem>
#include <fstream>

#include "cluster_editor.h"
#include "training_bridge.h"
#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

RunConfig small(int iterations, const std::string& spec = "flat:8,gbps=200,alpha_us=5",
                int ranks = 8) {
  RunConfig c;
  c.name = "baseline";
  c.cluster.spec = spec;
  c.workload.dataset = "spiral";
  c.workload.hidden = {32};
  c.training.ranks = ranks;
  c.training.iterations = iterations;
  c.training.global_batch = 64;
  c.training.eval_every = 5;
  c.training.eval_rows = 200;
  return c;
}

QSpinBox* ranks_box(TrainingPanel* p) {
  return qobject_cast<QSpinBox*>(p->control("training.ranks"));
}
QLineEdit* spec_box(TrainingPanel* p) {
  return qobject_cast<QLineEdit*>(p->control("cluster.spec"));
}

TEST(ClusterSync, LiveRanksEditRewritesTheSpecFirstAndTheRunStarts) {
  app();
  TrainingView view;
  view.set_runs({small(6)}, "sync");
  ranks_box(view.panel())->setValue(4);  // Live: the run starts from this edit alone
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  EXPECT_EQ(spec_box(view.panel())->text(), "flat:4,gbps=200,alpha_us=5");
  EXPECT_TRUE(view.panel()->problems_text().isEmpty())
      << view.panel()->problems_text().toStdString();
  EXPECT_EQ(view.samples().size(), 6u);
  ASSERT_FALSE(view.summaries().empty());
}

TEST(ClusterSync, CustomClustersFollowRanksAndRefusalsNameTheControl) {
  app();
  TrainingPanel panel;
  panel.set_config(small(6, "leafspine:servers=2,gpus_per_server=4,gpu=h100,oversub=1"));
  ranks_box(&panel)->setValue(16);
  EXPECT_EQ(panel.config().cluster.spec.rfind("leafspine:servers=4,gpus_per_server=4", 0), 0u)
      << panel.config().cluster.spec;
  EXPECT_TRUE(panel.check(panel.config()).empty());
  ranks_box(&panel)->setValue(6);  // not a multiple of 4 GPUs per node: refused, spec unchanged
  EXPECT_EQ(panel.config().cluster.spec.rfind("leafspine:servers=4", 0), 0u);
  EXPECT_TRUE(panel.problems_text().contains("GPUs per node"))
      << panel.problems_text().toStdString();
  EXPECT_EQ(panel.marked_fields(), QStringList{"training.ranks"});
  // A preset cannot follow: the message says what to set, in the panel's words.
  panel.set_config(small(6, "dgx-h100", 8));
  ranks_box(&panel)->setValue(4);
  EXPECT_TRUE(panel.problems_text().contains("set Ranks to 8"))
      << panel.problems_text().toStdString();
  EXPECT_FALSE(panel.problems_text().contains("omit one"));
}

TEST(ClusterSync, TypingASpecSetsRanks) {
  app();
  TrainingPanel panel;
  panel.set_config(small(6));
  spec_box(&panel)->setText("fattree:k=4");
  emit spec_box(&panel)->editingFinished();
  EXPECT_EQ(panel.config().training.ranks, 16);
  spec_box(&panel)->setText("flat:5");
  emit spec_box(&panel)->editingFinished();
  EXPECT_EQ(panel.config().training.ranks, 5);
  EXPECT_EQ(spec_gpu_count("dgx-h100-pod:nodes=2"), 16);
  EXPECT_EQ(spec_gpu_count("fattree:k=3"), -1);
  // A cluster file is read again on every look: editing it changes the count (it was cached).
  const std::string file = (std::filesystem::temp_directory_path() / "sync_cluster.json").string();
  std::ofstream(file) << R"({"builder": "flat", "params": {"ranks": 4}})";
  EXPECT_EQ(spec_gpu_count(QString::fromStdString(file)), 4);
  std::ofstream(file) << R"({"builder": "flat", "params": {"ranks": 6}})";
  EXPECT_EQ(spec_gpu_count(QString::fromStdString(file)), 6);
  std::filesystem::remove(file);
}

TEST(ClusterSync, OutOfRangeRanksIsReportedNotTruncatedAndTheMarkKeepsTheArrows) {
  app();
  TrainingPanel panel;
  panel.set_config(small(6));
  panel.resize(340, 700);
  panel.show();
  QSpinBox* ranks = ranks_box(&panel);
  ranks->setFocus();
  ranks->selectAll();
  QTest::keyClicks(ranks, "3456");
  QTest::keyClick(ranks, Qt::Key_Return);
  EXPECT_EQ(ranks->value(), 3456);
  EXPECT_TRUE(panel.problems_text().contains("at most 256")) << panel.problems_text().toStdString();
  EXPECT_TRUE(panel.marked_fields().contains("training.ranks"));
  // Marked by a tinted field, not a style sheet border (which drops a spin box's arrows).
  EXPECT_TRUE(ranks->property("problem").toBool());
  EXPECT_TRUE(ranks->styleSheet().isEmpty());
  EXPECT_NE(ranks->palette().color(QPalette::Base), QPalette().color(QPalette::Base));
  // The message is above the fold: above the first group of settings.
  auto* problems = panel.findChild<QLabel*>("problems");
  ASSERT_NE(problems, nullptr);
  EXPECT_TRUE(problems->isVisible());
  EXPECT_LT(problems->y(), panel.findChildren<QGroupBox*>().front()->y());
  if (qEnvironmentVariableIsSet("COMMLAB_SHOTS"))  // for a look: the marked panel
    panel.grab().save(qEnvironmentVariable("COMMLAB_SHOTS") + "/ranks_marked.png");
  // Fixed: the mark goes and the field looks like the others again.
  ranks->setValue(8);
  EXPECT_TRUE(panel.problems_text().isEmpty());
  EXPECT_FALSE(ranks->property("problem").toBool());
  EXPECT_EQ(ranks->palette().color(QPalette::Base), QPalette().color(QPalette::Base));
}

TEST(ClusterSync, AClashingEditKeepsTheRunningRunAndMarksTheCodec) {
  app();
  TrainingView view;
  RunConfig c = small(400);
  c.techniques.codec = "commlab";
  view.set_runs({c}, "clash");
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.samples().size() >= 5; }));
  // Ticking Trimming with a codec set: the engine refuses (trimming carries its own encoding).
  qobject_cast<QCheckBox*>(view.panel()->control("techniques.trimming.enabled"))->setChecked(true);
  ASSERT_TRUE(wait_for([&] { return !view.panel()->problems_text().isEmpty(); }));
  EXPECT_TRUE(view.panel()->problems_text().contains("set codec to none"))
      << view.panel()->problems_text().toStdString();
  EXPECT_EQ(view.panel()->marked_fields(), QStringList{"techniques.codec"});
  EXPECT_TRUE(view.bridge()->active());  // the running run goes on ...
  // The full message is in sight: above the settings' scroll area, not inside it.
  auto* problems = view.findChild<QLabel*>("problems");
  ASSERT_NE(problems, nullptr);
  EXPECT_FALSE(view.findChild<QWidget*>("settings_scroll")->isAncestorOf(problems));
  EXPECT_TRUE(view.progress_text().contains("/400 iterations"))
      << view.progress_text().toStdString();
  if (qEnvironmentVariableIsSet("COMMLAB_SHOTS")) {
    view.resize(1280, 800);
    view.show();
    QTest::qWait(100);
    view.grab().save(qEnvironmentVariable("COMMLAB_SHOTS") + "/clash_kept.png");
  }
  ASSERT_TRUE(wait_for([&] { return view.idle(); }, 60000));
  EXPECT_EQ(view.samples().size(), 400u);  // ... to its end
  ASSERT_EQ(view.summaries().size(), 1u);
  EXPECT_TRUE(view.panel()->config().techniques.trimming.enabled);  // the edit is kept
}

// The NIC box stepped by 1 Gb/s (400 arrow clicks from 0 to 400 Gb/s).
TEST(ClusterSync, TheNicStepsInUsefulRates) {
  app();
  TrainingPanel panel;
  QDoubleSpinBox* nic = nullptr;
  for (auto* box : panel.cluster_editor()->findChildren<QDoubleSpinBox*>())
    if (box->suffix() == " Gb/s") nic = box;
  ASSERT_NE(nic, nullptr);
  EXPECT_GE(nic->singleStep(), 25);
}

// After Run all the status names the last run's last iteration and the accuracy
// of its last evaluation (it stayed as a mid-run redraw left it: 199/200, accuracy of 150).
TEST(RunAllStatus, NamesTheLastIterationAndItsAccuracy) {
  app();
  TrainingView view;
  view.set_live(false);
  RunConfig skip = small(40, "flat:4", 4);
  skip.name = "skip-1";
  skip.techniques.skipreduce.skip = 1;
  view.set_runs({small(40, "flat:4", 4), skip}, "two");
  ASSERT_TRUE(view.run_all());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  ASSERT_EQ(view.pinned_count(), 2);
  const CsvTable csv = view.export_data();
  QString last_iteration, accuracy_iteration, accuracy;
  for (const QStringList& row : csv.rows) {
    if (row[0] != "skip-1") continue;
    last_iteration = row[1];
    if (!row[4].isEmpty()) {
      accuracy_iteration = row[1];
      accuracy = QString::number(row[4].toDouble(), 'f', 3);
    }
  }
  ASSERT_FALSE(accuracy.isEmpty());
  const QString status = view.findChild<QLabel*>("status")->text();
  EXPECT_TRUE(status.contains("skip-1: iteration " + last_iteration + "/40"))
      << status.toStdString();
  EXPECT_TRUE(
      status.contains("test accuracy " + accuracy + " (iteration " + accuracy_iteration + ")"))
      << status.toStdString();
}

}  // namespace
}  // namespace commlab::ui
