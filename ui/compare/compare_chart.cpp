// CompareView's chart: each run's mean test accuracy against simulated time with its 95% band,
// the target line, and the finish marks (compare_race.cpp).
#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QFontMetricsF>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "chart_hover.h"
#include "compare_figures.h"
#include "compare_view.h"
#include "run_charts.h"

namespace commlab::ui {

namespace {

// Lowest and highest mean accuracy and the latest time (ms) drawn.
struct Extent {
  double lo = 1, hi = 0, right = 0;
};

// A run's mean accuracy curve against simulated time (ms) and its 95% band, on the chart's two
// axes; the band's legend entry hidden (the mean's names the run).
void add_run(QChart* chart, const std::vector<BandPoint>& points, const QString& name,
             const QColor& color, Extent& extent) {
  auto* mean = new QLineSeries;
  auto* upper = new QLineSeries;
  auto* lower = new QLineSeries;
  for (const BandPoint& p : points) {
    const double t = 1e3 * p.sim_time_s;
    mean->append(t, p.mean);
    // An accuracy lies in [0, 1]: a band over few seeds (Student t with 1 degree of freedom is
    // 12.7) reaches past it, and the axis once followed it there, above every curve.
    upper->append(t, std::min(1.0, p.hi));
    lower->append(t, std::max(0.0, p.lo));
    extent.lo = std::min(extent.lo, p.mean);
    extent.hi = std::max(extent.hi, p.mean);
    extent.right = std::max(extent.right, t);
  }
  auto* band = new QAreaSeries(upper, lower);
  QColor fill = color;
  fill.setAlpha(50);
  band->setBrush(fill);
  band->setPen(Qt::NoPen);
  mean->setName(name);
  mean->setPen(QPen(color, 2));
  chart->addSeries(band);
  chart->addSeries(mean);
  for (QAbstractSeries* s :
       {static_cast<QAbstractSeries*>(band), static_cast<QAbstractSeries*>(mean)})
    for (QAbstractAxis* axis : chart->axes()) s->attachAxis(axis);
  for (QLegendMarker* m : chart->legend()->markers(band)) m->setVisible(false);
}

}  // namespace

void CompareView::draw_chart() {
  auto* chart = new QChart;
  // summary_ has no runs before the first comparison.
  const RunStats* first = summary_.runs.empty() ? nullptr : &summary_.runs.front();
  const int seeds = first ? static_cast<int>(first->seeds.seeds.size()) : 0;
  const std::vector<std::vector<BandPoint>>& bands = partial_ ? partial_bands_ : bands_;
  const std::vector<QString>& names = partial_ ? partial_names_ : names_;
  QString title = partial_ ? partial_title_
                  : bands.empty()
                      ? "Test accuracy over seeds (press Run comparison)"
                      : QString("Test accuracy: mean over %1 seeds, 95% band").arg(seeds);
  auto* x = new QValueAxis;
  x->setTitleText("simulated time (ms)");
  auto* y = new QValueAxis;
  y->setTitleText("test accuracy");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  Extent extent;       // of the mean curves
  QStringList labels;  // the legend's entries
  for (size_t k = 0; k < bands.size(); ++k) {
    if (bands[k].empty()) continue;  // no seed of this run finished yet
    add_run(chart, bands[k], names[k], color_of(k, partial_), extent);
    labels << names[k];
  }
  const bool any = !labels.isEmpty();
  const double target = partial_ && !running_.empty() ? running_.front().training.target_accuracy
                        : first && first->tta.time_to_accuracy ? first->tta.time_to_accuracy->target
                                                               : NAN;
  QString target_name;
  if (any && std::isfinite(target)) {  // the accuracy that defines time to target
    target_name = "target " + QString::number(100 * target, 'f', 1) + "%";
    auto* line = new QLineSeries;
    line->setName(target_name);
    line->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    line->append(0, target);
    line->append(extent.right, target);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    labels << target_name;
    extent.hi = std::max(extent.hi, target);
    if (!partial_) add_finish_marks(chart, target);
  }
  // Ticks at nice numbers (1, 2 or 5 times a power of ten) from 0, not at a fifth of the span.
  x->setLabelFormat("%g");
  y->setLabelFormat("%g");
  for (size_t k = 0; any && !partial_ && k < names_.size(); ++k)  // the finish marks too
    if (const double t = race_finish_s(summary_, static_cast<int>(k)); std::isfinite(t))
      extent.right = std::max(extent.right, 1e3 * t);
  if (any) {
    // The upper part of the mean curves (and the target), where the runs reach their targets,
    // not the first evaluation.
    set_nice_axis_range(x, 0, extent.right > 0 ? extent.right : 1);
    set_nice_axis_range(y, std::max(0.0, std::max(extent.lo, extent.hi - 0.25)),
                        std::min(1.0, extent.hi + 0.01));
  } else {
    set_nice_axis_range(x, 0, 1);
    set_nice_axis_range(y, 0, 1);
  }
  chart->legend()->setAlignment(Qt::AlignBottom);
  legend_labels_ = labels;
  chart_title_ = title;
  target_name_ = target_name;
  // Hover: a run's mean accuracy at the evaluation nearest the pointer, exactly.
  add_hover_readouts(chart, chart_);
  QChart* old = chart_->chart();
  chart_->setChart(chart);
  delete old;
  fit_legend();
}

void CompareView::fit_legend() {
  QChart* chart = chart_->chart();
  // A legend row too narrow for every name whole would elide them all ("algori..."): then none is
  // drawn and the table below, each run with its colour's swatch, is the legend; the title names
  // the dashed target line.
  const bool fits = legend_row_fits(legend_labels_, chart->legend()->font(), chart_->width());
  chart->legend()->setVisible(fits);
  chart->setTitle(fits || target_name_.isEmpty() ? chart_title_
                                                 : chart_title_ + "; dashed: " + target_name_);
}

bool CompareView::eventFilter(QObject* watched, QEvent* event) {
  // The legend follows the chart's width: a window made wider shows it, narrower hides it.
  if (watched == chart_ && event->type() == QEvent::Resize) fit_legend();
  return QWidget::eventFilter(watched, event);
}

}  // namespace commlab::ui
