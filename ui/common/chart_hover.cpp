#include "chart_hover.h"

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCursor>
#include <QPointer>
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

}  // namespace

void add_hover_readouts(QChart* chart, QObject* owner, const AxisText& format_x) {
  const QList<QAbstractAxis*> xs = chart->axes(Qt::Horizontal);
  const QList<QAbstractAxis*> ys = chart->axes(Qt::Vertical);
  const QString x_title = xs.isEmpty() ? QString() : xs.front()->titleText();
  const QString y_title = ys.isEmpty() ? QString() : ys.front()->titleText();
  const QPointer<QBarCategoryAxis> categories =
      xs.isEmpty() ? nullptr : qobject_cast<QBarCategoryAxis*>(xs.front());
  for (QAbstractSeries* s : chart->series()) {
    if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
      // Categories are read at hover time: a live chart refreshes its bars in place.
      QObject::connect(bars, &QAbstractBarSeries::hovered, owner,
                       [owner, categories, y_title](bool on, int index, QBarSet* set) {
                         if (!on || !set || index < 0 || index >= set->count()) return;
                         const QStringList names =
                             categories ? categories->categories() : QStringList();
                         const QString category =
                             index < names.size() ? names[index] : QString::number(index + 1);
                         show_readout(owner, bar_hover_text(*set, index, category, y_title));
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
