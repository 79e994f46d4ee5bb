// The Convergence page's iteration-time split: the mean compute / exposed communication / codec
// milliseconds per iteration of each run, stacked, one horizontal bar per run with the run's name
// whole beside it (a dozen names of up to 24 characters fit down the side; under a dozen vertical
// bars they had 55 px each and read "al...hm tree"). A live run refreshes the bars in place (the
// runs, i.e. the categories, unchanged).
#include <QBarCategoryAxis>
#include <QBarLegendMarker>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QLegendMarker>
#include <QValueAxis>
#include <algorithm>
#include <array>

#include "run_chart_builders.h"

namespace commlab::ui::detail {

namespace {

// Mean compute / exposed communication / codec milliseconds per iteration of each run.
std::vector<std::array<double, 3>> time_split(const std::vector<RunSeries>& runs) {
  std::vector<std::array<double, 3>> out;
  for (const RunSeries& r : runs) {
    const std::vector<Sample>& samples = samples_of(r);
    std::array<double, 3> sum{0, 0, 0};
    for (const Sample& s : samples) {
      sum[0] += s.compute_time_s;
      sum[1] += s.comm_time_s;
      sum[2] += s.codec_time_s;
    }
    const double n = std::max<double>(1, samples.size());
    for (double& v : sum) v = v / n * 1e3;
    out.push_back(sum);
  }
  return out;
}

// Short enough for a legend in one row of a chart half the page wide (the title says the
// communication is the exposed part).
constexpr const char* kPartNames[] = {"compute", "communication", "codec"};

// A part no run spends time on (compute 0 ms for a model without a compute model) leaves the
// legend: "compute" listed beside no bar reads as a missing bar. A part thinner than 1% of the
// tallest bar in every run (an MLP's compute, ~0.2% of its iteration) is drawn under a pixel: its
// legend entry says so rather than promise a bar nobody can find.
void mark_parts(QChart* chart, QAbstractBarSeries* series) {
  double tallest = 0;
  const QList<QBarSet*> sets = series->barSets();
  for (int i = 0; sets.size() == 3 && i < sets.front()->count(); ++i)
    tallest = std::max(tallest, sets[0]->at(i) + sets[1]->at(i) + sets[2]->at(i));
  for (int k = 0; k < sets.size(); ++k) {
    QBarSet* set = sets[k];
    double most = 0;
    for (int i = 0; i < set->count(); ++i) most = std::max(most, set->at(i));
    const bool used = most > 0;
    set->setLabel(QString(kPartNames[k]) + (used && most < 0.01 * tallest ? " (under 1%)" : ""));
    set->setProperty(kLegendHiddenProperty, !used);  // read by the legend's fit (a hidden
                                                     // legend reports every marker hidden)
    for (QLegendMarker* marker : chart->legend()->markers(series))
      if (auto* bar = qobject_cast<QBarLegendMarker*>(marker); bar && bar->barset() == set)
        marker->setVisible(used);
  }
}

}  // namespace

QChart* time_split_chart(const std::vector<RunSeries>& runs, QChart* reuse) {
  static const QColor colors[] = {QColor(0x59, 0xa1, 0x4f), QColor(0xf2, 0x8e, 0x2b),
                                  QColor(0xb0, 0x7a, 0xa1)};
  // Qt draws a horizontal bar chart's first category at the bottom: the runs go in last first,
  // so that they read down in the runs table's order.
  std::vector<std::array<double, 3>> split = time_split(runs);
  std::reverse(split.begin(), split.end());
  QStringList categories;
  double top = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    categories << QString::fromStdString(runs[runs.size() - 1 - i].name);
    top = std::max(top, split[i][0] + split[i][1] + split[i][2]);
  }
  // In place when the runs (categories) are the same: only the bar lengths and the axis move.
  if (reuse && reuse->series().size() == 1 && reuse->axes(Qt::Horizontal).size() == 1 &&
      reuse->axes(Qt::Vertical).size() == 1) {
    auto* series = qobject_cast<QHorizontalStackedBarSeries*>(reuse->series().front());
    auto* names = qobject_cast<QBarCategoryAxis*>(reuse->axes(Qt::Vertical).front());
    auto* values = qobject_cast<QValueAxis*>(reuse->axes(Qt::Horizontal).front());
    if (series && names && values && series->count() == 3 &&
        names->property(kFullCategoriesProperty).toStringList() == categories) {
      for (int k = 0; k < 3; ++k)
        for (size_t i = 0; i < runs.size(); ++i)
          series->barSets()[k]->replace(static_cast<int>(i), split[i][k]);
      set_nice_range(values, 0, top > 0 ? top * 1.1 : 1);
      reuse->setTitle(run_chart_info(RunChart::kTimeSplit).title);
      mark_parts(reuse, series);
      return reuse;
    }
  }
  QBarSet* sets[3];
  for (int k = 0; k < 3; ++k) {
    sets[k] = new QBarSet(kPartNames[k]);
    sets[k]->setColor(colors[k]);
    sets[k]->setBorderColor(colors[k].darker(130));
    for (const auto& row : split) sets[k]->append(row[k]);
  }
  auto* series = new QHorizontalStackedBarSeries;
  for (QBarSet* set : sets) series->append(set);
  QChart* chart =
      bar_chart(run_chart_info(RunChart::kTimeSplit).title, "ms", categories, series, top);
  mark_parts(chart, series);
  return chart;
}

}  // namespace commlab::ui::detail
