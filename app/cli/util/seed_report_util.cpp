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

void value_of(Report& r, const json& metric) {
  const json mean = metric.value("mean", json(nullptr));
  const json ci = metric.value("ci95", json(nullptr));
  r.value(mean.is_number() ? mean.get<double>() : NAN,
          ci.is_array() ? ci[0].get<double>() : NAN, ci.is_array() ? ci[1].get<double>() : NAN);
}

const json& baseline_run(const json& summary) {
  for (const json& run : summary["runs"])
    if (run["name"] == run["seeds"]["baseline"]) return run;
  throw std::runtime_error("summary.json: no baseline run");
}

void seeded_accuracy_rows(Report& r, const json& summary, const SeededRows& spec) {
  const json& base = baseline_run(summary);
  for (const json& run : summary["runs"]) {
    const json& st = run["seeds"];
    const int n = st["n"].get<int>();
    const json& tta = st["time_to_accuracy_s"];
    const int reached = tta["reached"].get<int>();
    std::string ours = pm(st["final_test_accuracy"], 3);
    if (spec.with_tta)
      ours += " / " + (reached ? pm(tta, 2, 1e3, " ms") : std::string("not reached"));
    ours += " (N=" + std::to_string(n) + (n == 1 ? " seed" : " seeds, 95% CI") + ")";
    std::string note = spec.note;
    if (&run != &base) {
      note += std::string(note.empty() ? "" : "; ") + "accuracy " + noise(st["final_test_accuracy"]);
      if (spec.with_tta && reached) note += ", time to target " + noise(tta);
    }
    if (spec.with_tta)
      note += "; " + std::to_string(reached) + "/" + std::to_string(n) + " seeds reach the target";
    r.row(spec.quantity + run["name"].get<std::string>(), spec.paper, spec.theory, ours,
          spec.command, note);
    value_of(r, st["final_test_accuracy"]);
  }
}

void skipreduce_tta_rows(Report& r, const json& summary, const std::string& command, int ranks,
                         double target) {
  const json* base = &baseline_run(summary);
  const json& bs = (*base)["seeds"];
  const std::string acc = fixed(100 * target, 0) + "%";
  const std::string n = "N=" + std::to_string(bs["n"].get<int>()) + " seeds, 95% CI";
  r.row("time to " + acc + " / final accuracy, ring all-reduce (baseline)", "", "",
        pm(bs["time_to_accuracy_s"], 2, 1e3, " ms") + " / " + pm(bs["final_test_accuracy"], 3) +
            " (" + n + ")",
        command,
        std::to_string(bs["time_to_accuracy_s"]["reached"].get<int>()) + " of " +
            std::to_string(bs["n"].get<int>()) +
            " seeds reach the target (evaluated every training.eval_every iterations; a seed "
            "that never does is left out of the mean)");
  value_of(r, bs["final_test_accuracy"]);
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
          "up to 1.58x (abstract, 8 GPUs, VGG-19/BERT/Llama)",
          "communication only: 2(N-1)/(2(N-1)-s) = " + fixed(ideal, 2) + "x",
          speed + " / " + pm(st["final_test_accuracy"], 3) + " (" + n + ")", command,
          "TTA " + pm(st["time_to_accuracy_s"], 2, 1e3, " ms") + " (" + std::to_string(reached) +
              "/" + std::to_string(st["n"].get<int>()) + " reached), " +
              noise(st["time_to_accuracy_s"]) + "; accuracy " +
              noise(st["final_test_accuracy"]));
    value_of(r, sp);
  }
}

}  // namespace commlab::cli
