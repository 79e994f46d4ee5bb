#include "scenario/run/results_io.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "io/staged_files.h"
#include "scenario/run/class_accuracy.h"
#include "scenario/run/equivalent_runs.h"
#include "scenario/run/rank_stats.h"
#include "scenario/run/seed_stats.h"

namespace commlab {

const char* commlab_version() {
  return COMMLAB_VERSION;
}

namespace {

// Shortest text that reads back to the same double (so files are stable and exact).
std::string number(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

nlohmann::json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// Holm's adjustment across the experiment's arms: every speedup_vs_baseline with a p-value gets
// "p_holm" (holm_adjust over the distinct arms; an arm equal to an earlier one takes that one's,
// counted once) and "holm_family" (how many distinct arms were adjusted together).
void add_holm(nlohmann::json& runs, const std::vector<EquivalentRun>& same) {
  std::vector<size_t> twin(runs.size());
  for (size_t k = 0; k < runs.size(); ++k) twin[k] = k;
  for (const EquivalentRun& e : same) twin[e.run] = twin[e.same_as];
  std::vector<double> p;
  std::vector<size_t> member;  // the runs whose p-value is in the family, in order
  for (size_t k = 0; k < runs.size(); ++k) {
    if (twin[k] != k || !runs[k].contains("speedup_vs_baseline")) continue;
    const nlohmann::json& v = runs[k]["speedup_vs_baseline"]["p_value"];
    if (!v.is_number()) continue;
    p.push_back(v.get<double>());
    member.push_back(k);
  }
  const std::vector<double> adjusted = holm_adjust(p);
  std::vector<double> holm(runs.size(), std::nan(""));
  for (size_t i = 0; i < member.size(); ++i) holm[member[i]] = adjusted[i];
  for (size_t k = 0; k < runs.size(); ++k) {
    if (!runs[k].contains("speedup_vs_baseline")) continue;
    runs[k]["speedup_vs_baseline"]["p_holm"] = finite_or_null(holm[twin[k]]);
    runs[k]["speedup_vs_baseline"]["holm_family"] = member.size();
  }
}

// Sample::class_accuracy in one CSV cell: the classes' accuracies in class order, separated by ';'
// (a class without test rows empty), so the header stays the same for every data set.
std::string class_accuracy_cell(const std::vector<double>& accuracy) {
  std::string out;
  for (size_t k = 0; k < accuracy.size(); ++k) out += (k ? ";" : "") + number(accuracy[k]);
  return out;
}

}  // namespace

const std::vector<std::string>& series_columns() {
  static const std::vector<std::string> columns = {"run",
                                                   "iteration",
                                                   "sim_time_s",
                                                   "wall_time_s",
                                                   "train_loss",
                                                   "test_loss",
                                                   "test_accuracy",
                                                   "grad_norm",
                                                   "lr",
                                                   "bytes_on_wire",
                                                   "compute_time_s",
                                                   "comm_time_s",
                                                   "codec_time_s",
                                                   "comm_total_s",
                                                   "codec_total_s",
                                                   "skipped_contributions",
                                                   "trimmed_packets",
                                                   "nmse",
                                                   "divergence",
                                                   "ratio",
                                                   "effective_bits",
                                                   "worst_class_accuracy",
                                                   "class_accuracy"};
  return columns;
}

std::string summary_json(const std::string& experiment, const std::vector<RunResult>& runs) {
  return summary_json(experiment, runs, {});
}

std::string summary_json(const std::string& experiment, const std::vector<RunResult>& runs,
                         const std::vector<double>& target_accuracy) {
  nlohmann::json doc;
  doc["experiment"] = experiment;
  doc["version"] = commlab_version();
  doc["runs"] = nlohmann::json::array();
  const size_t baseline = baseline_run(runs);
  for (size_t k = 0; k < runs.size(); ++k) {
    const RunResult& r = runs[k];
    const RunSummary& s = r.summary;
    const double target = k < target_accuracy.size() ? target_accuracy[k] : std::nan("");
    nlohmann::json run = {
        {"name", s.name},
        {"complete", r.complete},
        {"seed", s.seed},
        {"iterations", s.iterations},
        {"sim_time_s", finite_or_null(s.sim_time_s)},
        {"wall_time_s", finite_or_null(s.wall_time_s)},
        {"final_train_loss", finite_or_null(s.final_train_loss)},
        {"final_test_accuracy", finite_or_null(s.final_test_accuracy)},
        {"bytes_on_wire", s.bytes_on_wire},
        {"mean_ratio", finite_or_null(s.mean_ratio)},
        {"effective_bits", finite_or_null(s.effective_bits)},
        {"trimmed_packets", s.trimmed_packets},
        {"skipped_steps", s.skipped_steps},
        {"time_to_accuracy_s", s.time_to_accuracy_s >= 0 ? nlohmann::json(s.time_to_accuracy_s)
                                                         : nlohmann::json(nullptr)},
        {"iterations_to_accuracy", s.iterations_to_accuracy >= 0
                                       ? nlohmann::json(s.iterations_to_accuracy)
                                       : nlohmann::json(nullptr)},
        {"seeds", seed_stats_json(r, runs[baseline])}};
    if (!s.timed_as.empty()) run["timed_as"] = s.timed_as;  // workload.time_as
    // time_to_accuracy, speedup_vs_baseline, accuracy_delta_vs_baseline (seed_stats.h).
    run.update(tta_stats_json(r, runs[baseline], target));
    run.update(class_accuracy_json(r, runs[baseline]));  // classification runs only
    doc["runs"].push_back(std::move(run));
  }
  const std::vector<EquivalentRun> same = equivalent_runs(runs);
  if (!same.empty()) doc["equivalent_runs"] = equivalent_runs_json(runs, same);
  add_holm(doc["runs"], same);
  return doc.dump(2) + "\n";
}

std::string series_header() {
  std::string out;
  const auto& cols = series_columns();
  for (size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + cols[i];
  return out + "\n";
}

std::string series_row(const std::string& run, const Sample& s) {
  std::ostringstream out;
  std::string quoted = "\"";  // RFC 4180: a quote inside a field is doubled
  for (char c : run) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  out << quoted << '"' << ',' << s.iteration << ',' << number(s.sim_time_s) << ','
      << number(s.wall_time_s) << ',' << number(s.train_loss) << ',' << number(s.test_loss) << ','
      << number(s.test_accuracy) << ',' << number(s.grad_norm) << ',' << number(s.lr) << ','
      << s.bytes_on_wire << ',' << number(s.compute_time_s) << ',' << number(s.comm_time_s) << ','
      << number(s.codec_time_s) << ',' << number(s.comm_total_s) << ',' << number(s.codec_total_s)
      << ',' << s.skipped_contributions << ',' << s.trimmed_packets << ',' << number(s.nmse) << ','
      << number(s.divergence) << ',' << number(s.ratio) << ',' << number(s.effective_bits) << ','
      << number(worst_class_accuracy(s.class_accuracy).accuracy) << ','
      << class_accuracy_cell(s.class_accuracy) << "\n";
  return out.str();
}

std::string series_csv(const std::vector<RunResult>& runs) {
  std::string out = series_header();
  for (const RunResult& r : runs)
    for (const Sample& s : r.samples) out += series_row(r.summary.name, s);
  return out;
}

void check_simulated_write_failure(const std::string& path) {
  const char* name = std::getenv("COMMLAB_FAIL_WRITE");
  if (name && *name && std::filesystem::path(path).filename() == name)
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(ENOSPC));
}

void write_file(const std::string& path, const std::string& text) {
  check_simulated_write_failure(path);
  write_file_atomically(path, text);
}

}  // namespace commlab
