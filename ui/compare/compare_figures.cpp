#include "compare_figures.h"

#include <cmath>

#include "format_util.h"

namespace commlab::ui {

namespace {

// v x scale with `digits` decimals and the unit; "–" when v is not a finite number.
QString number(double v, int digits, double scale = 1, const QString& unit = QString()) {
  return std::isfinite(v) ? QString::number(scale * v, 'f', digits) + unit : QString("–");
}

// " [lo, hi]" of an interval (an end that is not finite, unknown or unbounded, shows "–"); empty
// without an interval.
QString interval(bool has, double lo, double hi, int digits, double scale = 1) {
  if (!has) return QString();
  return " [" + number(lo, digits, scale) + ", " + number(hi, digits, scale) + "]";
}

// "85%" or "85.5%": the target as the headline names it.
QString percent(double target) {
  return QString::number(100 * target, 'g', 3) + "%";
}

// The run's censored median time to target (NaN: none).
double finish_s(const RunStats& run) {
  return run.tta.time_to_accuracy ? run.tta.time_to_accuracy->seconds.estimate : NAN;
}

// A time to target in ms with three significant digits; "not reached" when the summary has none.
QString finish_text(const RunStats& run) {
  const double t = finish_s(run);
  return std::isfinite(t) ? QString::number(1e3 * t, 'g', 3) + " ms" : QString("not reached");
}

// An end of the speedup interval: not finite is unbounded above (a miss ranked worst), "∞".
QString speedup_end(double v) {
  return std::isfinite(v) ? QString::number(v, 'f', 2) : QString("∞");
}

// A speedup's finite estimate (NaN for the baseline, runs without one and an unbounded one).
double estimate_of(const RunStats& run) {
  const double e = run.tta.vs_baseline ? run.tta.vs_baseline->speedup.estimate : NAN;
  return std::isfinite(e) ? e : NAN;
}

// The speedup, its interval and verdict; with pairs where the arm missed the target, how many:
// the engine ranks a miss worst, so an arm that missed most pairs has a speedup of 0, which
// alone reads as a measured "0.00x".
QString speedup_cell(const PairedSpeedup& sp) {
  QString cell = number(sp.estimate, 2, 1, "x") + interval(sp.has_interval(), sp.lo, sp.hi, 2) +
                 " " + QString::fromStdString(sp.verdict);
  const int missed = sp.arm_missed + sp.both_missed;
  if (missed > 0) cell += QString(", target missed in %1 of %2 pairs").arg(missed).arg(sp.pairs);
  return cell;
}

}  // namespace

QStringList compare_row_cells(const RunStats& r) {
  const RunSummary& s = r.summary;
  const Interval& acc = r.seeds.final_test_accuracy.interval;
  const std::optional<TimeToAccuracy>& tta = r.tta.time_to_accuracy;
  const std::optional<BaselineComparison>& vs = r.tta.vs_baseline;
  const double iterations = s.iterations;
  QStringList cells;
  cells << QString::fromStdString(s.name);
  cells << QString::number(r.seeds.seeds.size());
  cells << number(acc.mean, 2, 100, "%") + interval(acc.has_interval(), acc.lo(), acc.hi(), 2, 100);
  cells << (iterations > 0 ? number(1e3 * s.sim_time_s / iterations, 3, 1, " ms") : QString("–"));
  cells << (tta ? QString("%1/%2, %3%4")
                      .arg(tta->seconds.reached)
                      .arg(tta->seconds.seeds)
                      .arg(number(tta->seconds.estimate, 2, 1e3, " ms"))
                      .arg(interval(tta->seconds.has_interval(), tta->seconds.lo, tta->seconds.hi,
                                    2, 1e3))
                : QString("–"));
  cells << (vs ? speedup_cell(vs->speedup) : QString("baseline"));
  cells << (vs ? number(vs->accuracy_delta.estimate, 2, 100, " pts") +
                     interval(vs->accuracy_delta.has_interval(), vs->accuracy_delta.lo,
                              vs->accuracy_delta.hi, 2, 100)
               : QString("–"));
  cells << (iterations > 0 ? long_bytes(static_cast<double>(s.bytes_on_wire) / iterations)
                           : QString("–"));
  return cells;
}

double race_finish_s(const ExperimentSummary& summary, int row) {
  if (row < 0 || row >= static_cast<int>(summary.runs.size())) return NAN;
  return finish_s(summary.runs[static_cast<size_t>(row)]);
}

namespace {

// The arm with the largest speedup estimate (the first arm when none has one); -1 without arms.
int fastest_arm(const std::vector<RunStats>& runs) {
  int row = -1;
  double best = NAN;
  for (size_t k = 0; k < runs.size(); ++k) {
    if (!runs[k].tta.vs_baseline) continue;
    if (row < 0) row = static_cast<int>(k);
    const double e = estimate_of(runs[k]);
    if (!std::isnan(e) && !(e <= best)) {  // !(e <= NaN) holds for the first estimate
      best = e;
      row = static_cast<int>(k);
    }
  }
  return row;
}

QString verdict_text(const std::string& verdict, const QString& baseline) {
  return verdict == "faster"         ? "faster than " + baseline
         : verdict == "slower"       ? "slower than " + baseline
         : verdict == "within noise" ? "within noise of " + baseline
                                     : "against " + baseline + ", undetermined";
}

}  // namespace

RaceHeadline race_headline(const ExperimentSummary& summary, int row) {
  RaceHeadline h;
  h.number = "–";
  const std::vector<RunStats>& runs = summary.runs;
  const int fastest = fastest_arm(runs);
  if (fastest < 0) {
    h.verdict = runs.empty() ? "Run a comparison: the speedup over the baseline shows here."
                             : "One run: add another to race it against the baseline.";
    return h;
  }
  if (row < 0 || row >= static_cast<int>(runs.size())) row = fastest;
  const RunStats& run = runs[static_cast<size_t>(row)];
  h.row = row;
  h.run = QString::fromStdString(run.name());
  const double target = run.tta.time_to_accuracy ? run.tta.time_to_accuracy->target : NAN;
  const QString to = std::isfinite(target) ? percent(target) : QString("the target");
  if (!run.tta.vs_baseline) {
    h.number = "1×";
    h.verdict = "is the baseline the others race to " + to + " test accuracy";
    h.times = "time to " + to + ": " + finish_text(run) + " (median over seeds)";
    return h;
  }
  const BaselineComparison& vs = *run.tta.vs_baseline;
  const QString baseline = QString::fromStdString(vs.baseline);
  const double estimate = vs.speedup.estimate;
  if (std::isfinite(estimate)) h.number = QString::number(estimate, 'f', 2) + "×";
  h.verdict = verdict_text(vs.speedup.verdict, baseline) + " to " + to + " test accuracy";
  if (!std::isfinite(estimate)) h.verdict = "neither run reached " + to + " in any paired seed";
  const int pairs = vs.speedup.pairs;
  h.interval = (vs.speedup.has_interval() ? "95% interval [" + speedup_end(vs.speedup.lo) + ", " +
                                                speedup_end(vs.speedup.hi) + "]"
                                          : QString("no interval")) +
               QString(", %1 paired seed%2").arg(pairs).arg(pairs == 1 ? "" : "s");
  int base_row = -1;
  for (size_t k = 0; k < runs.size(); ++k)
    if (runs[k].name() == vs.baseline) base_row = static_cast<int>(k);
  h.times =
      "time to " + to + ": " + finish_text(run) +
      (base_row >= 0 ? ", " + baseline + " " + finish_text(runs[static_cast<size_t>(base_row)])
                     : QString()) +
      " (medians over seeds)";
  return h;
}

}  // namespace commlab::ui
