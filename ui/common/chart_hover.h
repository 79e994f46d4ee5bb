#pragma once
// Hover readouts: hovering a chart's line or marker shows the series and the data point
// nearest the pointer, with its exact values (not the interpolated position on the segment).
#include <QBarSet>
#include <QChart>
#include <QPointF>
#include <QString>
#include <QXYSeries>
#include <functional>

namespace commlab::ui {

// The data point of `series` nearest `at` in x (ties: the earlier point); `at` when it has none.
QPointF nearest_point(const QXYSeries& series, QPointF at);

// "series name\nX: x-text\nY: y-text" for the point nearest `at`. format_x turns a data x into its
// text (the Throughput page's x is log2 of the size); empty: the number itself.
using AxisText = std::function<QString(double)>;
QString hover_text(const QXYSeries& series, QPointF at, const QString& x_title,
                   const QString& y_title, const AxisText& format_x = {});

// "set label\ncategory\ny-title: value" for bar `index` of `set` (a bar chart's readout).
QString bar_hover_text(const QBarSet& set, int index, const QString& category,
                       const QString& y_title);

// The line of `chart` nearest `at` (a position in the chart's coordinates, i.e. the scene's):
// the series whose drawn polyline passes closest to it in pixels, within `radius` px, and that
// series' data point nearest `at` in pixels. Visible line and scatter series only.
inline constexpr double kHoverRadius = 8;  // px: a readout appears this close to a line
struct NearestLine {
  QXYSeries* series = nullptr;  // null: no line within the radius
  QPointF point;                // the data point (exact values)
  double distance = 0;          // px from `at` to the polyline
};
NearestLine nearest_line(QChart* chart, QPointF at, double radius = kHoverRadius);

// Connects every line, scatter and bar series of `chart` so a hover shows hover_text (bars:
// bar_hover_text, the category from a bar category x axis) in a tooltip and stores it in `owner`'s
// "hover_readout" property (what a test, or an accessibility tool, reads). Axis titles come from
// the chart's first horizontal and vertical axes. When `owner` is the QChartView showing the
// chart, lines read out within kHoverRadius px of the pointer (nearest_line), not only on the
// line's pixel.
void add_hover_readouts(QChart* chart, QObject* owner, const AxisText& format_x = {});

}  // namespace commlab::ui
