// Point markers are drawn whole: Qt Charts clips a series at its plot area, so a
// marker on a point at an axis end showed half of itself (the accuracy chart's last evaluation,
// NCCL's choice at the largest size). Every marker's square must lie inside the plot area.
#include <gtest/gtest.h>

#include <QChart>
#include <QChartView>
#include <QScatterSeries>
#include <memory>

#include "busbw_view.h"
#include "run_charts.h"
#include "scenario/runner.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

// The markers of `chart`'s series that draw them which stick out of the plot area, as text (empty:
// none). A marker of size m centred on the point's position covers +-m/2 around it.
QString clipped_markers(QChart* chart) {
  QString out;
  const QRectF area = chart->plotArea();
  for (QAbstractSeries* s : chart->series()) {
    auto* xy = qobject_cast<QXYSeries*>(s);
    if (!xy || !(xy->pointsVisible() || qobject_cast<QScatterSeries*>(xy))) continue;
    const qreal half = xy->markerSize() / 2;
    for (const QPointF& p : xy->points()) {
      const QPointF at = chart->mapToPosition(p, xy);
      const QRectF marker(at.x() - half, at.y() - half, 2 * half, 2 * half);
      if (!area.contains(marker))
        out += QString("%1 (%2, %3) at [%4, %5] outside [%6, %7]-[%8, %9]; ")
                   .arg(xy->name())
                   .arg(p.x())
                   .arg(p.y())
                   .arg(at.x())
                   .arg(at.y())
                   .arg(area.left())
                   .arg(area.top())
                   .arg(area.right())
                   .arg(area.bottom());
    }
  }
  return out;
}

std::vector<Sample> run_samples(const RunConfig& c) {
  RunSession session(c);
  while (!session.done()) session.step();
  return session.samples();
}

// Runs of 2 and 9 iterations evaluated only at their ends or every 4: lines of one or two points,
// which are drawn as markers, and on every line chart of those runs no marker is cut. The
// chart's size is a Training chart's at 1280x800 (a grid cell of about 600 x 300 px).
TEST(ChartMarkers, TrainingChartsDrawEveryMarkerWhole) {
  test::app();
  const std::vector<Sample> one = run_samples(test::spiral_run("one", 9, 100));
  const std::vector<Sample> two = run_samples(test::spiral_run("two", 8, 4));
  const std::vector<Sample> short_run = run_samples(test::spiral_run("short", 2, 1));
  const std::vector<RunSeries> runs{{"one", &one}, {"two", &two}, {"short", &short_run}};
  int checked = 0;
  for (const RunChartInfo& info : run_chart_infos()) {
    if (!run_chart_has_data(info.kind, runs)) continue;
    QChartView view(build_run_chart(info.kind, runs));
    view.resize(600, 300);
    view.show();
    QApplication::processEvents();
    bool any_marker = false;
    for (QAbstractSeries* s : view.chart()->series())
      if (auto* xy = qobject_cast<QXYSeries*>(s); xy && xy->pointsVisible()) any_marker = true;
    if (!any_marker) continue;
    ++checked;
    EXPECT_EQ(clipped_markers(view.chart()).toStdString(), "") << info.file;
  }
  // Accuracy over iterations and time, loss over iterations and time (the 2-iteration run).
  EXPECT_GE(checked, 4);
}

// NCCL mode marks the tuner's choice on every size, 1 KiB to 1 GiB: the first and the last
// sizes are the axis ends, and the smallest sizes' busbw is near 0.
TEST(ChartMarkers, NcclChoiceMarkersAreWhole) {
  test::app();
  BusbwView view;
  view.resize(1000, 600);
  view.show();
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && view.series_count() > 0; }));
  ASSERT_TRUE(view.choose_cluster(2));
  ASSERT_TRUE(
      test::wait_for([&] { return view.idle() && view.chart()->title().contains("2 nodes"); }));
  QApplication::processEvents();
  int markers = 0;
  for (QAbstractSeries* s : view.chart()->series())
    if (auto* sc = qobject_cast<QScatterSeries*>(s)) markers += sc->count();
  ASSERT_GT(markers, 10);
  EXPECT_EQ(clipped_markers(view.chart()).toStdString(), "");
}

}  // namespace
}  // namespace commlab::ui
