#include "run_chart_builders.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QFontMetricsF>
#include <QLegend>
#include <QSet>
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
  auto* categories_axis = new QBarCategoryAxis;
  categories_axis->append(categories);
  categories_axis->setProperty(kFullCategoriesProperty, categories);
  auto* values = new QValueAxis;
  values->setTitleText(y_title);
  values->setLabelFormat("%g");
  set_nice_range(values, 0, top > 0 ? top * 1.1 : 1);
  // Horizontal bars list their categories up the left side (the first at the bottom), vertical
  // bars along the bottom.
  const bool horizontal = series->type() == QAbstractSeries::SeriesTypeHorizontalBar ||
                          series->type() == QAbstractSeries::SeriesTypeHorizontalStackedBar ||
                          series->type() == QAbstractSeries::SeriesTypeHorizontalPercentBar;
  chart->addAxis(categories_axis, horizontal ? Qt::AlignLeft : Qt::AlignBottom);
  chart->addAxis(values, horizontal ? Qt::AlignBottom : Qt::AlignLeft);
  series->attachAxis(categories_axis);
  series->attachAxis(values);
  return chart;
}

}  // namespace commlab::ui::detail

namespace commlab::ui {

QStringList fit_category_labels(const QStringList& names, const QFont& font, double slot) {
  const QFontMetricsF fm(font);
  auto all_fit = [&](const QStringList& labels) {
    for (const QString& l : labels)
      if (fm.horizontalAdvance(l) > slot) return false;
    return true;
  };
  if (names.isEmpty() || all_fit(names)) return names;
  // Wrapped at spaces into at most kMaxLines lines (Qt Charts draws a label as rich text, so
  // "<br>" breaks it); a word longer than the slot, and whatever the last line cannot hold, is
  // elided in the middle (the end of a run's name, "trim-eden-20", says what differs).
  constexpr int kMaxLines = 2;
  const double width = std::max(0.0, slot);
  QStringList labels;
  for (const QString& name : names) {
    QStringList lines;
    for (const QString& word : name.split(' ', Qt::SkipEmptyParts)) {
      if (!lines.isEmpty() &&
          (fm.horizontalAdvance(lines.back() + ' ' + word) <= width || lines.size() == kMaxLines))
        lines.back() += ' ' + word;
      else
        lines << word;
    }
    for (QString& line : lines) line = fm.elidedText(line, Qt::ElideMiddle, width).toHtmlEscaped();
    labels << lines.join("<br>");
  }
  const QSet<QString> distinct(labels.begin(), labels.end());
  bool readable = distinct.size() == labels.size();
  for (const QString& l : labels)
    readable = readable && !l.isEmpty() && l != QString(QChar(0x2026));
  if (readable) return labels;
  // Labels that would read alike: the runs' numbers in the runs table's order.
  for (int i = 0; i < labels.size(); ++i) labels[i] = QString::number(i + 1);
  return labels;
}

void set_nice_axis_range(QValueAxis* axis, double lo, double hi) {
  detail::set_nice_range(axis, lo, hi);
}

bool legend_row_fits(const QStringList& labels, const QFont& font, double width) {
  constexpr double kMarkerOverhead = 22, kLegendMargins = 48;
  const QFontMetricsF fm(font);
  double needed = kLegendMargins;
  for (const QString& label : labels)
    needed += fm.horizontalAdvance(label) + fm.height() + kMarkerOverhead;
  return needed <= width;
}

QStringList fit_row_labels(const QStringList& names, const QFont& font, double width, double row) {
  const QFontMetricsF fm(font);
  QStringList labels;
  for (const QString& name : names) labels << fm.elidedText(name, Qt::ElideMiddle, width);
  const QSet<QString> distinct(labels.begin(), labels.end());
  if (row >= fm.height() && distinct.size() == labels.size()) return labels;
  // Rows lower than a line, or names that would read alike: the runs' numbers, counted from the
  // top row (the names come bottom first, as Qt lists a horizontal chart's categories).
  for (int i = 0; i < labels.size(); ++i) labels[i] = QString::number(labels.size() - i);
  return labels;
}

void fit_chart_categories(QChart* chart, QSizeF plot) {
  for (QAbstractAxis* axis : chart->axes()) {
    auto* categories = qobject_cast<QBarCategoryAxis*>(axis);
    if (!categories) continue;
    const QStringList full = categories->property(kFullCategoriesProperty).toStringList();
    if (full.isEmpty()) continue;
    QStringList labels;
    if (categories->orientation() == Qt::Horizontal) {
      // Qt Charts gives each label the axis width over its tick count (one more than the
      // categories) less 5 px padding on each side, and measures the label as a text document
      // with a small margin on each side: what is left for the text itself.
      const double slot = plot.width() / static_cast<double>(full.size() + 1) - 12;
      labels = fit_category_labels(full, categories->labelsFont(), slot);
    } else {
      // Down the side: each row the plot's height over the categories; a name as wide as the
      // plot itself (a long renamed run) is elided in the middle.
      labels = fit_row_labels(full, categories->labelsFont(),
                              std::max(kMinRowLabelWidth, chart->size().width() * 0.45),
                              plot.height() / static_cast<double>(full.size()));
    }
    if (labels != categories->categories()) categories->setCategories(labels);
  }
}

}  // namespace commlab::ui
