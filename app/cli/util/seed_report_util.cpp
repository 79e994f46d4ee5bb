#include "cli/util/seed_report_util.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "scenario/run/seed_stats.h"

namespace commlab::cli {

std::string interval_text(const nlohmann::json& m, int digits, double scale,
                          const std::string& unit) {
  if (!m.contains("mean") || m["mean"].is_null()) return "n/a";
  std::ostringstream s;
  s.precision(digits);
  s << std::fixed << scale * m["mean"].get<double>();
  if (m["half_width"].is_null())
    s << unit << " (" << m["n"].get<int>() << (m["n"].get<int>() == 1 ? " seed" : " seeds") << ")";
  else
    s << " +- " << scale * m["half_width"].get<double>() << unit;
  return s.str();
}

double number_or_nan(const nlohmann::json& v) {
  return v.is_number() ? v.get<double>() : NAN;
}

std::vector<double> per_seed(const nlohmann::json& values) {
  std::vector<double> out;
  for (const nlohmann::json& v : values) out.push_back(number_or_nan(v));
  return out;
}

std::string format_number(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string ends_text(const nlohmann::json& ci, const char* format, double scale) {
  if (!ci.is_array() || ci.size() != 2) return "";
  auto end = [&](const nlohmann::json& v, const char* none) {
    return v.is_number() ? format_number(format, scale * v.get<double>()) : std::string(none);
  };
  return " [" + end(ci[0], "?") + ", " + end(ci[1], "inf") + "]";
}

namespace {

// "time to 83%: 8/8 reached, median 0.0251 s [0.0230, 0.0270]" (censored median, tta_stats.h).
std::string tta_line(const nlohmann::json& t, double target) {
  std::string line = "time to " + format_number("%g", 100 * target) +
                     "%: " + std::to_string(t["reached"].get<int>()) + "/" +
                     std::to_string(t["seeds"].get<int>()) + " reached";
  if (t["estimate_s"].is_null())
    return line + (t["reached"].get<int>() ? ", median not reached" : "");
  line += (t["seeds"].get<int>() > 1 ? ", median " : ", at ") +
          format_number("%#.3g", t["estimate_s"].get<double>()) + " s";
  if (t["ci95_s"].is_array()) return line + ends_text(t["ci95_s"], "%#.3g");
  return line + (t["seeds"].get<int>() > 1 ? " (no 95% interval below 6 seeds)" : "");
}

// "speedup vs baseline: 1.24x [1.12, 1.37] paired, 8/8 pairs, faster" (tta_stats.h).
std::string speedup_line(const nlohmann::json& sp) {
  std::string line = "speedup vs " + sp["baseline"].get<std::string>() + ": ";
  const std::string estimate = speedup_estimate_text(sp);
  if (estimate.empty()) return line + "n/a (no seed where a run reached the target)";
  line += estimate + ends_text(sp["ci95"], "%.2f") + " paired, " + pairs_text(sp) + ", " +
          sp["verdict"].get<std::string>();
  auto seeds = [](int k) { return std::to_string(k) + (k == 1 ? " seed" : " seeds"); };
  if (const int k = sp["arm_missed"].get<int>())
    line += " (missed the target on " + seeds(k) + " the baseline reached)";
  if (const int k = sp["baseline_missed"].get<int>())
    line += " (reached it on " + seeds(k) + " the baseline missed)";
  return line;
}

// "accuracy vs baseline: -0.12 pts [-0.40, +0.16]" (paired difference of final test accuracy).
std::string accuracy_line(const nlohmann::json& d, const std::string& baseline) {
  std::string line = "accuracy vs " + baseline + ": ";
  if (d["estimate"].is_null()) return line + "n/a";
  line += format_number("%+.2f", 100 * d["estimate"].get<double>()) + " pts";
  return line + ends_text(d["ci95"], "%+.2f", 100);
}

}  // namespace

std::string speedup_estimate_text(const nlohmann::json& sp) {
  if (sp.contains("estimate") && sp["estimate"].is_number())
    return format_number("%.2f", sp["estimate"].get<double>()) + "x";
  // summary.json writes an unbounded estimate as null too: the runs reached the target on some
  // pair, so the null is +inf (the baseline's misses rank it worst).
  if (sp.value("pairs", 0) > sp.value("both_missed", 0)) return "inf x";
  return "";
}

std::string pairs_text(const nlohmann::json& sp) {
  const int used = sp.value("pairs", 0), run = sp.value("pairs_run", used);
  const int censored = sp.value("censored", 0);
  return std::to_string(used) + "/" + std::to_string(run) + " pairs" +
         (censored > 0 ? ", " + std::to_string(censored) + " censored (misses ranked worst)" : "");
}

void print_seed_stats(const RunStats& run) {
  if (std::isnan(run.summary.final_train_loss)) return;  // a catalog run: no accuracy
  const int n = static_cast<int>(run.seeds.seeds.size());
  const nlohmann::json j = seed_stats_json(run.seeds);
  if (n > 1)
    std::fprintf(stderr, "%-28s over %d seeds (95%% CI): acc %s  loss %s  sim %s ms\n", "", n,
                 interval_text(j["final_test_accuracy"], 4).c_str(),
                 interval_text(j["final_train_loss"], 4).c_str(),
                 interval_text(j["sim_time_s"], 3, 1e3).c_str());
  if (!run.tta.time_to_accuracy) return;
  const nlohmann::json t = tta_stats_json(run.tta);
  const double target = run.tta.time_to_accuracy->target;
  std::fprintf(stderr, "%-28s %s\n", "", tta_line(t["time_to_accuracy"], target).c_str());
  if (!run.tta.vs_baseline) return;
  std::fprintf(stderr, "%-28s %s\n", "", speedup_line(t["speedup_vs_baseline"]).c_str());
  std::fprintf(
      stderr, "%-28s %s\n", "",
      accuracy_line(t["accuracy_delta_vs_baseline"], run.tta.vs_baseline->baseline).c_str());
}

namespace {

std::string grid_entry(double lr, double median_tta_s) {
  return format_number("%g", lr) + ": " +
         (std::isfinite(median_tta_s) ? format_number("%.3g", median_tta_s * 1e3) + " ms"
                                      : std::string("not reached"));
}

}  // namespace

std::string lr_grid_text(const RunTuning& tuning) {
  std::string grid;
  for (const LrTrial& t : tuning.trials)
    grid += (grid.empty() ? "" : ", ") + grid_entry(t.lr, t.median_tta_s);
  return grid;
}

using nlohmann::json;

std::string lr_grid_text(const json& tuned_run) {
  std::string grid;
  for (const json& g : tuned_run["grid"])
    grid += (grid.empty() ? "" : ", ") +
            grid_entry(g["lr"].get<double>(),
                       g["median_tta_s"].is_number() ? g["median_tta_s"].get<double>() : NAN);
  return grid;
}

const json& baseline_run(const json& summary) {
  for (const json& run : summary["runs"])
    if (run["name"] == run["seeds"]["baseline"]) return run;
  throw std::runtime_error("summary.json: no baseline run");
}

}  // namespace commlab::cli
