#pragma once
// Building blocks shared by the run chart builders (run_charts.cpp, time_split_chart.cpp,
// plane_entropy_chart.cpp); internal to commlab_ui.
#include <QString>
#include <QStringList>
#include <vector>

#include "run_charts.h"

class QAbstractBarSeries;

namespace commlab::ui::detail {

const std::vector<Sample>& samples_of(const RunSeries& r);

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
