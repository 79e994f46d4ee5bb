// What a chart and a long job tell: the grey "before" curves keep a legend entry when the runs
// table is the legend, a hover 6 px off a line reads that line out, a comparison shows its
// finished seeds' bands while the rest run, Run seeds on an empty table says why nothing starts,
// axes tick at nice numbers, an accuracy axis of one point is 0 to 1, Undo's status line says what
// it did, the topology's colour scale shows idle links, and number fields (the panel's, the custom
// cluster's) apply on an arrow key and after a pause in typing.
#include <gtest/gtest.h>

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QValueAxis>
#include <cmath>
#include <memory>

#include "chart_hover.h"
#include "cluster_editor.h"
#include "compare_view.h"
#include "main_window.h"
#include "run_chart_pages.h"
#include "run_charts.h"
#include "runs_list.h"
#include "topology_view.h"
#include "training_panel.h"
#include "training_view.h"
#include "typing_pause.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

std::vector<Sample> flat_loss(int n, double loss) {
  std::vector<Sample> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    out[static_cast<size_t>(i)].iteration = i + 1;
    out[static_cast<size_t>(i)].train_loss = loss;
  }
  return out;
}

// Five runs and two "before" curves: too many for a legend, so the runs table is the runs'
// legend; the chart keeps one entry that says what the grey dotted lines are (they were
// unlabelled).
TEST(Legends, TheBeforeCurvesKeepAnEntryWhenTheRunsTableIsTheLegend) {
  app();
  std::vector<std::vector<Sample>> curves;
  for (int i = 0; i < 7; ++i) curves.push_back(flat_loss(10, 1 + i));
  std::vector<RunSeries> runs;
  for (int i = 0; i < 5; ++i)
    runs.push_back({"run " + std::to_string(i), &curves[static_cast<size_t>(i)], -1, true, i});
  runs.push_back({"before: lr 0.05", &curves[5], -1, false, 5, true});
  runs.push_back({"before: lr 0.08", &curves[6], -1, false, 5, true});
  RunChartPages pages;
  pages.resize(900, 600);
  pages.set_runs(runs);
  QChart* chart = pages.chart(RunChart::kLossIteration);
  ASSERT_TRUE(chart->legend()->isVisible());
  QStringList shown;
  for (QLegendMarker* m : chart->legend()->markers())
    if (m->isVisible()) shown << m->label();
  ASSERT_EQ(shown.size(), 1) << shown.join(" | ").toStdString();
  EXPECT_TRUE(shown.front().startsWith("grey dotted")) << shown.front().toStdString();
  EXPECT_TRUE(shown.front().contains("2 changes")) << shown.front().toStdString();
  // Without before curves the chart has no legend (the table is it).
  runs.resize(5);
  pages.set_runs(runs);
  EXPECT_FALSE(pages.chart(RunChart::kLossIteration)->legend()->isVisible());
}

// Sends a mouse move to the view at `at` (view coordinates) and returns the readout it made.
QString hover_at(QChartView& view, QPointF at) {
  view.setProperty("hover_readout", QString());
  QMouseEvent move(QEvent::MouseMove, at, view.viewport()->mapToGlobal(at), Qt::NoButton,
                   Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(view.viewport(), &move);
  return view.property("hover_readout").toString();
}

// A pointer 6 px off a line reads that line out (run, x and y of its nearest point); before, only
// the line's own pixel did (3 of 21 positions in a sweep). 12 px off, nothing.
TEST(Hover, SixPixelsOffALineReadsItOut) {
  app();
  const std::vector<Sample> low = flat_loss(10, 1), high = flat_loss(10, 3);
  QChartView view(build_run_chart(RunChart::kLossIteration, {{"low run", &low, -1, false, 0},
                                                             {"high run", &high, -1, false, 1}}));
  add_hover_readouts(view.chart(), &view);
  view.resize(600, 400);
  view.show();
  QApplication::processEvents();
  QChart* chart = view.chart();
  auto* line = qobject_cast<QLineSeries*>(chart->series()[0]);
  ASSERT_NE(line, nullptr);
  // The point at iteration 5 on the low line, in view pixels.
  const QPointF on_line = view.mapFromScene(chart->mapToScene(chart->mapToPosition({5, 1}, line)));
  const QString near = hover_at(view, on_line - QPointF(0, 6));  // 6 px above: toward "high"
  EXPECT_TRUE(near.startsWith("low run")) << near.toStdString();
  EXPECT_TRUE(near.contains("iteration: 5")) << near.toStdString();
  EXPECT_TRUE(near.contains("loss: 1")) << near.toStdString();
  // Between two points, 6 px below the segment: still the low run, at its nearest point.
  const QPointF mid =
      view.mapFromScene(chart->mapToScene(chart->mapToPosition({6.5, 1}, line))) + QPointF(0, 6);
  EXPECT_TRUE(hover_at(view, mid).startsWith("low run"));
  EXPECT_TRUE(hover_at(view, on_line - QPointF(0, 12)).isEmpty());
  const NearestLine hit = nearest_line(chart, chart->mapToPosition({5, 1}, line) + QPointF(0, 6));
  EXPECT_EQ(hit.series, line);
  EXPECT_NEAR(hit.distance, 6, 0.01);
}

// A step of 1, 2 or 5 times a power of ten.
bool nice(double step) {
  if (!(step > 0)) return false;
  const double m = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  return std::abs(m - 1) < 1e-6 || std::abs(m - 2) < 1e-6 || std::abs(m - 5) < 1e-6;
}

// The tick step of a QValueAxis laid out by set_nice_axis_range: (max - min) / (ticks - 1).
double tick_step(const QValueAxis* axis) {
  return (axis->max() - axis->min()) / (axis->tickCount() - 1);
}

// A comparison in progress shows its finished seeds' curves and bands and "k of m seeds done",
// never an empty chart titled "(run a comparison)"; its axes tick at nice numbers.
TEST(Feedback, AComparisonShowsItsFinishedSeedsWhileTheRestRun) {
  app();
  std::vector<RunConfig> runs = test::spiral_pair_runs(0.6);
  for (RunConfig& r : runs) r.training.iterations = 1500, r.training.eval_every = 50;
  CompareView view([&] { return runs; });
  view.set_seeds(3);
  view.resize(1000, 700);
  view.show();
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.chart()->title().contains("seeds done"); }, 2000));
  EXPECT_TRUE(view.status_text().contains("of 6 seeds done")) << view.status_text().toStdString();
  // Some seeds finished, others still run: their bands are drawn.
  bool partial_seen = false;
  ASSERT_TRUE(wait_for(
      [&] {
        if (view.idle()) return true;
        int lines = 0, bands = 0;
        for (QAbstractSeries* s : view.chart()->series()) {
          lines += qobject_cast<QLineSeries*>(s) != nullptr;
          bands += qobject_cast<QAreaSeries*>(s) != nullptr;
        }
        partial_seen =
            partial_seen || (lines > 0 && bands > 0 && view.chart()->title().contains("so far"));
        return false;
      },
      120000));
  EXPECT_TRUE(partial_seen) << "no partial curves before the comparison ended";
  EXPECT_TRUE(view.chart()->title().contains("mean over 3 seeds"))
      << view.chart()->title().toStdString();
  // The table is the legend too: each run's name beside its colour on the chart.
  ASSERT_EQ(view.table()->rowCount(), 2);
  for (int row = 0; row < 2; ++row) {
    const QImage swatch = view.table()->item(row, 0)->icon().pixmap(12, 12).toImage();
    EXPECT_EQ(QColor(swatch.pixel(6, 6)).rgb(), run_color(row).rgb()) << row;
  }
  for (Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
    auto* axis = qobject_cast<QValueAxis*>(view.chart()->axes(o).front());
    ASSERT_NE(axis, nullptr);
    EXPECT_TRUE(nice(tick_step(axis))) << tick_step(axis);
    // The first tick is a multiple of the step.
    const double k = axis->min() / tick_step(axis);
    EXPECT_NEAR(k, std::round(k), 1e-6);
  }
}

// Run seeds with nothing in the runs table starts nothing and the status bar says why.
TEST(Feedback, RunSeedsOnAnEmptyTableSaysWhyInTheStatusBar) {
  app();
  MainWindow window;
  window.show();
  ASSERT_TRUE(window.select_tab("Training"));
  ASSERT_TRUE(window.training_view()->run_ids().empty());
  window.training_view()->runs_list()->findChild<QPushButton*>("run_seeds")->click();
  EXPECT_TRUE(window.compare_view()->idle());
  EXPECT_TRUE(window.statusBar()->currentMessage().contains("runs table is empty"))
      << window.statusBar()->currentMessage().toStdString();
}

// One evaluation at 0.6: the accuracy axis is the whole 0 to 1 (it read 0.5 to 2.0).
TEST(Axes, AnAccuracyAxisOfOnePointRunsFromZeroToOne) {
  app();
  std::vector<Sample> one(1);
  one[0].iteration = 10;
  one[0].test_accuracy = 0.6;
  std::unique_ptr<QChart> chart(
      build_run_chart(RunChart::kAccuracyIteration, {{"one", &one, -1, false, 0}}));
  auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).front());
  ASSERT_NE(y, nullptr);
  EXPECT_DOUBLE_EQ(y->min(), 0);
  EXPECT_DOUBLE_EQ(y->max(), 1);
}

// After Undo remove the status line says the runs are back, not "Cleared...".
TEST(Status, UndoRemoveSaysWhatItDid) {
  app();
  TrainingView view;
  view.set_live(false);
  RunConfig a = test::spiral_run("baseline", 4, 2), b = a;
  b.name = "b";
  b.training.lr = 0.2;
  view.set_runs({a, b}, "undo");
  ASSERT_TRUE(view.run_all());
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.run_ids().size() == 2; }));
  auto* status = view.findChild<QLabel*>("status");
  ASSERT_NE(status, nullptr);
  view.clear_runs();
  EXPECT_TRUE(status->text().startsWith("Cleared")) << status->text().toStdString();
  view.undo_remove();
  EXPECT_FALSE(status->text().contains("Cleared")) << status->text().toStdString();
  EXPECT_TRUE(status->text().contains("2 runs are back")) << status->text().toStdString();
}

// The link colour scale shows the idle links' pale grey, which the picture draws for links under
// 0.5% busy (it was missing from the scale).
TEST(Topology, TheLinkColourScaleShowsIdleLinks) {
  app();
  TopologyView view;
  auto* legend = view.findChild<QLabel*>("link_legend");
  ASSERT_NE(legend, nullptr);
  const QImage scale = legend->pixmap().toImage();
  EXPECT_EQ(QColor(scale.pixel(10, 8)).rgb(), utilisation_color(0).rgb());
  EXPECT_NE(utilisation_color(0).rgb(), utilisation_color(0.01).rgb());
}

// Typed digits in a box, then: no edit while typing, one edit after the pause, none after it.
void expect_one_edit_after_a_pause(QAbstractSpinBox* box, QSignalSpy& edits, const char* digits) {
  const int before = edits.count();
  box->selectAll();
  QTest::keyClicks(box, digits);
  EXPECT_EQ(edits.count(), before) << "applied per keystroke";
  QTest::qWait(kTypingPauseMs / 3);  // still typing
  EXPECT_EQ(edits.count(), before);
  ASSERT_TRUE(wait_for([&] { return edits.count() == before + 1; }, 2000))
      << "not applied after a pause: " << box->text().toStdString();
  QTest::qWait(2 * kTypingPauseMs);
  EXPECT_EQ(edits.count(), before + 1) << "applied twice";
}

// A number field applies on an arrow key at once and after a pause in typing (the ranks applied
// only on Enter or leaving the field).
TEST(NumberFields, ApplyOnArrowKeysAndAfterATypingPause) {
  app();
  TrainingPanel panel;
  auto* ranks = qobject_cast<QSpinBox*>(panel.control("training.ranks"));
  ASSERT_NE(ranks, nullptr);
  QSignalSpy changed(&panel, &TrainingPanel::changed);
  const int before = ranks->value();
  QTest::keyClick(ranks, Qt::Key_Up);
  EXPECT_EQ(ranks->value(), before + 1);
  EXPECT_EQ(changed.count(), 1);
  expect_one_edit_after_a_pause(ranks, changed, "12");
  EXPECT_EQ(ranks->value(), 12);
}

// Decimal fields and the custom cluster's numbers too: "400" typed into the NIC rate is one edit
// after the pause (it was three, a 4, a 40 and a 400 Gb/s cluster, each re-trained live), and a
// learning rate typed applies without Enter (a QDoubleSpinBox emitted nothing while typing, so
// it waited for Enter); an arrow key applies at once.
TEST(NumberFields, DecimalAndCustomClusterFieldsApplyAfterATypingPause) {
  app();
  TrainingPanel panel;
  auto* lr = qobject_cast<QDoubleSpinBox*>(panel.control("training.lr"));
  ASSERT_NE(lr, nullptr);
  QSignalSpy changed(&panel, &TrainingPanel::changed);
  expect_one_edit_after_a_pause(lr, changed, "0.08");
  EXPECT_DOUBLE_EQ(lr->value(), 0.08);

  ClusterEditor* editor = panel.cluster_editor();
  auto* custom = editor->findChild<QCheckBox*>();
  ASSERT_NE(custom, nullptr);
  custom->setChecked(true);
  QDoubleSpinBox* nic = nullptr;
  for (auto* box : editor->findChildren<QDoubleSpinBox*>())
    if (box->suffix() == " Gb/s") nic = box;
  ASSERT_NE(nic, nullptr);
  ASSERT_TRUE(nic->isEnabled());
  QSignalSpy edited(editor, &ClusterEditor::spec_edited);
  expect_one_edit_after_a_pause(nic, edited, "400");
  EXPECT_DOUBLE_EQ(nic->value(), 400);
  QTest::keyClick(nic, Qt::Key_Up);
  EXPECT_EQ(edited.count(), 2);
}

}  // namespace
}  // namespace commlab::ui
