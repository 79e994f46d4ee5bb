#include "cli/reproduce_seeds_util.h"

#include <cstdio>

#include "cli/seed_report_util.h"

namespace commlab::cli {

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
