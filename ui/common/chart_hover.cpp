#include "chart_hover.h"

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChartView>
#include <QCursor>
#include <QMouseEvent>
#include <QPointer>
#include <QToolTip>
#include <QVariant>
#include <algorithm>
#include <cmath>

#include "run_charts.h"

namespace commlab::ui {

QPointF nearest_point(const QXYSeries& series, QPointF at) {
  QPointF best = at;
  double best_distance = INFINITY;
  for (int i = 0; i < series.count(); ++i) {
    const QPointF p = series.at(i);
    const double distance = std::abs(p.x() - at.x());
    if (distance < best_distance) {
      best_distance = distance;
      best = p;
    }
  }
  return best;
}

QString hover_text(const QXYSeries& series, QPointF at, const QString& x_title,
                   const QString& y_title, const AxisText& format_x) {
  const QPointF p = nearest_point(series, at);
  const QString x = format_x ? format_x(p.x()) : QString::number(p.x(), 'g', 6);
  return QString("%1\n%2: %3\n%4: %5")
      .arg(series.name(), x_title.isEmpty() ? QString("x") : x_title, x,
           y_title.isEmpty() ? QString("y") : y_title, QString::number(p.y(), 'g', 6));
}

QString bar_hover_text(const QBarSet& set, int index, const QString& category,
                       const QString& y_title) {
  return QString("%1\n%2\n%3: %4")
      .arg(set.label(), category, y_title.isEmpty() ? QString("y") : y_title,
           QString::number(set.at(index), 'g', 6));
}

namespace {

void show_readout(QObject* owner, const QString& text) {
  owner->setProperty("hover_readout", text);
  QToolTip::showText(QCursor::pos(), text);
}

// The pixel distance from `p` to the segment a-b.
double segment_distance(QPointF p, QPointF a, QPointF b) {
  const QPointF ab = b - a;
  const double len2 = QPointF::dotProduct(ab, ab);
  const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / len2, 0.0, 1.0) : 0.0;
  const QPointF d = p - (a + t * ab);
  return std::hypot(d.x(), d.y());
}

}  // namespace

NearestLine nearest_line(QChart* chart, QPointF at, double radius) {
  NearestLine best;
  best.distance = radius;
  for (QAbstractSeries* s : chart->series()) {
    auto* xy = qobject_cast<QXYSeries*>(s);
    if (!xy || !xy->isVisible() || xy->count() == 0) continue;
    // The x values `radius` px either side of the pointer, in data units: only points there, and
    // the segments that cross it, can be that close (lines are drawn in x order).
    const QPointF left = chart->mapToValue(at - QPointF(radius, 0), xy);
    const QPointF right = chart->mapToValue(at + QPointF(radius, 0), xy);
    const double x_lo = std::min(left.x(), right.x()), x_hi = std::max(left.x(), right.x());
    const QList<QPointF> points = xy->points();
    QPointF previous_px;
    for (qsizetype i = 0; i < points.size(); ++i) {
      const double x = points[i].x();
      const bool near = x >= x_lo && x <= x_hi;
      const bool crosses =
          i > 0 &&
          ((points[i - 1].x() < x_lo && x > x_hi) || (points[i - 1].x() > x_hi && x < x_lo) ||
           (points[i - 1].x() < x_lo && x >= x_lo) || (points[i - 1].x() <= x_hi && x > x_hi));
      if (!near && !crosses) {
        previous_px = QPointF();
        continue;
      }
      const QPointF px = chart->mapToPosition(points[i], xy);
      const QPointF prev_px =
          i > 0 ? (previous_px.isNull() ? chart->mapToPosition(points[i - 1], xy) : previous_px)
                : px;
      previous_px = px;
      const double d = xy->type() == QAbstractSeries::SeriesTypeScatter
                           ? std::hypot(px.x() - at.x(), px.y() - at.y())
                           : segment_distance(at, prev_px, px);
      if (d <= best.distance) {
        best.series = xy;
        best.distance = d;
        // The segment's end nearer the pointer: an exact data point.
        const bool take_previous = i > 0 && std::hypot(prev_px.x() - at.x(), prev_px.y() - at.y()) <
                                                std::hypot(px.x() - at.x(), px.y() - at.y());
        best.point = take_previous ? points[i - 1] : points[i];
      }
    }
  }
  return best;
}

namespace {

// Reads out the line nearest the pointer over a chart view (whichever chart it shows then).
class NearHover : public QObject {
 public:
  NearHover(QChartView* view, AxisText format_x)
      : QObject(view), view_(view), format_x_(std::move(format_x)) {}

 protected:
  bool eventFilter(QObject*, QEvent* event) override {
    if (event->type() != QEvent::MouseMove) return false;
    QChart* chart = view_->chart();
    if (!chart) return false;
    const auto* move = static_cast<QMouseEvent*>(event);
    const QPointF at = chart->mapFromScene(view_->mapToScene(move->position().toPoint()));
    const NearestLine hit = nearest_line(chart, at);
    if (!hit.series) return false;
    const QList<QAbstractAxis*> xs = chart->axes(Qt::Horizontal), ys = chart->axes(Qt::Vertical);
    show_readout(view_, hover_text(*hit.series, hit.point,
                                   xs.isEmpty() ? QString() : xs.front()->titleText(),
                                   ys.isEmpty() ? QString() : ys.front()->titleText(), format_x_));
    return false;
  }

 private:
  QChartView* view_;
  AxisText format_x_;
};

}  // namespace

void add_hover_readouts(QChart* chart, QObject* owner, const AxisText& format_x) {
  // Over a chart view, lines read out near the pointer too (one filter per view, whatever chart
  // it shows later), not only on the line's own hover signal.
  auto* view = qobject_cast<QChartView*>(owner);
  if (view && !view->property("commlab_near_hover").toBool()) {
    view->setProperty("commlab_near_hover", true);
    view->setMouseTracking(true);
    view->viewport()->setMouseTracking(true);
    view->viewport()->installEventFilter(new NearHover(view, format_x));
  }
  const QList<QAbstractAxis*> xs = chart->axes(Qt::Horizontal);
  const QList<QAbstractAxis*> ys = chart->axes(Qt::Vertical);
  const QString x_title = xs.isEmpty() ? QString() : xs.front()->titleText();
  const QString y_title = ys.isEmpty() ? QString() : ys.front()->titleText();
  // A bar chart's categories run along the bottom (vertical bars) or down the side (horizontal
  // bars); its values along the other axis.
  QPointer<QBarCategoryAxis> categories;
  QString value_title = y_title;
  for (QAbstractAxis* axis : chart->axes())
    if (auto* c = qobject_cast<QBarCategoryAxis*>(axis)) {
      categories = c;
      value_title = c->orientation() == Qt::Vertical ? x_title : y_title;
      break;
    }
  for (QAbstractSeries* s : chart->series()) {
    if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
      // Categories are read at hover time: a live chart refreshes its bars in place.
      QObject::connect(bars, &QAbstractBarSeries::hovered, owner,
                       [owner, categories, value_title](bool on, int index, QBarSet* set) {
                         if (!on || !set || index < 0 || index >= set->count()) return;
                         // The full names: the shown labels may be shortened to fit.
                         QStringList names =
                             categories
                                 ? categories->property(kFullCategoriesProperty).toStringList()
                                 : QStringList();
                         if (names.isEmpty() && categories) names = categories->categories();
                         const QString category =
                             index < names.size() ? names[index] : QString::number(index + 1);
                         show_readout(owner, bar_hover_text(*set, index, category, value_title));
                       });
      continue;
    }
    auto* xy = qobject_cast<QXYSeries*>(s);
    if (!xy) continue;
    QObject::connect(xy, &QXYSeries::hovered, owner,
                     [xy, owner, x_title, y_title, format_x](QPointF at, bool on) {
                       if (on) show_readout(owner, hover_text(*xy, at, x_title, y_title, format_x));
                     });
  }
}

}  // namespace commlab::ui
