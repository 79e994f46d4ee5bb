#include "run_chart_builders.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QValueAxis>

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

QChart* bar_chart(const QString& title, const QString& y_title, const QStringList& categories,
                  QAbstractBarSeries* series, double top) {
  QChart* chart = new_chart(title);
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(categories);
  auto* y = new QValueAxis;
  y->setTitleText(y_title);
  y->setRange(0, top > 0 ? top * 1.1 : 1);
  y->setLabelFormat("%g");
  y->applyNiceNumbers();
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  return chart;
}

}  // namespace commlab::ui::detail
