// Hover readouts: a hover on any chart line shows the nearest data point's exact
// values, on the Training page's charts and on the Throughput page.
#include "chart_hover.h"

#include <gtest/gtest.h>

#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QLineSeries>
#include <QVariant>
#include <cmath>

#include "busbw_view.h"
#include "format_util.h"
#include "run_chart_pages.h"
#include "run_charts.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

TEST(ChartHover, TheNearestPointsExactValuesNotTheSegments) {
  QLineSeries line;
  line.setName("ring");
  line.append({{0, 1}, {1, 2.5}, {2, 4}});
  // The pointer at x = 1.4 lies on the segment (1, 2.5)-(2, 4) at y = 2.5 + 0.4 x 1.5 = 3.1; the
  // readout is the data point nearest in x, (1, 2.5), exactly.
  EXPECT_EQ(nearest_point(line, {1.4, 3.1}), QPointF(1, 2.5));
  EXPECT_EQ(nearest_point(line, {1.6, 3.4}), QPointF(2, 4));
  EXPECT_EQ(hover_text(line, {1.4, 3.1}, "iteration", "loss"), "ring\niteration: 1\nloss: 2.5");
  // The x text goes through the page's formatter (the Throughput page's x is log2 of bytes).
  EXPECT_EQ(hover_text(line, {1.9, 0}, "size", "busbw",
                       [](double x) { return long_bytes(std::exp2(x + 20)); }),
            "ring\nsize: 4 MiB\nbusbw: 4");
  QLineSeries empty;
  EXPECT_EQ(nearest_point(empty, {3, 7}), QPointF(3, 7));
}

TEST(ChartHover, TrainingChartsReadOutTheRunsPoint) {
  app();
  std::vector<Sample> samples(5);
  for (int i = 0; i < 5; ++i) {
    samples[static_cast<size_t>(i)].iteration = i + 1;
    samples[static_cast<size_t>(i)].train_loss = 1.0 / (i + 1);
  }
  RunChartPages pages;
  pages.set_runs({{"lr 0.05", &samples, -1, true, 0}});
  QChart* chart = pages.chart(RunChart::kLossIteration);
  auto* line = qobject_cast<QLineSeries*>(chart->series().front());
  ASSERT_NE(line, nullptr);
  ASSERT_NE(chart->scene(), nullptr);
  ASSERT_FALSE(chart->scene()->views().isEmpty());
  QObject* view = chart->scene()->views().front();  // the page's QChartView
  emit line->hovered({2.8, 0.4}, true);             // nearest point: iteration 3, loss 1/3
  const QString text = view->property("hover_readout").toString();
  EXPECT_TRUE(text.startsWith("lr 0.05\n")) << text.toStdString();
  EXPECT_TRUE(text.endsWith(": 3\n" + chart->axes(Qt::Vertical).front()->titleText() + ": " +
                            QString::number(1.0 / 3, 'g', 6)))
      << text.toStdString();
}

// The Training page's bar charts read out too: hovering a run's exposed-communication slice of the
// iteration-time chart gives the run, its category and the mean ms per iteration, which is
// 1e3 x mean(comm_time_s) = 1e3 x (1 + 2 + 3) / 3 x 1e-4 s = 0.2 ms.
TEST(ChartHover, BarChartsReadOutTheRunsBar) {
  app();
  std::vector<Sample> samples(3);
  for (int i = 0; i < 3; ++i) {
    samples[static_cast<size_t>(i)].iteration = i + 1;
    samples[static_cast<size_t>(i)].comm_time_s = (i + 1) * 1e-4;
  }
  RunChartPages pages;
  pages.set_runs({{"skip 4", &samples, -1, true, 0}});
  QChart* chart = pages.chart(RunChart::kTimeSplit);
  ASSERT_NE(chart, nullptr);
  auto* bars = qobject_cast<QAbstractBarSeries*>(chart->series().front());
  ASSERT_NE(bars, nullptr);
  QBarSet* comm = bars->barSets()[1];
  ASSERT_EQ(comm->label(), "communication");
  ASSERT_FALSE(chart->scene()->views().isEmpty());
  QObject* view = chart->scene()->views().front();
  emit bars->hovered(true, 0, comm);
  EXPECT_EQ(view->property("hover_readout").toString().toStdString(),
            "communication\nskip 4\nms: 0.2");  // the value axis: "ms" (per iteration: the title)
}

TEST(ChartHover, ThroughputReadsOutSizeAndBusbw) {
  app();
  BusbwView page;
  page.show();
  ASSERT_TRUE(wait_for([&] { return page.idle() && page.series_count() > 0; }));
  auto* line = qobject_cast<QLineSeries*>(page.chart()->series().front());
  ASSERT_NE(line, nullptr);
  ASSERT_GE(line->count(), 3);
  const QPointF point = line->at(2);  // x = log2(bytes)
  emit line->hovered({point.x() + 0.2, point.y() + 1}, true);
  const QString text = page.findChild<QChartView*>()->property("hover_readout").toString();
  EXPECT_EQ(text, line->name() + "\nmessage size per rank (bytes): " +
                      long_bytes(std::round(std::exp2(point.x()))) +
                      "\nbusbw (GB/s): " + QString::number(point.y(), 'g', 6));
}

}  // namespace
}  // namespace commlab::ui
