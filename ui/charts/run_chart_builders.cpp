#include "run_chart_builders.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QValueAxis>
#include <cmath>

namespace commlab::ui::detail {

const std::vector<Sample>& samples_of(const RunSeries& r) {
  static const std::vector<Sample> none;
  return r.samples ? *r.samples : none;
}

QChart* new_chart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignBottom);
  // A name too long for its legend slot is elided; hovering it shows the whole name.
  chart->legend()->setShowToolTips(true);
  chart->setMargins(QMargins(4, 4, 4, 4));
  return chart;
}

double nice_step(double raw) {
  if (!(raw > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

void set_nice_range(QValueAxis* axis, double lo, double hi) {
  if (!(hi > lo)) hi = lo + 1;
  const double step = nice_step((hi - lo) / 4);
  const double a = std::floor(lo / step + 1e-9) * step;
  const double b = std::ceil(hi / step - 1e-9) * step;
  const int ticks = static_cast<int>(std::lround((b - a) / step)) + 1;
  // The same range with another count would leave the labels as they were: move it first.
  if (axis->min() == a && axis->max() == b && axis->tickCount() != ticks)
    axis->setRange(a, b + step);
  axis->setTickCount(ticks);
  axis->setRange(a, b);
}

QChart* bar_chart(const QString& title, const QString& y_title, const QStringList& categories,
                  QAbstractBarSeries* series, double top) {
  QChart* chart = new_chart(title);
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(categories);
  auto* y = new QValueAxis;
  y->setTitleText(y_title);
  y->setLabelFormat("%g");
  set_nice_range(y, 0, top > 0 ? top * 1.1 : 1);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  return chart;
}

}  // namespace commlab::ui::detail
