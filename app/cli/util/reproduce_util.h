#pragma once
// The report of `commlab-cli reproduce`: rows of (quantity, paper, CommLab, command, note) grouped
// in sections, filled by running this binary's own subcommands and reading their JSON.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace commlab::cli {

class Report {
 public:
  Report(std::string out_dir, bool quick) : out_(std::move(out_dir)), quick_(quick) {}
  void section(const std::string& title);
  void row(const std::string& quantity, const std::string& paper, const std::string& ours,
           const std::string& command, const std::string& note);
  // Runs `commlab-cli ARGS` and returns its JSON stdout; throws std::runtime_error on failure.
  nlohmann::json run(const std::string& args);
  // Runs a sample scenario into OUT/runs/STEM and returns its summary.json.
  nlohmann::json run_scenario(const std::string& sample, const std::string& extra_args);
  // Runs a section; a failure becomes a FAILED row instead of ending the report.
  void guard(const std::function<void()>& section_body);
  void write(double wall_s) const;
  int failures() const { return failures_; }

 private:
  struct Row {
    std::string quantity, paper, ours, command, note;
  };
  struct Section {
    std::string title;
    std::vector<Row> rows;
  };
  std::string out_;
  bool quick_;
  std::vector<Section> sections_;
  int failures_ = 0;
};

// Where the samples are: ./samples when it exists, else the source tree's samples/.
std::string samples_path(const std::string& relative);

}  // namespace commlab::cli
