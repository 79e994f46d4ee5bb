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

void print_seed_stats(const RunResult& run, const RunResult& baseline, double target) {
  if (std::isnan(run.summary.final_train_loss)) return;  // a catalog run: no accuracy
  const nlohmann::json j = seed_stats_json(run, baseline);
  const int n = j["n"].get<int>();
  if (n > 1)
    std::fprintf(stderr, "%-28s over %d seeds (95%% CI): acc %s  loss %s  sim %s ms\n", "", n,
                 interval_text(j["final_test_accuracy"], 4).c_str(),
                 interval_text(j["final_train_loss"], 4).c_str(),
                 interval_text(j["sim_time_s"], 3, 1e3).c_str());
  const nlohmann::json& tta = j["time_to_accuracy_s"];
  std::string line = "time to acc " + std::to_string(target).substr(0, 5) + ": ";
  if (tta["reached"].get<int>() == 0) {
    line += "not reached";
  } else {
    line += interval_text(tta, 3, 1e3) + " ms, " + interval_text(j["iterations_to_accuracy"], 0) +
            " it (" + std::to_string(tta["reached"].get<int>()) + "/" + std::to_string(n) +
            " seeds)";
    if (&run != &baseline) {
      const nlohmann::json& sp = j["time_to_accuracy_speedup"];
      line += "; speedup vs " + j["baseline"].get<std::string>() + " " +
              (sp["mean"].is_null() ? std::string("n/a") : interval_text(sp, 3, 1, "x"));
      const nlohmann::json& noise = tta["within_noise_of_baseline"];
      if (noise.is_boolean()) line += noise.get<bool>() ? " (within noise)" : " (outside noise)";
    }
  }
  std::fprintf(stderr, "%-28s %s\n", "", line.c_str());
}

namespace {

using nlohmann::json;

// interval_text with the report's "±".
std::string pm(const json& metric, int digits, double scale = 1, const std::string& unit = "") {
  std::string s = interval_text(metric, digits, scale, unit);
  const size_t at = s.find(" +- ");
  return at == std::string::npos ? s : s.replace(at, 4, " ± ");
}

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string noise(const json& metric) {
  const json& w = metric.value("within_noise_of_baseline", json(nullptr));
  if (!w.is_boolean()) return "no interval to compare (fewer than 2 seeds with a value)";
  return w.get<bool>() ? "within noise of the baseline" : "outside the baseline's interval";
}

}  // namespace

void skipreduce_tta_rows(Report& r, const json& summary, const std::string& command, int ranks,
                         double target) {
  const json* base = nullptr;
  for (const json& run : summary["runs"])
    if (run["name"] == run["seeds"]["baseline"]) base = &run;
  if (!base) throw std::runtime_error("skipreduce_tta: no baseline run in summary.json");
  const json& bs = (*base)["seeds"];
  const std::string acc = fixed(100 * target, 0) + "%";
  const std::string n = "N=" + std::to_string(bs["n"].get<int>()) + " seeds, 95% CI";
  r.row("time to " + acc + " / final accuracy, ring all-reduce (baseline)", "1.00x",
        pm(bs["time_to_accuracy_s"], 2, 1e3, " ms") + " / " + pm(bs["final_test_accuracy"], 3) +
            " (" + n + ")",
        command,
        std::to_string(bs["time_to_accuracy_s"]["reached"].get<int>()) + " of " +
            std::to_string(bs["n"].get<int>()) +
            " seeds reach the target (evaluated every training.eval_every iterations; a seed "
            "that never does is left out of the mean)");
  for (const json& run : summary["runs"]) {
    if (&run == base) continue;
    const std::string name = run["name"];
    const size_t dash = name.rfind("-s");
    const int s = dash == std::string::npos ? 0 : std::stoi(name.substr(dash + 2));
    const std::string policy = name.substr(0, dash);
    const json& st = run["seeds"];
    const json& sp = st["time_to_accuracy_speedup"];
    const int reached = st["time_to_accuracy_s"]["reached"].get<int>();
    const std::string speed = sp["mean"].is_null() ? "target not reached" : pm(sp, 2, 1, "x");
    const double ideal = 2.0 * (ranks - 1) / (2.0 * (ranks - 1) - s);
    r.row("time-to-accuracy speedup / final accuracy, " + policy + " s=" + std::to_string(s) +
              " (" + fixed(100.0 * s / ranks, 1) + "%)",
          "up to 1.58x (abstract, 8 GPUs)",
          speed + " / " + pm(st["final_test_accuracy"], 3) + " (" + n + ")", command,
          "TTA " + pm(st["time_to_accuracy_s"], 2, 1e3, " ms") + " (" + std::to_string(reached) +
              "/" + std::to_string(st["n"].get<int>()) + " reached), " +
              noise(st["time_to_accuracy_s"]) + "; accuracy " + noise(st["final_test_accuracy"]) +
              "; ideal communication speedup 2(N-1)/(2(N-1)-s) = " + fixed(ideal, 2) + "x");
  }
}

}  // namespace commlab::cli
