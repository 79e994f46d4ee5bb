#pragma once
// The report of `commlab-cli reproduce`: rows of (quantity, paper, formula or theory, CommLab,
// command, note) grouped in sections, filled by running commlab-cli's own subcommands in this
// process and reading their JSON, or, for a sample scenario, the experiment runner's typed summary.
// "paper" holds only what a paper reports (and where: abstract, table, summary); values CommLab
// computes from a formula or a theory go in their own column. REPORT.md is for people; report.json
// holds the same rows with each row's headline number and its 95% interval, for scripts that
// compare two reports.
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/run/experiment_summary.h"

namespace commlab::cli {

class Report {
 public:
  Report(std::string out_dir, bool quick) : out_(std::move(out_dir)), quick_(quick) {}
  // `cite`: the paper as a reference (authors, title, venue, DOI), printed under the title.
  void section(const std::string& title, const std::string& cite = "");
  // A paragraph under the current section's table (how the rows were made, the published method).
  void text(const std::string& paragraph);
  void row(const std::string& quantity, const std::string& paper, const std::string& theory,
           const std::string& ours, const std::string& command, const std::string& note);
  // The last row's headline number (in the units its text shows) and, over seeds, its 95%
  // interval; rows without one carry none in report.json.
  void value(double v, double lo = NAN, double hi = NAN);
  // Runs the command line `commlab-cli ARGS` (words split at spaces) in this process and returns
  // the JSON it printed; its stderr goes to commands.log. Throws std::runtime_error on failure.
  nlohmann::json run(const std::string& args);
  // Runs a sample scenario into OUT/runs/STEM in this process (the core experiment runner, as
  // `commlab-cli run SAMPLE --out OUT/runs/STEM --quiet ARGS` would; ARGS: --seeds N and --set
  // PATH=VALUE only) and returns its typed summary (the one summary.json is written from).
  ExperimentSummary run_scenario(const std::string& sample, const std::string& extra_args);
  // Runs a section; a failure becomes a FAILED row instead of ending the report.
  void guard(const std::function<void()>& section_body);
  void write(double wall_s) const;
  int failures() const { return failures_; }
  const std::string& out_dir() const { return out_; }  // run_scenario writes OUT/runs/STEM

 private:
  struct Row {
    std::string quantity, paper, theory, ours, command, note;
    double value = NAN, lo = NAN, hi = NAN;
  };
  struct Section {
    std::string title, cite;
    std::vector<Row> rows;
    std::vector<std::string> paragraphs;
  };
  void write_json() const;
  void log_command(const std::string& args) const;  // "$ commlab-cli ARGS" into commands.log
  std::string out_;
  bool quick_;
  std::vector<Section> sections_;
  int failures_ = 0;
};

// Where a file of the installed data is ("samples/quickstart.json"): relative to the working
// directory when it exists there, else under ../share/commlab next to the executable (an installed
// commlab-cli: /usr/bin -> /usr/share/commlab), else in the source tree it was built from.
std::string samples_path(const std::string& relative);

}  // namespace commlab::cli
