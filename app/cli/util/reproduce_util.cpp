#include "cli/util/reproduce_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "cli/util/command_line_util.h"
#include "cli/util/experiment_files_util.h"
#include "cli/util/results_dir_util.h"
#include "io/json_input.h"
#include "scenario/run/experiment_runner.h"
#include "scenario/scenario.h"

namespace commlab::cli {

namespace {
std::string self_exe() {
  return std::filesystem::read_symlink("/proc/self/exe").string();
}
}  // namespace

std::string samples_path(const std::string& relative) {
  if (std::filesystem::exists(relative)) return relative;
  const auto installed = std::filesystem::path(self_exe()).parent_path().parent_path() / "share" /
                         "commlab" / relative;
  if (std::filesystem::exists(installed)) return installed.string();
  return std::string(COMMLAB_SOURCE_DIR) + "/" + relative;
}

void Report::section(const std::string& title, const std::string& cite) {
  sections_.push_back({title, cite, {}, {}});
}

void Report::text(const std::string& paragraph) {
  if (sections_.empty()) section("Results");
  sections_.back().paragraphs.push_back(paragraph);
}

void Report::row(const std::string& quantity, const std::string& paper, const std::string& theory,
                 const std::string& ours, const std::string& command, const std::string& note) {
  if (sections_.empty()) section("Results");
  Row r;
  r.quantity = quantity, r.paper = paper, r.theory = theory, r.ours = ours, r.command = command;
  // A sample's command is "run FILE " + its extra flags, which a full run leaves empty.
  r.command.erase(r.command.find_last_not_of(' ') + 1);
  r.note = note;
  sections_.back().rows.push_back(std::move(r));
}

void Report::value(double v, double lo, double hi) {
  if (sections_.empty() || sections_.back().rows.empty()) return;
  Row& r = sections_.back().rows.back();
  r.value = v, r.lo = lo, r.hi = hi;
}

void Report::log_command(const std::string& args) const {
  std::ofstream(out_ + "/commands.log", std::ios::app) << "$ commlab-cli " << args << "\n";
}

namespace {

// Points file descriptor `fd` (1: standard output, 2: standard error) at the file `path` for its
// lifetime, as a shell's `>FILE` or `2>>FILE` does: what a command prints through std::cout,
// std::cerr and C stdio alike goes there.
class DescriptorRedirect {
 public:
  DescriptorRedirect(int fd, const std::string& path, bool append) : fd_(fd) {
    flush();
    const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
    if (file < 0) throw std::runtime_error("reproduce: cannot open " + path);
    saved_ = ::dup(fd_);
    const bool ok = saved_ >= 0 && ::dup2(file, fd_) >= 0;
    ::close(file);
    if (!ok) throw std::runtime_error("reproduce: cannot redirect output to " + path);
  }
  ~DescriptorRedirect() {
    flush();
    ::dup2(saved_, fd_);
    ::close(saved_);
  }
  DescriptorRedirect(const DescriptorRedirect&) = delete;
  DescriptorRedirect& operator=(const DescriptorRedirect&) = delete;

 private:
  static void flush() {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
  }
  int fd_;
  int saved_ = -1;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

nlohmann::json Report::run(const std::string& args) {
  log_command(args);
  std::vector<std::string> words{"commlab-cli"};
  std::istringstream split(args);
  for (std::string word; split >> word;) words.push_back(word);
  const std::string out_file = out_ + "/.command_stdout";
  int status = 0;
  {
    DescriptorRedirect to_file(1, out_file, false);
    DescriptorRedirect to_log(2, out_ + "/commands.log", true);
    status = run_command_line(words);
  }
  const std::string text = read_all(out_file);
  std::filesystem::remove(out_file);
  if (status != 0)
    throw std::runtime_error("commlab-cli " + args + " failed (exit " + std::to_string(status) +
                             "; see commands.log)");
  auto brace = text.find('{');
  if (brace == std::string::npos) return nlohmann::json::object();
  return parse_json_limited(std::string_view(text).substr(brace), "commlab-cli " + args);
}

namespace {

// The `run` arguments reproduce passes ("--seeds N", "--set PATH=VALUE"); anything else is a bug
// in reproduce_command.cpp.
struct RunArgs {
  int seeds = 0;
  std::vector<std::string> sets;
};
RunArgs parse_run_args(const std::string& args) {
  RunArgs a;
  std::istringstream in(args);
  for (std::string flag, value; in >> flag;) {
    if (!(in >> value)) throw std::runtime_error("reproduce: '" + flag + "' without a value");
    if (flag == "--seeds")
      a.seeds = std::stoi(value);
    else if (flag == "--set")
      a.sets.push_back(value);
    else
      throw std::runtime_error("reproduce: unexpected run argument '" + flag + "'");
  }
  return a;
}

}  // namespace

// In this process, through the core experiment runner: the same folder, files and charts as
// `commlab-cli run SAMPLE --out DIR --quiet ARGS`, which commands.log and the report show.
ExperimentSummary Report::run_scenario(const std::string& sample, const std::string& extra_args) {
  const std::string stem = std::filesystem::path(sample).stem().string();
  const std::string dir = out_ + "/runs/" + stem;
  log_command("run " + samples_path(sample) + " --out " + dir + " --quiet " + extra_args);
  const RunArgs args = parse_run_args(extra_args);
  Experiment exp = load_scenario(samples_path(sample), args.sets);
  apply_run_overrides(exp, -1, args.seeds, "");
  ResultsDir folder(dir, "run");
  RunnerOptions options;
  options.seeds = args.seeds;
  options.series_dir = folder.path();
  const ExperimentOutcome outcome = run_experiment(exp, options);
  if (outcome.error) std::rethrow_exception(outcome.error);
  write_experiment_files(folder.path(), exp, outcome, true);
  folder.commit();
  return outcome.summary;
}

void Report::guard(const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    ++failures_;
    row("FAILED", "", "", "", "", e.what());
  }
}

void Report::write(double wall_s) const {
  std::ofstream f(out_ + "/REPORT.md");
  f << "# CommLab reproduction report\n\n"
    << "Each row: the paper's value, CommLab's value, and the `commlab-cli` command that produced "
       "it (its JSON output was read). Where they disagree, the note says why. Generated by "
       "`commlab-cli reproduce all"
    << (quick_ ? " --quick" : "") << "` in " << static_cast<int>(wall_s + 0.5)
    << " s; every command is logged in commands.log.\n";
  for (const Section& s : sections_) {
    f << "\n## " << s.title << "\n\n";
    if (!s.cite.empty()) f << s.cite << "\n\n";
    f << "| quantity | paper | formula / theory | CommLab | command | note |\n"
      << "|---|---|---|---|---|---|\n";
    for (const Row& r : s.rows)
      f << "| " << r.quantity << " | " << r.paper << " | " << r.theory << " | " << r.ours << " | "
        << (r.command.empty() ? "" : "`commlab-cli " + r.command + "`") << " | " << r.note
        << " |\n";
    for (const std::string& p : s.paragraphs) f << "\n" << p << "\n";
  }
  write_json();
  // The charts each sample's `run` drew (runs/<sample>/charts/*.png), linked relative to REPORT.md.
  std::vector<std::filesystem::path> charts;
  const std::filesystem::path runs = std::filesystem::path(out_) / "runs";
  if (std::filesystem::exists(runs))
    for (const auto& e : std::filesystem::recursive_directory_iterator(runs))
      if (e.path().extension() == ".png") charts.push_back(e.path());
  std::sort(charts.begin(), charts.end());
  if (!charts.empty()) f << "\n## Charts\n";
  std::string current;
  for (const auto& c : charts) {
    const std::string sample = c.parent_path().parent_path().filename().string();
    if (sample != current) f << "\n### " << (current = sample) << "\n\n";
    const std::string rel = std::filesystem::relative(c, out_).string();
    f << "![" << sample << " " << c.stem().string() << "](" << rel << ")\n";
  }
}

void Report::write_json() const {
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  nlohmann::json doc = {{"quick", quick_}, {"sections", nlohmann::json::array()}};
  for (const Section& s : sections_) {
    nlohmann::json rows = nlohmann::json::array();
    for (const Row& r : s.rows) {
      nlohmann::json j = {{"quantity", r.quantity},  {"paper", r.paper},     {"theory", r.theory},
                          {"commlab", r.ours},       {"command", r.command}, {"note", r.note},
                          {"value", number(r.value)}};
      j["ci95"] = std::isfinite(r.lo) && std::isfinite(r.hi) ? nlohmann::json::array({r.lo, r.hi})
                                                             : nlohmann::json();
      rows.push_back(std::move(j));
    }
    doc["sections"].push_back({{"title", s.title}, {"rows", std::move(rows)}});
  }
  std::ofstream(out_ + "/report.json") << doc.dump(1) << "\n";
}

}  // namespace commlab::cli
