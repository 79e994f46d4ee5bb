#pragma once
// What the Compare tab shows of a comparison's summary (the ExperimentSummary the runner returns,
// scenario/run/experiment_summary.h; summary.json is its serialization): each run's row of the
// results table and the race headline. Every number is read as the engine computed it, never
// recomputed here.
#include <QString>
#include <QStringList>

#include "scenario/run/experiment_summary.h"

namespace commlab::ui {

// The results table's cells of one run: name, seeds, final accuracy (mean and interval, %), time
// per iteration, time to target (reached k/N, censored median and interval), speedup vs baseline
// (estimate, interval, verdict; "baseline" for the baseline), accuracy vs baseline (points), wire
// bytes per iteration. "–" where the summary has no number.
QStringList compare_row_cells(const RunStats& run);

// The race headline: how much sooner a run reaches the target accuracy than the baseline, as one
// large number (the speedup's estimate: the baseline's time to target over the run's, paired by
// seed; their geometric mean, or the Hodges-Lehmann estimate when a seed missed the target,
// scenario/run/tta_stats.h) with its 95% interval and verdict, and both runs' times to target
// (the censored median over seeds).
struct RaceHeadline {
  int row = -1;      // the run's index in summary.runs (-1: no run to show)
  QString run;       // its name
  QString number;    // "1.51×"; "–" without an estimate
  QString verdict;   // "faster than baseline to 85% test accuracy"
  QString interval;  // "95% interval [1.44, 1.60], 6 paired seeds"
  QString times;     // "time to 85%: 0.146 ms, baseline 0.220 ms (medians over seeds)"
};

// The headline of summary.runs[row]; with row < 0 (or out of range), of the arm with the largest
// estimate (the first arm when none has one). A summary without an arm (none yet, or the baseline
// alone) gives row -1 and a number "–" with the reason in `verdict`.
RaceHeadline race_headline(const ExperimentSummary& summary, int row = -1);

// summary.runs[row]'s time to target in seconds (the censored median over seeds); NaN when it
// has none (not reached by half of the seeds, or no accuracy).
double race_finish_s(const ExperimentSummary& summary, int row);

}  // namespace commlab::ui
