#include "scenario/run/results_io.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "io/staged_files.h"
#include "scenario/run/class_accuracy.h"
#include "scenario/run/experiment_summary.h"

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
  return summary_text(summarize_experiment(experiment, runs, target_accuracy));
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
