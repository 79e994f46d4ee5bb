// Problems stay put: a refused edit shows its message in a space of fixed height
// above the settings, so no control moves and the next click lands where the user aimed; a
// SkipReduce "Protected" entry that names no bucket of the model is a warning at that field.
#include <gtest/gtest.h>

#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>

#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

TEST(PanelProblems, ARefusedEditMovesNoControl) {
  app();
  TrainingView view;
  view.set_live(false);
  view.set_runs({test::small_run(5)}, "still");
  view.resize(1280, 800);
  view.show();
  QTest::qWait(50);
  QWidget* rate = view.panel()->control("techniques.trimming.rate");
  ASSERT_NE(rate, nullptr);
  const QPoint before = rate->mapTo(&view, QPoint(0, 0));
  // SkipReduce s = 9 on 4 ranks (a ring skips at most 3 steps), typed just above the trimming
  // rate: the engine refuses it (a cross-field check on the worker).
  qobject_cast<QSpinBox*>(view.panel()->control("techniques.skipreduce.skip"))->setValue(9);
  view.run();
  ASSERT_TRUE(wait_for([&] { return view.idle() && !view.panel()->problems_text().isEmpty(); }));
  ASSERT_TRUE(view.panel()->marked_fields().contains("techniques.skipreduce.skip"))
      << view.panel()->problems_text().toStdString();
  QTest::qWait(50);  // the layout settles
  EXPECT_EQ(rate->mapTo(&view, QPoint(0, 0)), before);
  // A long message of several problems: still one line, the whole text in the tooltip.
  view.panel()->show_problems(
      {{ErrorCode::kBadInput, "techniques.skipreduce.skip", std::string(300, 'x')},
       {ErrorCode::kBadInput, "techniques.codec", "a second problem"},
       {ErrorCode::kBadInput, "collective.algorithm", "a third problem"}});
  QTest::qWait(50);
  EXPECT_EQ(rate->mapTo(&view, QPoint(0, 0)), before);
  auto* label = view.findChild<QLabel*>("problems");
  ASSERT_NE(label, nullptr);
  EXPECT_TRUE(label->toolTip().contains("a third problem"));
  EXPECT_TRUE(view.panel()->problems_text().contains("a third problem"));
  // Cleared: the controls stay where they are.
  view.panel()->show_problems({});
  QTest::qWait(50);
  EXPECT_EQ(rate->mapTo(&view, QPoint(0, 0)), before);
}

TEST(PanelProblems, AProtectedEntryNamingNoBucketIsAWarningAtItsField) {
  app();
  TrainingPanel panel;
  RunConfig c = test::small_run(5);  // MLP with one hidden layer: buckets fc1 and fc2
  c.techniques.skipreduce.skip = 2;
  c.techniques.skipreduce.policy = SkipPolicy::kRandom;
  panel.set_config(c);
  // Typed as a user would: "0.2" (a rate typed into the wrong field).
  auto* field = qobject_cast<QLineEdit*>(panel.control("techniques.skipreduce.protected_buckets"));
  ASSERT_NE(field, nullptr);
  field->setText("0.2");
  emit field->editingFinished();
  EXPECT_TRUE(panel.problems_text().isEmpty());  // a warning, not a refusal
  EXPECT_EQ(panel.warned_fields(), QStringList{"techniques.skipreduce.protected_buckets"});
  EXPECT_TRUE(panel.warnings_text().contains("'0.2' names no bucket of the mlp (fc1, fc2)"))
      << panel.warnings_text().toStdString();
  EXPECT_TRUE(panel.warnings_text().contains("selective policy only"))
      << panel.warnings_text().toStdString();
  EXPECT_TRUE(field->toolTip().contains("names no bucket")) << field->toolTip().toStdString();
  // A bucket of the model under the selective policy: no warning.
  c.techniques.skipreduce.policy = SkipPolicy::kSelective;
  c.techniques.skipreduce.protected_buckets = {"fc1"};
  panel.set_config(c);
  panel.show_problems({});
  EXPECT_TRUE(panel.warned_fields().isEmpty()) << panel.warnings_text().toStdString();
  // The CNN's buckets are its convolutions and its classifier.
  c.workload.model = "cnn";
  c.techniques.skipreduce.protected_buckets = {"fc1"};
  EXPECT_EQ(panel.warnings(c).size(), 1u);
  EXPECT_NE(panel.warnings(c).front().message.find("(conv1, conv2, fc)"), std::string::npos)
      << panel.warnings(c).front().message;
}

}  // namespace
}  // namespace commlab::ui
