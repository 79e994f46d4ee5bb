#include "cli/util/seed_report_util.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "scenario/run/seed_stats.h"

namespace commlab::cli {

std::string format_number(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

double finite_or_nan(double v) {
  return std::isfinite(v) ? v : NAN;
}

std::string ends_text(bool has_interval, double lo, double hi, const char* format, double scale) {
  if (!has_interval) return "";
  auto end = [&](double v, const char* none) {
    return std::isfinite(v) ? format_number(format, scale * v) : std::string(none);
  };
  return " [" + end(lo, "?") + ", " + end(hi, "inf") + "]";
}

std::string interval_text(const Interval& iv, int digits, double scale, const std::string& unit) {
  if (!std::isfinite(iv.mean)) return "n/a";
  std::ostringstream s;
  s.precision(digits);
  s << std::fixed << scale * iv.mean;
  if (!iv.has_interval())
    s << unit << " (" << iv.n << (iv.n == 1 ? " seed" : " seeds") << ")";
  else
    s << " +- " << scale * iv.half_width << unit;
  return s.str();
}

std::string speedup_estimate_text(const PairedSpeedup& sp) {
  if (std::isfinite(sp.estimate)) return format_number("%.2f", sp.estimate) + "x";
  // No finite estimate although the runs reached the target on some pair: the baseline's misses,
  // ranked worst, make it unbounded.
  if (sp.pairs > sp.both_missed) return "inf x";
  return "";
}

std::string speedup_text(const PairedSpeedup& sp) {
  const std::string estimate = speedup_estimate_text(sp);
  if (estimate.empty()) return "target not reached in any pair";
  return estimate + ends_text(sp.has_interval(), sp.lo, sp.hi, "%.2f") + ", " + sp.verdict;
}

std::string holm_text(double p_holm, size_t family) {
  if (!std::isfinite(p_holm)) return "";
  return "; Holm-adjusted p = " + format_number("%.3g", p_holm) + " over " +
         std::to_string(family) + (family == 1 ? " arm" : " arms");
}

std::string pairs_text(const PairedSpeedup& sp) {
  return std::to_string(sp.pairs) + "/" + std::to_string(sp.pairs_run) + " pairs" +
         (sp.censored > 0 ? ", " + std::to_string(sp.censored) + " censored (misses ranked worst)"
                          : "");
}

std::string delta_text(const PairedDelta& d) {
  if (!std::isfinite(d.estimate)) return "n/a";
  return format_number("%+.2f", 100 * d.estimate) + " pts" +
         ends_text(d.has_interval(), d.lo, d.hi, "%+.2f", 100);
}

const TimeToAccuracy& time_to_accuracy_of(const RunStats& run) {
  if (!run.tta.time_to_accuracy)
    throw std::runtime_error("summary: run " + run.name() + " has no time to accuracy");
  return *run.tta.time_to_accuracy;
}

std::string tta_text(const TimeToAccuracy& t) {
  const CensoredTta& s = t.seconds;
  std::string text = std::to_string(s.reached) + "/" + std::to_string(s.seeds) + " reached";
  if (!std::isfinite(s.estimate)) return text + ", median not reached";
  return text + ", median " + format_number("%.2f", 1e3 * s.estimate) + " ms" +
         ends_text(s.has_interval(), s.lo, s.hi, "%.2f", 1e3);
}

namespace {

// "time to 83%: 8/8 reached, median 0.0251 s [0.0230, 0.0270]" (censored median, tta_stats.h).
std::string tta_line(const TimeToAccuracy& t) {
  const CensoredTta& s = t.seconds;
  std::string line = "time to " + format_number("%g", 100 * t.target) +
                     "%: " + std::to_string(s.reached) + "/" + std::to_string(s.seeds) + " reached";
  if (!std::isfinite(s.estimate)) return line + (s.reached ? ", median not reached" : "");
  line += (s.seeds > 1 ? ", median " : ", at ") + format_number("%#.3g", s.estimate) + " s";
  if (s.has_interval()) return line + ends_text(true, s.lo, s.hi, "%#.3g");
  return line + (s.seeds > 1 ? " (no 95% interval below 6 seeds)" : "");
}

// "speedup vs baseline: 1.24x [1.12, 1.37] paired, 8/8 pairs, faster" (tta_stats.h).
std::string speedup_line(const BaselineComparison& c) {
  const PairedSpeedup& sp = c.speedup;
  std::string line = "speedup vs " + c.baseline + ": ";
  const std::string estimate = speedup_estimate_text(sp);
  if (estimate.empty()) return line + "n/a (no seed where a run reached the target)";
  line += estimate + ends_text(sp.has_interval(), sp.lo, sp.hi, "%.2f") + " paired, " +
          pairs_text(sp) + ", " + sp.verdict;
  auto seeds = [](int k) { return std::to_string(k) + (k == 1 ? " seed" : " seeds"); };
  if (sp.arm_missed)
    line += " (missed the target on " + seeds(sp.arm_missed) + " the baseline reached)";
  if (sp.baseline_missed)
    line += " (reached it on " + seeds(sp.baseline_missed) + " the baseline missed)";
  return line;
}

}  // namespace

void print_seed_stats(const RunStats& run) {
  if (std::isnan(run.summary.final_train_loss)) return;  // a catalog run: no accuracy
  const SeedStats& st = run.seeds;
  const int n = static_cast<int>(st.seeds.size());
  if (n > 1)
    std::fprintf(stderr, "%-28s over %d seeds (95%% CI): acc %s  loss %s  sim %s ms\n", "", n,
                 interval_text(st.final_test_accuracy.interval, 4).c_str(),
                 interval_text(st.final_train_loss.interval, 4).c_str(),
                 interval_text(st.sim_time_s.interval, 3, 1e3).c_str());
  if (!run.tta.time_to_accuracy) return;
  std::fprintf(stderr, "%-28s %s\n", "", tta_line(*run.tta.time_to_accuracy).c_str());
  if (!run.tta.vs_baseline) return;
  const BaselineComparison& c = *run.tta.vs_baseline;
  std::fprintf(stderr, "%-28s %s\n", "", speedup_line(c).c_str());
  std::fprintf(stderr, "%-28s %s\n", "",
               ("accuracy vs " + c.baseline + ": " + delta_text(c.accuracy_delta)).c_str());
}

std::string lr_grid_text(const RunTuning& tuning) {
  std::string grid;
  for (const LrTrial& t : tuning.trials)
    grid += (grid.empty() ? "" : ", ") + format_number("%g", t.lr) + ": " +
            (std::isfinite(t.median_tta_s) ? format_number("%.3g", t.median_tta_s * 1e3) + " ms"
                                           : std::string("not reached"));
  return grid;
}

}  // namespace commlab::cli
