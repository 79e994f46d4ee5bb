#include "chart_hover.h"

#include <QAbstractAxis>
#include <QCursor>
#include <QToolTip>
#include <QVariant>
#include <cmath>

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

void add_hover_readouts(QChart* chart, QObject* owner, const AxisText& format_x) {
  const QList<QAbstractAxis*> xs = chart->axes(Qt::Horizontal);
  const QList<QAbstractAxis*> ys = chart->axes(Qt::Vertical);
  const QString x_title = xs.isEmpty() ? QString() : xs.front()->titleText();
  const QString y_title = ys.isEmpty() ? QString() : ys.front()->titleText();
  for (QAbstractSeries* s : chart->series()) {
    auto* xy = qobject_cast<QXYSeries*>(s);
    if (!xy) continue;
    QObject::connect(xy, &QXYSeries::hovered, owner,
                     [xy, owner, x_title, y_title, format_x](QPointF at, bool on) {
                       if (!on) return;
                       const QString text = hover_text(*xy, at, x_title, y_title, format_x);
                       owner->setProperty("hover_readout", text);
                       QToolTip::showText(QCursor::pos(), text);
                     });
  }
}

}  // namespace commlab::ui
