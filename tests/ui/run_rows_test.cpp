// The runs table reads: a live fork's row is marked and says what it
// forked from, its per-iteration figures are its own iterations'; a run named by its differences
// fits in 24 characters with the whole list in its tooltip; a run keeps its colour for its life.
#include <gtest/gtest.h>

#include <QChart>
#include <QCheckBox>
#include <QLineSeries>
#include <QSpinBox>
#include <QTreeWidget>

#include "fork_figures.h"
#include "run_chart_pages.h"
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

TEST(ForkFigures, PerIterationFiguresAreTheForksOwn) {
  // Iterations 1-4 are the parent's (1 ms and 100 B each), 5-10 the fork's (3 ms, 300 B).
  std::vector<Sample> samples;
  double t = 0;
  for (int i = 1; i <= 10; ++i) {
    Sample s;
    s.iteration = i;
    t += i <= 4 ? 1e-3 : 3e-3;
    s.sim_time_s = t;
    s.bytes_on_wire = i <= 4 ? 100 : 300;
    samples.push_back(s);
  }
  const OwnIterations own = own_iterations(samples, 4);
  ASSERT_TRUE(own.separated);
  // (t_10 - t_4) / (10 - 4) = (0.022 - 0.004) / 6 = 3 ms; the mixed figure would be 2.2 ms.
  EXPECT_NEAR(own.s_per_iteration, 3e-3, 1e-12);
  EXPECT_DOUBLE_EQ(own.wire_bytes_per_iteration, 300);
  // Thinned past the fork point: the fork's own iterations cannot be told apart.
  samples.erase(samples.begin() + 3);
  EXPECT_FALSE(own_iterations(samples, 4).separated);
}

TEST(RunRows, AForkedRowIsMarkedAndItsFiguresAreItsOwn) {
  app();
  TrainingView view;
  view.set_live(false);
  view.set_runs({test::spiral_run("baseline", 30, 2)}, "forks");
  view.findChild<QCheckBox*>("fork")->setChecked(true);
  constexpr int kAt = 10;
  for (int i = 0; i < kAt; ++i) view.step();
  ASSERT_TRUE(wait_for([&] { return view.bridge()->completed() == kAt; }));
  view.set_live(true);
  // SkipReduce s = 2 on 4 ranks: its iterations take less time and bytes than the parent's.
  qobject_cast<QSpinBox*>(view.panel()->control("techniques.skipreduce.skip"))->setValue(2);
  ASSERT_TRUE(wait_for([&] { return view.bridge()->forked_at() == kAt; }));
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  const std::vector<Sample>& s = view.samples();
  ASSERT_EQ(s.size(), 30u);
  QTreeWidget* tree = view.runs_list()->tree();
  ASSERT_EQ(tree->topLevelItemCount(), 1);
  const QTreeWidgetItem* row = tree->topLevelItem(0);
  EXPECT_TRUE(row->text(0).startsWith(kForkMark)) << row->text(0).toStdString();
  EXPECT_TRUE(row->toolTip(0).contains("forked from 'baseline' at iteration 10"))
      << row->toolTip(0).toStdString();
  // ms/iteration = (t_30 - t_10) / 20, not t_30 / 30 (which averages the parent's in).
  const double own = (s.back().sim_time_s - s[kAt - 1].sim_time_s) / (30 - kAt);
  const double mixed = s.back().sim_time_s / 30;
  ASSERT_NE(QString::number(own * 1e3, 'g', 4), QString::number(mixed * 1e3, 'g', 4));
  EXPECT_EQ(row->text(3), QString::number(own * 1e3, 'g', 4));
  // MB/iteration: the mean of its own 20 iterations.
  double wire = 0;
  for (int i = kAt; i < 30; ++i) wire += static_cast<double>(s[i].bytes_on_wire);
  EXPECT_EQ(row->text(6), QString::number(wire / 20 / 1e6, 'g', 4));
  // Renaming keeps the mark out of the name.
  view.rename_run(view.run_ids().back(), "skip from 10");
  EXPECT_EQ(tree->topLevelItem(0)->text(0), kForkMark + "skip from 10");
  EXPECT_EQ(view.current_name(), "skip from 10");
}

// A run stepped to K whose samples the view has not drawn yet (its redraw timer has not fired)
// is still the run a live edit forks: the fork's row names it and says K (a view that took the
// parent from the runs it had drawn would leave the row unmarked).
TEST(RunRows, AForkOfARunNotYetDrawnNamesItsParent) {
  app();
  TrainingView view;
  view.set_live(false);
  view.set_runs({test::spiral_run("baseline", 12, 2)}, "forks");
  view.findChild<QCheckBox*>("fork")->setChecked(true);
  for (int i = 0; i < 3; ++i) view.step();
  ASSERT_TRUE(test::wait_without_events([&] { return view.bridge()->completed() == 3; }));
  view.set_live(true);
  qobject_cast<QSpinBox*>(view.panel()->control("techniques.skipreduce.skip"))->setValue(2);
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  EXPECT_EQ(view.bridge()->forked_at(), 3);
  QTreeWidget* tree = view.runs_list()->tree();
  ASSERT_GE(tree->topLevelItemCount(), 1);
  const QTreeWidgetItem* row = tree->topLevelItem(tree->topLevelItemCount() - 1);
  EXPECT_TRUE(row->text(0).startsWith(kForkMark)) << row->text(0).toStdString();
  EXPECT_TRUE(row->toolTip(0).contains("forked from 'baseline' at iteration 3"))
      << row->toolTip(0).toStdString();
}

TEST(RunNames, ALongDifferenceIsAShortNameWithTheWholeListInTheTooltip) {
  app();
  RunConfig base = test::spiral_run("baseline", 4, 2);
  RunConfig c = base;
  c.cluster.spec = "flat:16,gbps=200,alpha_us=5";
  c.training.ranks = 16;
  c.techniques.codec = "netzip-paper";
  c.techniques.skipreduce.skip = 4;
  const QString full = changed_settings(base, c).join(", ");
  EXPECT_EQ(full, "cluster flat:16,gbps=200,alpha_us=5, codec netzip-paper, skip 4, ranks 16");
  const QString name = describe_run(base, base, c);
  EXPECT_LE(name.size(), 24) << name.toStdString();
  EXPECT_EQ(name, "flat:16, netzip-paper +2");
  // One short difference is named in full.
  RunConfig lr = base;
  lr.training.lr = 0.08;
  EXPECT_EQ(describe_run(base, base, lr), "lr 0.08");
  // In the table: the short name, the whole list in the row's tooltip.
  TrainingView view;
  view.set_live(false);
  view.set_runs({base}, "names");
  view.panel()->set_config(c);
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  const QTreeWidgetItem* row = view.runs_list()->tree()->topLevelItem(0);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->text(0), name);
  EXPECT_TRUE(row->toolTip(0).contains(full)) << row->toolTip(0).toStdString();
}

TEST(RunColours, RemovingAnEarlierRunKeepsALaterRunsColour) {
  app();
  TrainingView view;
  RunConfig a = test::spiral_run("baseline", 4, 2), b = a, c = a;
  b.name = "b";
  b.training.lr = 0.2;
  c.name = "c";
  c.training.lr = 0.02;
  view.set_runs({a, b, c}, "colours");
  ASSERT_TRUE(view.run_all());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  auto colour_of = [&](const QString& name) {
    for (QAbstractSeries* s : view.charts()->chart(RunChart::kLossIteration)->series())
      if (s->name() == name) return qobject_cast<QLineSeries*>(s)->pen().color();
    return QColor();
  };
  const QColor before = colour_of("c");
  ASSERT_TRUE(before.isValid());
  view.remove_run(view.run_ids().front());
  EXPECT_EQ(colour_of("c"), before);
}

}  // namespace
}  // namespace commlab::ui
