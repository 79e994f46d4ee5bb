#include "cli/seed_report_util.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "scenario/seed_stats.h"

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

}  // namespace commlab::cli
