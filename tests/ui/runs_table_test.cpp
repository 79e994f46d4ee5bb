// The runs table beside the Training charts (issue 33): each row carries the run's final
// accuracy, time per iteration, time to target, speedup over the baseline and wire bytes, the
// numbers the engine's summary gives for that run.
#include <gtest/gtest.h>

#include <QChart>
#include <QLineSeries>
#include <QPushButton>
#include <QTreeWidget>
#include <nlohmann/json.hpp>

#include "compare_view.h"
#include "run_chart_pages.h"
#include "runs_list.h"
#include "scenario/run/experiment_runner.h"
#include "scenario/scenario.h"
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
  EXPECT_EQ(tree->headerItem()->text(9), "differs from the baseline");
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
  // The selected row's curves stand out: its loss line is drawn 4 px wide against the other kept
  // run's 1.6 px; with no row selected both are 1.6 px again.
  auto width = [&](int k) {
    QChart* loss = view.charts()->chart(RunChart::kLossIteration);
    return qobject_cast<QLineSeries*>(loss->series()[k])->pen().widthF();
  };
  EXPECT_EQ(view.highlighted_run(), view.run_ids()[1]);
  EXPECT_EQ(width(1), 4.0);
  EXPECT_EQ(width(0), 1.6);
  tree->clearSelection();
  EXPECT_EQ(view.highlighted_run(), 0);
  EXPECT_EQ(width(1), 1.6);
}

std::vector<RunConfig> spiral_runs() {
  return test::spiral_pair_runs(0.5);
}

QString ms(const nlohmann::json& seconds) {
  return seconds.is_number() ? QString::number(seconds.get<double>() * 1e3, 'g', 4) : "unbounded";
}

// The "the GUI's interval equals the CLI's": after a 6-seed comparison of the scenario,
// the Training table's seed columns read what `commlab-cli run --seeds 6` writes to summary.json
// for the same runs; before it, and for the baseline itself, they say so.
TEST(RunsTable, SeedColumnsEqualTheCliSummary) {
  test::app();
  TrainingView view;
  view.set_runs(spiral_runs(), "cmp");
  view.run_all();
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && view.summaries().size() == 2; }));
  QTreeWidget* tree = view.runs_list()->tree();
  ASSERT_EQ(tree->topLevelItemCount(), 2);
  EXPECT_EQ(tree->topLevelItem(1)->text(7), "1 seed");
  EXPECT_EQ(tree->topLevelItem(1)->text(8), "1 seed");
  EXPECT_EQ(tree->topLevelItem(0)->text(8), "baseline");

  CompareView compare([&] { return view.runs(); });
  compare.set_seeds(6);
  ASSERT_TRUE(compare.run());
  ASSERT_TRUE(test::wait_for([&] { return compare.idle(); }));
  view.set_seed_results(compare.summary(), compare.compared_runs());

  Experiment exp;
  exp.name = "compare";
  exp.runs = spiral_runs();
  RunnerOptions options;
  options.seeds = 6;
  options.jobs = 1;
  const nlohmann::json cli = nlohmann::json::parse(run_experiment(exp, options).summary_json);
  // Speedup: exp(mean ln(base_k / arm_k)) and exp(mean -+ t_{0.975,5} s / sqrt(6)), the verdict
  // and the pairs, as summary.json's speedup_vs_baseline.
  const nlohmann::json& sp = cli["runs"][1]["speedup_vs_baseline"];
  ASSERT_TRUE(sp["ci95"][0].is_number()) << sp.dump();  // the interval exists (>= 2 pairs)
  const QString speedup = QString("%1x [%2, %3] %4 (%5 pairs)")
                              .arg(sp["estimate"].get<double>(), 0, 'f', 2)
                              .arg(sp["ci95"][0].get<double>(), 0, 'f', 2)
                              .arg(sp["ci95"][1].get<double>(), 0, 'f', 2)
                              .arg(QString::fromStdString(sp["verdict"].get<std::string>()))
                              .arg(sp["pairs"].get<int>());
  EXPECT_EQ(tree->topLevelItem(1)->text(8).toStdString(), speedup.toStdString());
  EXPECT_EQ(tree->topLevelItem(0)->text(8), "baseline");
  // Time to target: the censored median and [x_(1), x_(6)] (N = 6: j = 1, coverage 1 - 2/64).
  for (int i = 0; i < 2; ++i) {
    const nlohmann::json& tta = cli["runs"][i]["time_to_accuracy"];
    ASSERT_TRUE(tta["ci95_s"].is_array()) << tta.dump();
    const QString cell =
        QString("%1/%2 reached, median %3 ms [%4, %5]")
            .arg(tta["reached"].get<int>())
            .arg(tta["seeds"].get<int>())
            .arg(ms(tta["estimate_s"]), ms(tta["ci95_s"][0]), ms(tta["ci95_s"][1]));
    EXPECT_EQ(tree->topLevelItem(i)->text(7).toStdString(), cell.toStdString()) << i;
  }
  // The other row as the baseline: the paired ratio inverts, 1 / estimate with [1/hi, 1/lo].
  tree->topLevelItem(1)->setSelected(true);
  view.runs_list()->findChild<QPushButton*>("use_as_baseline")->click();
  EXPECT_EQ(tree->topLevelItem(1)->text(8), "baseline");
  const QString inverse = tree->topLevelItem(0)->text(8);
  EXPECT_NEAR(inverse.section('x', 0, 0).toDouble(), 1 / sp["estimate"].get<double>(), 0.006)
      << inverse.toStdString();
}

}  // namespace
}  // namespace commlab::ui
