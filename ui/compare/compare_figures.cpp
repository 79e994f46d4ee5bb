#include "compare_figures.h"

#include <cmath>

#include "format_util.h"

namespace commlab::ui {

using nlohmann::json;

namespace {

QString number(const json& v, int digits, double scale = 1, const QString& unit = QString()) {
  return v.is_number() ? QString::number(scale * v.get<double>(), 'f', digits) + unit
                       : QString("–");
}

// "[lo, hi]" of a two-element array (either end may be null), empty when there is none.
QString interval(const json& ci, int digits, double scale = 1) {
  if (!ci.is_array() || ci.size() != 2) return QString();
  return " [" + number(ci[0], digits, scale) + ", " + number(ci[1], digits, scale) + "]";
}

const json& runs_of(const json& summary) {
  static const json kEmpty = json::array();
  const json& runs = json_member(summary, "runs");
  return runs.is_array() ? runs : kEmpty;
}

// A speedup's estimate (NaN when null or absent).
double estimate_of(const json& run) {
  const json& e = json_member(json_member(run, "speedup_vs_baseline"), "estimate");
  return e.is_number() ? e.get<double>() : NAN;
}

// "85%" or "85.5%": the target as the headline names it.
QString percent(double target) {
  return QString::number(100 * target, 'g', 3) + "%";
}

// A time to target in ms with three significant digits; "not reached" when the summary has none.
QString finish_text(const json& run) {
  const json& t = json_member(json_member(run, "time_to_accuracy"), "estimate_s");
  return t.is_number() ? QString::number(1e3 * t.get<double>(), 'g', 3) + " ms"
                       : QString("not reached");
}

// An end of the speedup interval: null is unbounded above (a miss ranked worst), "∞".
QString speedup_end(const json& v) {
  return v.is_number() ? QString::number(v.get<double>(), 'f', 2) : QString("∞");
}

}  // namespace

QStringList compare_row_cells(const json& r) {
  const json& seeds = json_member(r, "seeds");
  const json& acc = json_member(seeds, "final_test_accuracy");
  const json& tta = json_member(r, "time_to_accuracy");
  const json& speed = json_member(r, "speedup_vs_baseline");
  const json& delta = json_member(r, "accuracy_delta_vs_baseline");
  const double iterations = r.value("iterations", 0.0);
  const double bytes =
      json_member(r, "bytes_on_wire").is_number() ? r["bytes_on_wire"].get<double>() : NAN;
  QStringList cells;
  cells << QString::fromStdString(r.value("name", std::string()));
  cells << number(json_member(seeds, "n"), 0);
  cells << number(json_member(acc, "mean"), 2, 100, "%") +
               interval(json_member(acc, "ci95"), 2, 100);
  cells << (iterations > 0
                ? number(json(1e3 * r.value("sim_time_s", 0.0) / iterations), 3, 1, " ms")
                : QString("–"));
  cells << (tta.is_object() ? QString("%1/%2, %3%4")
                                  .arg(tta.value("reached", 0))
                                  .arg(tta.value("seeds", 0))
                                  .arg(number(json_member(tta, "estimate_s"), 2, 1e3, " ms"))
                                  .arg(interval(json_member(tta, "ci95_s"), 2, 1e3))
                            : QString("–"));
  cells << (speed.is_object() ? number(json_member(speed, "estimate"), 2, 1, "x") +
                                    interval(json_member(speed, "ci95"), 2) + " " +
                                    QString::fromStdString(speed.value("verdict", std::string()))
                              : QString("baseline"));
  cells << (delta.is_object() ? number(json_member(delta, "estimate"), 2, 100, " pts") +
                                    interval(json_member(delta, "ci95"), 2, 100)
                              : QString("–"));
  cells << (iterations > 0 && std::isfinite(bytes) ? long_bytes(bytes / iterations) : QString("–"));
  return cells;
}

double race_finish_s(const json& summary, int row) {
  const json& runs = runs_of(summary);
  if (row < 0 || row >= static_cast<int>(runs.size())) return NAN;
  const json& t =
      json_member(json_member(runs[static_cast<size_t>(row)], "time_to_accuracy"), "estimate_s");
  return t.is_number() ? t.get<double>() : NAN;
}

RaceHeadline race_headline(const json& summary, int row) {
  RaceHeadline h;
  h.number = "–";
  const json& runs = runs_of(summary);
  // The arms: runs compared against a baseline (the baseline itself has no speedup).
  std::vector<int> arms;
  for (size_t k = 0; k < runs.size(); ++k)
    if (json_member(runs[k], "speedup_vs_baseline").is_object())
      arms.push_back(static_cast<int>(k));
  if (arms.empty()) {
    h.verdict = runs.empty() ? "Run a comparison: the speedup over the baseline shows here."
                             : "One run: add another to race it against the baseline.";
    return h;
  }
  if (row < 0 || row >= static_cast<int>(runs.size())) {
    row = arms.front();
    double best = NAN;
    for (int k : arms) {
      const double e = estimate_of(runs[static_cast<size_t>(k)]);
      if (!std::isnan(e) && !(e <= best)) {  // !(e <= NaN) holds for the first estimate
        best = e;
        row = k;
      }
    }
  }
  const json& run = runs[static_cast<size_t>(row)];
  h.row = row;
  h.run = QString::fromStdString(run.value("name", std::string()));
  const json& target = json_member(json_member(run, "time_to_accuracy"), "target");
  const QString to = target.is_number() ? percent(target.get<double>()) : QString("the target");
  const json& speed = json_member(run, "speedup_vs_baseline");
  if (!speed.is_object()) {
    h.number = "1×";
    h.verdict = "is the baseline the others race to " + to + " test accuracy";
    h.times = "time to " + to + ": " + finish_text(run) + " (median over seeds)";
    return h;
  }
  const QString baseline = QString::fromStdString(speed.value("baseline", std::string("baseline")));
  const double estimate = estimate_of(run);
  const std::string verdict = speed.value("verdict", std::string());
  if (std::isfinite(estimate)) h.number = QString::number(estimate, 'f', 2) + "×";
  h.verdict = (verdict == "faster"         ? "faster than " + baseline
               : verdict == "slower"       ? "slower than " + baseline
               : verdict == "within noise" ? "within noise of " + baseline
                                           : "against " + baseline + ", undetermined") +
              " to " + to + " test accuracy";
  if (!std::isfinite(estimate)) h.verdict = "neither run reached " + to + " in any paired seed";
  const json& ci = json_member(speed, "ci95");
  const int pairs = speed.value("pairs", 0);
  h.interval = (ci.is_array() && ci.size() == 2
                    ? "95% interval [" + speedup_end(ci[0]) + ", " + speedup_end(ci[1]) + "]"
                    : QString("no interval")) +
               QString(", %1 paired seed%2").arg(pairs).arg(pairs == 1 ? "" : "s");
  int base_row = -1;
  for (size_t k = 0; k < runs.size(); ++k)
    if (QString::fromStdString(runs[k].value("name", std::string())) == baseline)
      base_row = static_cast<int>(k);
  h.times =
      "time to " + to + ": " + finish_text(run) +
      (base_row >= 0 ? ", " + baseline + " " + finish_text(runs[static_cast<size_t>(base_row)])
                     : QString()) +
      " (medians over seeds)";
  return h;
}

const json& json_member(const json& j, const char* key) {
  static const json kNull;
  return j.is_object() && j.contains(key) ? j[key] : kNull;
}

}  // namespace commlab::ui
