#pragma once
// Building blocks shared by the run chart builders (run_charts.cpp, time_split_chart.cpp,
// plane_entropy_chart.cpp); internal to commlab_charts.
#include <QString>
#include <QStringList>
#include <vector>

#include "run_charts.h"

class QAbstractBarSeries;
class QValueAxis;

namespace commlab::ui::detail {

const std::vector<Sample>& samples_of(const RunSeries& r);

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw);

// The axis from a nice number at or below `lo` to one at or above `hi`, ticks a nice step apart
// (about five). Qt's applyNiceNumbers sets the range and then the tick count, and a tick count
// that changes alone does not lay the labels out again (Qt 6.4): a chart refreshed in place
// showed 0, 1.33333, 2.66667, 4 (the new range with the old count). Here the count goes first.
void set_nice_range(QValueAxis* axis, double lo, double hi);

// A new chart with the title, legend at the bottom and small margins.
QChart* new_chart(const QString& title);

// Bars: one category per label, one bar set per name (grouped) or stacked parts; the value axis
// runs from 0 to a nice number above `top` (0 to 1 when top <= 0).
QChart* bar_chart(const QString& title, const QString& y_title, const QStringList& categories,
                  QAbstractBarSeries* series, double top);

// Mean iteration time split per run (RunChart::kTimeSplit); refreshes `reuse` in place when it
// shows the same runs, else returns a new chart.
QChart* time_split_chart(const std::vector<RunSeries>& runs, QChart* reuse);

// Byte-plane entropy of the gradients (RunChart::kPlaneEntropy).
QChart* plane_entropy_chart(const std::vector<RunSeries>& runs);
bool plane_entropy_has_data(const std::vector<RunSeries>& runs);

}  // namespace commlab::ui::detail
