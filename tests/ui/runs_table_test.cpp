// The runs table beside the Training charts: each row carries the run's final
// accuracy, time per iteration, time to target, speedup over the baseline and wire bytes, the
// numbers the engine's summary gives for that run.
#include <gtest/gtest.h>

#include <QChart>
#include <QDir>
#include <QHeaderView>
#include <QLineSeries>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QTreeWidget>
#include <cmath>
#include <nlohmann/json.hpp>

#include "compare_view.h"
#include "main_window.h"
#include "run_chart_pages.h"
#include "run_charts.h"
#include "run_naming.h"
#include "runs_list.h"
#include "scenario/run/experiment_runner.h"
#include "scenario/scenario.h"
#include "scenario_files.h"
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
  // The cell shows it without the pairs (compact, so the table fits at 1280x800); its tooltip
  // has the whole sentence.
  EXPECT_EQ(tree->topLevelItem(1)->text(8).toStdString(),
            speedup.section(" (", 0, 0).toStdString());
  EXPECT_TRUE(tree->topLevelItem(1)->toolTip(8).startsWith(speedup + "\n"))
      << tree->topLevelItem(1)->toolTip(8).toStdString();
  EXPECT_EQ(tree->topLevelItem(0)->text(8), "baseline");
  // Time to target: the censored median and [x_(1), x_(6)] (N = 6: j = 1, coverage 1 - 2/64).
  for (int i = 0; i < 2; ++i) {
    const nlohmann::json& tta = cli["runs"][i]["time_to_accuracy"];
    ASSERT_TRUE(tta["ci95_s"].is_array()) << tta.dump();
    const QString full =
        QString("%1/%2 reached, median %3 ms [%4, %5]")
            .arg(tta["reached"].get<int>())
            .arg(tta["seeds"].get<int>())
            .arg(ms(tta["estimate_s"]), ms(tta["ci95_s"][0]), ms(tta["ci95_s"][1]));
    const QString shown =
        QString("%1/%2: %3 [%4, %5]")
            .arg(tta["reached"].get<int>())
            .arg(tta["seeds"].get<int>())
            .arg(ms(tta["estimate_s"]), ms(tta["ci95_s"][0]), ms(tta["ci95_s"][1]));
    EXPECT_EQ(tree->topLevelItem(i)->text(7).toStdString(), shown.toStdString()) << i;
    EXPECT_TRUE(tree->topLevelItem(i)->toolTip(7).startsWith(full + "\n")) << i;
  }
  // The other row as the baseline: the paired ratio inverts, 1 / estimate with [1/hi, 1/lo].
  tree->topLevelItem(1)->setSelected(true);
  view.runs_list()->findChild<QPushButton*>("use_as_baseline")->click();
  EXPECT_EQ(tree->topLevelItem(1)->text(8), "baseline");
  const QString inverse = tree->topLevelItem(0)->text(8);
  EXPECT_NEAR(inverse.section('x', 0, 0).toDouble(), 1 / sp["estimate"].get<double>(), 0.006)
      << inverse.toStdString();
}

// At 1280x800 (and 1600x1000) every column of the runs table is readable beside the
// settings without scrolling sideways. The rows are a realistic table: the runs of the sample
// with the most (and longest-named) runs, what differs from its baseline, the widest figures
// ("not reached"), and both seed columns filled from a 6-seed comparison with a seed that missed
// the target (an "unbounded" interval end). Readable: every column but the last is at least as
// wide as its widest cell and its header (nothing elided); the last one (the settings that differ)
// takes the room left, elided, its full text in the tooltip.
void expect_every_column_readable(MainWindow& window, const QSize& size) {
  window.resize(size);
  QApplication::processEvents();
  QTreeWidget* tree = window.training_view()->runs_list()->tree();
  SCOPED_TRACE(QString("%1x%2").arg(size.width()).arg(size.height()).toStdString());
  ASSERT_TRUE(tree->isVisible());
  EXPECT_EQ(tree->horizontalScrollBar()->maximum(), 0)
      << "the table scrolls sideways: viewport " << tree->viewport()->width();
  int used = 0;
  for (int c = 0; c + 1 < tree->columnCount(); ++c) {
    if (tree->isColumnHidden(c)) continue;
    // At least the widest text in it (cells and header), which the view would otherwise elide.
    int needed = tree->header()->fontMetrics().horizontalAdvance(tree->headerItem()->text(c));
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
      needed =
          std::max(needed, tree->fontMetrics().horizontalAdvance(tree->topLevelItem(i)->text(c)));
    EXPECT_GE(tree->columnWidth(c), needed) << "column " << c << " is elided";
    used += tree->columnWidth(c);
  }
  const int last = tree->columnCount() - 1;
  EXPECT_GE(tree->columnWidth(last), 80) << "no room left for what differs";
  EXPECT_LE(used + tree->columnWidth(last), tree->viewport()->width());
}

TEST(RunsTable, EveryColumnIsReadableAt1280x800WithoutScrollingSideways) {
  test::app();
  MainWindow window;
  const QString file = QDir(samples_dir()).filePath("baselines_equal_bytes.json");
  ASSERT_TRUE(window.open_scenario(file).isEmpty()) << file.toStdString();
  window.show();
  ASSERT_TRUE(window.select_tab("Training"));
  const std::vector<RunConfig> runs = window.training_view()->runs();
  ASSERT_GE(runs.size(), 8u);
  // Six seeds each; the last run's third seed missed the target.
  std::vector<SeedTimes> times(runs.size());
  for (size_t i = 0; i < runs.size(); ++i)
    for (int k = 0; k < 6; ++k)
      times[i].tta_s.push_back(i + 1 == runs.size() && k == 2 ? NAN : 0.9876 + 0.0111 * (i + k));
  std::vector<RunRow> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    RunRow r;
    r.id = static_cast<int>(i) + 1;
    r.name = QString::fromStdString(runs[i].name);
    r.scenario = "baselines_equal_bytes";
    r.changes = changed_settings(runs.front(), runs[i]).join(", ");
    r.color = run_color(static_cast<int>(i));
    r.accuracy = "0.8765";
    r.per_iteration = "123.4";
    r.tta = i % 2 ? "not reached" : "12345";
    r.speedup = i % 2 ? "-" : "12.34x";
    r.wire = "1234.5";
    r.tta_seeds = tta_over_seeds(&times[i]);
    r.speedup_seeds = speedup_over_seeds(&times[0], &times[i], i == 0);
    r.baseline = i == 0;
    rows.push_back(r);
  }
  ASSERT_TRUE(rows.back().tta_seeds.full.contains("unbounded"));
  ASSERT_FALSE(rows[3].changes.isEmpty());
  RunsList* list = window.training_view()->runs_list();
  list->set_rows(rows);
  expect_every_column_readable(window, QSize(1280, 800));
  // One scenario for every row: its column says nothing and is hidden (the window title and each
  // row's tooltip name it); with a second scenario it is back (and elided when it must be).
  EXPECT_TRUE(list->tree()->isColumnHidden(1));
  EXPECT_TRUE(list->tree()->topLevelItem(0)->toolTip(0).contains("baselines_equal_bytes"));
  // What the last column cuts is in its tooltip.
  EXPECT_TRUE(list->tree()->topLevelItem(3)->toolTip(9).contains(rows[3].changes));
  EXPECT_TRUE(list->tree()->topLevelItem(7)->toolTip(7).startsWith(rows[7].tta_seeds.full));
  expect_every_column_readable(window, QSize(1600, 1000));
  rows[2].scenario = "quickstart";
  list->set_rows(rows);
  EXPECT_FALSE(list->tree()->isColumnHidden(1));
  EXPECT_EQ(list->tree()->horizontalScrollBar()->maximum(), 0);
}

// The seeds comparison starts from the Training tab itself. Run seeds with 2 seeds runs
// the Compare tab's comparison (the experiment runner, as commlab-cli run --seeds 2) over the
// scenario's runs, and when it ends the seed columns show its figures: each row's cells are the
// ones seed_figures computes from that comparison's summary.json.
TEST(RunsTable, RunSeedsOnTheTrainingTabRunsTheComparisonIntoTheSeedColumns) {
  test::app();
  MainWindow window;
  TrainingView* view = window.training_view();
  std::vector<RunConfig> runs = spiral_runs();
  for (RunConfig& r : runs) r.training.iterations = 20;  // small: 2 seeds x 2 runs x 20
  view->set_runs(runs, "cmp");
  view->run_all();
  ASSERT_TRUE(test::wait_for([&] { return view->idle() && view->summaries().size() == 2; }));
  RunsList* list = view->runs_list();
  auto* seeds = list->findChild<QSpinBox*>("seeds");
  auto* run_seeds = list->findChild<QPushButton*>("run_seeds");
  ASSERT_NE(seeds, nullptr);
  ASSERT_NE(run_seeds, nullptr);
  seeds->setValue(2);
  run_seeds->click();
  EXPECT_FALSE(window.compare_view()->idle()) << "no comparison started";
  EXPECT_EQ(window.compare_view()->seeds(), 2);
  EXPECT_FALSE(run_seeds->isEnabled()) << "a second comparison could start meanwhile";
  ASSERT_TRUE(test::wait_for([&] { return window.compare_view()->idle(); }, 60000));
  EXPECT_TRUE(run_seeds->isEnabled());
  const nlohmann::json summary = summary_document(window.compare_view()->summary());
  ASSERT_EQ(summary["runs"].size(), 2u);
  EXPECT_EQ(summary["runs"][0]["seeds"]["n"], 2);
  const auto times = seed_times_from_summary(window.compare_view()->summary(),
                                             window.compare_view()->compared_runs());
  ASSERT_EQ(times.size(), 2u);
  const SeedTimes& base = times.at(settings_key(runs[0]));
  const SeedTimes& skip = times.at(settings_key(runs[1]));
  EXPECT_EQ(base.seeds(), 2);
  QTreeWidget* tree = list->tree();
  ASSERT_EQ(tree->topLevelItemCount(), 2);
  EXPECT_EQ(tree->topLevelItem(0)->text(7), tta_over_seeds(&base).shown);
  EXPECT_EQ(tree->topLevelItem(1)->text(7), tta_over_seeds(&skip).shown);
  EXPECT_EQ(tree->topLevelItem(1)->text(8), speedup_over_seeds(&base, &skip, false).shown);
  EXPECT_NE(tree->topLevelItem(1)->text(7), "1 seed");
  EXPECT_TRUE(tree->topLevelItem(1)->text(7).contains("/2"))
      << tree->topLevelItem(1)->text(7).toStdString();
  // A comparison the Compare tab starts with its own count shows that count here.
  const QStringList before = {tree->topLevelItem(0)->text(7), tree->topLevelItem(1)->text(7),
                              tree->topLevelItem(1)->text(8)};
  window.compare_view()->set_seeds(3);
  ASSERT_TRUE(window.compare_view()->run());
  EXPECT_EQ(seeds->value(), 3);
  EXPECT_FALSE(run_seeds->isEnabled());
  window.compare_view()->cancel();
  ASSERT_TRUE(test::wait_for([&] { return window.compare_view()->idle(); }, 60000));
  EXPECT_TRUE(run_seeds->isEnabled());
  // Cancelled, that comparison's runs are incomplete: the seed columns keep the 2-seed results
  // (they went back to "1 seed" before).
  const QStringList after = {tree->topLevelItem(0)->text(7), tree->topLevelItem(1)->text(7),
                             tree->topLevelItem(1)->text(8)};
  EXPECT_EQ(after.join(" | ").toStdString(), before.join(" | ").toStdString());
  EXPECT_TRUE(window.compare_view()->status_text().contains("cancelled"))
      << window.compare_view()->status_text().toStdString();
}

}  // namespace
}  // namespace commlab::ui
