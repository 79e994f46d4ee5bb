// Comparisons you can read. 20 runs have 20 distinct colours, the live ghost
// is grey (not the current run's hue), and a chart with many runs leaves the legend to the runs
// list (full names) instead of eliding every name.
#include <gtest/gtest.h>

#include <QApplication>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QTreeWidget>
#include <cmath>
#include <memory>

#include "run_chart_pages.h"
#include "run_charts.h"
#include "runs_list.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;

std::vector<Sample> curve(int n, double start) {
  std::vector<Sample> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    out[static_cast<size_t>(i)].iteration = i + 1;
    out[static_cast<size_t>(i)].train_loss = start / (i + 1);
  }
  return out;
}

// The palette's distances (CIE delta-E) are checked in readable_runs_test.cpp; past its 20
// colours a colour is still new next to its neighbours.
TEST(RunsPalette, PastTwentyColoursStayNew) {
  EXPECT_NE(run_color(20), run_color(0));
  EXPECT_NE(run_color(21), run_color(20));
}

TEST(RunsPalette, TheGhostIsGreyAndDottedNotTheCurrentRunsHue) {
  app();
  const std::vector<Sample> before = curve(20, 2), now = curve(5, 1);
  std::vector<RunSeries> runs{{"before: lr 0.05", &before, -1, false, 3, true},
                              {"lr 0.08", &now, -1, false, 3, false}};
  std::unique_ptr<QChart> chart(build_run_chart(RunChart::kLossIteration, runs));
  ASSERT_EQ(chart->series().size(), 2);
  const QPen ghost = qobject_cast<QLineSeries*>(chart->series()[0])->pen();
  const QPen current = qobject_cast<QLineSeries*>(chart->series()[1])->pen();
  EXPECT_EQ(ghost.color(), kGhostColor);
  EXPECT_EQ(ghost.style(), Qt::DotLine);
  EXPECT_EQ(current.color(), run_color(3));
}

TEST(RunsPalette, ManyRunsLeaveTheLegendToTheRunsList) {
  app();
  std::vector<std::vector<Sample>> curves;
  for (int i = 0; i < 20; ++i) curves.push_back(curve(10, 1 + i));
  std::vector<RunSeries> runs;
  for (int i = 0; i < 20; ++i)
    runs.push_back(
        {"my pinned run " + std::to_string(i), &curves[static_cast<size_t>(i)], -1, true, i});
  RunChartPages pages;
  pages.resize(900, 600);
  pages.set_runs({runs.begin(), runs.begin() + 2});
  EXPECT_TRUE(pages.chart(RunChart::kLossIteration)->legend()->isVisible());
  // The Network page's empty state says to choose the packet backend.
  EXPECT_TRUE(pages.chart(RunChart::kNetworkQueue)->title().contains("set Backend to packet"))
      << pages.chart(RunChart::kNetworkQueue)->title().toStdString();
  pages.set_runs(runs);
  QChart* chart = pages.chart(RunChart::kLossIteration);
  EXPECT_FALSE(chart->legend()->isVisible());
  QSet<QRgb> colours;
  for (QAbstractSeries* s : chart->series())
    colours.insert(qobject_cast<QLineSeries*>(s)->pen().color().rgb());
  EXPECT_EQ(colours.size(), 20);
}

// A chart's legend is drawn only when every name fits unelided; else the runs table is the legend.
TEST(RunsPalette, AChartLegendIsShownOnlyWhenNoNameIsElided) {
  app();
  const QFont font;
  const QFontMetricsF fm(font);
  // One label needs margins + its advance + the marker (font height) + the gaps beside it: at
  // exactly that width it fits, one pixel less it does not.
  const QString label = "lr 0.08, 8 ranks";
  const double needed = 48 + fm.horizontalAdvance(label) + fm.height() + 22;
  EXPECT_TRUE(RunChartPages::legend_fits({label}, font, needed));
  EXPECT_FALSE(RunChartPages::legend_fits({label}, font, needed - 1));
  EXPECT_FALSE(RunChartPages::legend_fits({"a", "b", "c", "d", "e"}, font, 1e6));  // > 4 entries

  std::vector<std::vector<Sample>> curves;
  for (int i = 0; i < 3; ++i) curves.push_back(curve(10, 1 + i));
  RunChartPages pages;
  pages.resize(900, 600);
  pages.set_runs({{"lr 0.05", &curves[0], -1, true, 0}, {"lr 0.08", &curves[1], -1, false, 1}});
  EXPECT_TRUE(pages.chart(RunChart::kLossIteration)->legend()->isVisible());
  // Three long names do not fit half of 900 px: before, the legend showed "my pin..." three times.
  std::vector<RunSeries> runs;
  for (int i = 0; i < 3; ++i)
    runs.push_back(
        {"my pinned run with cluster leaf-spine:16 and skipreduce s=" + std::to_string(i),
         &curves[static_cast<size_t>(i)], -1, true, i});
  pages.set_runs(runs);
  EXPECT_FALSE(pages.chart(RunChart::kLossIteration)->legend()->isVisible());
  // A live run refreshes the same chart in place: its hidden legend stays hidden (a hidden
  // legend's markers read as hidden, which once looked like an empty legend that fits).
  pages.set_runs(runs);
  pages.set_runs(runs);
  EXPECT_FALSE(pages.chart(RunChart::kLossIteration)->legend()->isVisible());
  pages.show();
  QApplication::processEvents();
  pages.set_runs(runs);
  EXPECT_FALSE(pages.chart(RunChart::kLossIteration)->legend()->isVisible());
  // Twice as wide, the same two short names still fit; the long ones reappear only if they fit.
  pages.resize(1800, 600);
  QStringList names;
  for (QLegendMarker* m : pages.chart(RunChart::kLossIteration)->legend()->markers())
    names << m->label();
  EXPECT_EQ(pages.chart(RunChart::kLossIteration)->legend()->isVisible(),
            RunChartPages::legend_fits(
                names, pages.chart(RunChart::kLossIteration)->legend()->font(), 900));
}

// The runs table is the legend: 20 runs get 20 distinct swatches and their full names.
TEST(RunsList, TwentyRunsShowTwentyDistinctSwatchesAndUnelidedNames) {
  app();
  RunsList list;
  list.resize(700, 300);
  std::vector<RunRow> rows;
  for (int i = 0; i < 20; ++i) {
    RunRow r;
    r.id = i + 1;
    r.name =
        QString("run %1: cluster leaf-spine:16, skipreduce s=%2, codec eden").arg(i).arg(i % 3);
    r.scenario = "lecture_comparison";
    r.color = run_color(i);
    rows.push_back(r);
  }
  list.set_rows(rows);
  auto* tree = list.findChild<QTreeWidget*>();
  ASSERT_NE(tree, nullptr);
  ASSERT_EQ(tree->topLevelItemCount(), 20);
  // Not elided: the name column holds the longest name beside its 14 px swatch (it was 170 px,
  // cutting every name here). One scenario for all rows: its column is hidden (it would repeat
  // one word 20 times) and each row's tooltip names it.
  const QFontMetrics fm(tree->font());
  int longest = 0;
  for (const RunRow& r : rows) longest = std::max(longest, fm.horizontalAdvance(r.name));
  EXPECT_GE(tree->columnWidth(0), longest + 14);
  EXPECT_TRUE(tree->isColumnHidden(1));
  EXPECT_TRUE(tree->topLevelItem(0)->toolTip(0).contains(rows.front().scenario));
  QSet<QRgb> swatches;
  for (int i = 0; i < 20; ++i) {
    QTreeWidgetItem* item = tree->topLevelItem(i);
    EXPECT_EQ(item->text(0), rows[static_cast<size_t>(i)].name);
    const QImage icon = item->icon(0).pixmap(16, 16).toImage();
    const QRgb centre = icon.pixel(icon.width() / 2, icon.height() / 2);
    EXPECT_EQ(QColor(centre).rgb(), rows[static_cast<size_t>(i)].color.rgb()) << i;
    swatches.insert(centre);
  }
  EXPECT_EQ(swatches.size(), 20);
}

}  // namespace
}  // namespace commlab::ui

#include <QChartView>
#include <QComboBox>
#include <QSpinBox>

#include "busbw_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

// Greyed in NCCL mode, Ranks shows the cluster's GPU count (it said 8 for a
// 16-GPU cluster); the list has a leaf-spine and a fat-tree, and both draw NCCL curves.
TEST(BusbwView, GreyedRanksShowTheClustersGpusAndFatTreeAndLeafSpineAreListed) {
  test::app();
  BusbwView view;
  view.show();
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && view.series_count() > 0; }));
  auto* cluster = view.findChild<QComboBox*>("cluster");
  auto* ranks = view.findChild<QSpinBox*>("ranks");
  ASSERT_TRUE(cluster && ranks);
  // Flat mode: the tree's ceiling says it is not pipelined, and the tooltip describes ceilings.
  QStringList names;
  for (QAbstractSeries* s : view.chart()->series()) names << s->name();
  EXPECT_TRUE(names.filter("(not pipelined) ceiling").size() == 1 &&
              names.filter("(not pipelined) ceiling").front().contains("tree"))
      << names.join(", ").toStdString();
  EXPECT_TRUE(view.findChild<QChartView*>()->toolTip().contains("ceiling"));
  const std::pair<QString, int> expected[] = {{"dgx-h100-pod:nodes=2", 16},
                                              {"dgx-h100-pod:nodes=16", 128},
                                              {"leafspine:servers=4,gpus_per_server=8", 32},
                                              {"fattree:k=4", 16}};
  for (const auto& [spec, gpus] : expected) {
    const int index = cluster->findData(spec);
    ASSERT_GE(index, 0) << spec.toStdString();
    cluster->setCurrentIndex(index);
    ASSERT_TRUE(test::wait_for([&] { return view.idle(); }));
    EXPECT_FALSE(ranks->isEnabled());
    EXPECT_EQ(ranks->value(), gpus) << spec.toStdString();
    EXPECT_GT(view.series_count(), 0) << spec.toStdString();
    EXPECT_FALSE(view.findChild<QChartView*>()->toolTip().contains("ceiling"));  // none drawn
  }
  if (qEnvironmentVariableIsSet("COMMLAB_SHOTS")) {  // for a look: the fat-tree's curves
    view.resize(1280, 700);
    QTest::qWait(50);
    view.grab().save(qEnvironmentVariable("COMMLAB_SHOTS") + "/throughput_fattree.png");
  }
}

}  // namespace
}  // namespace commlab::ui

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>

namespace commlab::ui {
namespace {

std::vector<Sample> with_planes(std::vector<double> planes) {
  std::vector<Sample> out(1);
  out[0].iteration = 1;
  BucketSample b;
  b.name = "fc1";
  b.elements = 100;
  b.plane_entropy = std::move(planes);
  out[0].buckets.push_back(b);
  return out;
}

// A BF16 run beside an FP32 one stood under bare FP32 labels; the labels now say
// which BF16 byte each FP32 byte is, and each bar set names its dtype.
TEST(PlaneEntropyChart, Bf16PlanesAreLabelledAsBf16) {
  test::app();
  const std::vector<Sample> bf16 = with_planes({3.1, 7.9}), fp32 = with_planes({3, 7.8, 8, 8});
  auto axis_title = [](QChart* chart) { return chart->axes(Qt::Horizontal).front()->titleText(); };
  std::unique_ptr<QChart> alone(
      build_run_chart(RunChart::kPlaneEntropy, {{"bf16 run", &bf16, -1, false, 0}}));
  EXPECT_TRUE(axis_title(alone.get()).startsWith("BF16 bytes"));
  std::unique_ptr<QChart> both(
      build_run_chart(RunChart::kPlaneEntropy,
                      {{"fp32 run", &fp32, -1, false, 0}, {"bf16 run", &bf16, -1, false, 1}}));
  EXPECT_TRUE(axis_title(both.get()).contains("FP32") && axis_title(both.get()).contains("BF16"));
  auto* series = qobject_cast<QBarSeries*>(both->series().front());
  ASSERT_EQ(series->count(), 2);
  EXPECT_EQ(series->barSets()[1]->label(), "bf16 run (BF16)");
}

}  // namespace
}  // namespace commlab::ui

#include <QLegendMarker>

namespace commlab::ui {
namespace {

// The time split's shown legend entries, ", "-joined, for 3 iterations of `compute_s` compute
// and 1 ms exposed communication each.
std::string time_split_legend(double compute_s) {
  std::vector<Sample> samples(3);
  for (Sample& s : samples) s.comm_time_s = 1e-3, s.compute_time_s = compute_s;
  QChartView view(build_run_chart(RunChart::kTimeSplit, {{"mlp", &samples, -1, false, 0}}));
  view.resize(600, 400);
  view.show();
  QStringList shown;
  for (QLegendMarker* m : view.chart()->legend()->markers())
    if (m->isVisible()) shown << m->label();
  return shown.join(", ").toStdString();
}

// "compute" was listed in every MLP legend though no run spent time on it.
TEST(TimeSplitChart, PartsNoRunSpendsTimeOnLeaveTheLegend) {
  test::app();
  EXPECT_EQ(time_split_legend(0), "communication");  // no compute, no codec
}

// The quickstart's MLP computes for 0.36 us of a 170 us iteration (0.2%): its green slice is under
// a pixel, and "compute" in the legend read as a missing bar. A part under 1% of the tallest bar
// says so in the legend; at 10% it is a plain entry.
TEST(TimeSplitChart, APartTooThinToSeeSaysSoInTheLegend) {
  test::app();
  EXPECT_EQ(time_split_legend(2e-6), "compute (under 1%), communication");
  EXPECT_EQ(time_split_legend(1e-4), "compute, communication");
}

}  // namespace
}  // namespace commlab::ui
