#include <gtest/gtest.h>

#include <QChart>

#include "run_chart_pages.h"
#include "scenario/runner.h"
#include "training_bridge.h"
#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

TEST(TrainingView, AFewIterationsFillTheChartsWithTheEnginesNumbers) {
  app();
  TrainingView view;
  view.show();
  view.panel()->set_config(test::small_run(12));
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  ASSERT_EQ(view.samples().size(), 12u);
  EXPECT_EQ(view.drawn_points(), 12);
  // The same configuration and seed through RunSession directly (what commlab-cli run does)
  // gives bit-identical numbers: the GUI adds no randomness of its own.
  RunSession session(test::small_run(12));
  while (!session.done()) session.step();
  for (size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(view.samples()[i].train_loss, session.samples()[i].train_loss) << i;
    EXPECT_EQ(view.samples()[i].sim_time_s, session.samples()[i].sim_time_s) << i;
  }
  // Pinning a finished run moves it to the kept runs: exported once (12 rows), not twice.
  view.pin();
  EXPECT_EQ(view.pinned_count(), 1);
  EXPECT_TRUE(view.samples().empty());
  EXPECT_EQ(view.export_data().rows.size(), 12u);
}

TEST(TrainingView, ALiveRunMovesPointsInTheSameChartsAndNewRunsGetNewOnes) {
  app();
  TrainingView view;
  view.show();
  view.panel()->set_config(test::small_run(100000));
  view.step();  // starts paused, one iteration at a time
  ASSERT_TRUE(wait_for([&] { return view.drawn_points() == 1; }));
  QChart* loss = view.charts()->chart(RunChart::kLossIteration);
  QChart* split = view.charts()->chart(RunChart::kTimeSplit);
  view.step();
  ASSERT_TRUE(wait_for([&] { return view.drawn_points() == 2; }));
  // Same runs: the charts on screen are refreshed in place (cheap), their points follow the run.
  EXPECT_EQ(view.charts()->chart(RunChart::kLossIteration), loss);
  EXPECT_EQ(view.charts()->chart(RunChart::kTimeSplit), split);
  // Pinning changes the runs drawn: new charts, whose legend names both runs.
  view.pin();
  view.reset();
  view.panel()->set_config(test::small_run(3));
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  QChart* after = view.charts()->chart(RunChart::kLossIteration);
  EXPECT_NE(after, loss);
  EXPECT_EQ(after->series().size(), 2);
  EXPECT_EQ(view.drawn_points(), 3);
}

TEST(TrainingView, AnInvalidValueIsMarkedInPlaceAndTheEditKept) {
  app();
  TrainingView view;
  RunConfig c = test::small_run(5);
  c.training.global_batch = 66;  // not divisible by 4 ranks
  view.panel()->set_config(c);
  // A cross-field check: it runs on the engine's worker (it may build a large cluster), so the
  // mark arrives through the bridge's failed() and no run starts.
  view.run();
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  EXPECT_FALSE(view.panel()->problems_text().isEmpty());
  EXPECT_TRUE(view.panel()->marked_fields().contains("training.global_batch"))
      << view.panel()->marked_fields().join(",").toStdString() << " / "
      << view.panel()->problems_text().toStdString();
  EXPECT_EQ(view.panel()->config().training.global_batch, 66);
  EXPECT_TRUE(view.samples().empty());
  // Fixing it clears the marks.
  c.training.global_batch = 64;
  view.panel()->set_config(c);
  EXPECT_TRUE(view.run());
  EXPECT_TRUE(view.panel()->marked_fields().isEmpty());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
}

TEST(TrainingPanel, AProblemMarksTheControlOfItsFieldNotOfItsText) {
  app();
  TrainingPanel panel;
  // The field decides: the message names collective.algorithm, which stays unmarked.
  panel.show_problems({{ErrorCode::kBadInput, "training.global_batch",
                        "must be a multiple of training.ranks (4); see collective.algorithm"}});
  EXPECT_EQ(panel.marked_fields(), QStringList{"training.global_batch"});
  EXPECT_EQ(panel.problems_text().toStdString(),
            "training.global_batch: must be a multiple of training.ranks (4); see "
            "collective.algorithm");
  // A field grouping several controls marks its first one (the panel's paths sorted); a field
  // that only shares a prefix with a control's path ("training.rank") marks none.
  panel.show_problems({{ErrorCode::kBadInput, "techniques.skipreduce", "needs a ring"},
                       {ErrorCode::kBadInput, "training.rank", "no such field"}});
  EXPECT_EQ(panel.marked_fields(), QStringList{"techniques.skipreduce.policy"});
  // A failure without a field is shown and marks nothing.
  panel.show_problems({{ErrorCode::kFailedRun, "", "training.ranks: out of memory"}});
  EXPECT_TRUE(panel.marked_fields().isEmpty());
  EXPECT_EQ(panel.problems_text().toStdString(), "training.ranks: out of memory");
}

TEST(TrainingBridge, PauseStopsBetweenIterationsAndResetDropsTheRun) {
  app();
  TrainingBridge bridge;
  bridge.start(test::small_run(100000));
  ASSERT_TRUE(wait_for([&] { return bridge.completed() >= 2; }));
  bridge.pause();
  // At most the iteration in flight finishes after pause().
  const int at_pause = bridge.completed();
  QTest::qWait(300);
  const int later = bridge.completed();
  EXPECT_LE(later, at_pause + 1);
  QTest::qWait(300);
  EXPECT_EQ(bridge.completed(), later);
  bridge.step();
  ASSERT_TRUE(wait_for([&] { return bridge.completed() == later + 1; }));
  QTest::qWait(200);
  EXPECT_EQ(bridge.completed(), later + 1);  // exactly one
  EXPECT_EQ(bridge.take_samples().size(), static_cast<size_t>(later + 1));
  bridge.reset();
  EXPECT_FALSE(bridge.active());
  EXPECT_EQ(bridge.completed(), 0);
}

TEST(TrainingBridge, ARejectedConfigurationIsReported) {
  app();
  TrainingBridge bridge;
  QString message;
  QObject::connect(&bridge, &TrainingBridge::failed, [&](const ConfigProblems& problems) {
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].code, ErrorCode::kBadInput);
    message = QString::fromStdString(problems[0].text());
  });
  RunConfig c = test::small_run(5);
  c.collective.algorithm = "no-such-algorithm";
  bridge.start(c);
  ASSERT_TRUE(wait_for([&] { return !message.isEmpty(); }));
  EXPECT_TRUE(message.contains("no-such-algorithm")) << message.toStdString();
}

}  // namespace
}  // namespace commlab::ui
