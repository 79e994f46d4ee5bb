// Reading and parsing scenario text with hostile-input limits: file size, nesting depth, and JSON
// syntax errors reported as FILE:LINE:COL on one line (parse_json_limited).

#include "io/input_file.h"
#include "io/json_input.h"
#include "scenario/scenario.h"
#include "scenario/schema.h"

namespace commlab {

namespace {

std::string scenario_line(const std::string& file, const ConfigProblem& p) {
  if (file.empty()) return p.text();
  return file + ":" + (p.field.empty() ? " " : "") + p.text();
}

std::string joined_lines(const std::string& file, const ConfigProblems& problems) {
  std::string all;
  for (const ConfigProblem& p : problems) all += (all.empty() ? "" : "\n") + scenario_line(file, p);
  return all;
}

// A file that cannot be read or parsed: the message of the reader names the file and the place.
[[noreturn]] void throw_unreadable(const std::invalid_argument& e) {
  throw ScenarioError("", {{ErrorCode::kBadInput, "", e.what()}});
}

}  // namespace

ScenarioError::ScenarioError(std::string file_label, ConfigProblems list)
    : std::invalid_argument(joined_lines(file_label, list)),
      file(std::move(file_label)),
      problems(std::move(list)) {}

std::vector<std::string> ScenarioError::lines() const {
  std::vector<std::string> out;
  out.reserve(problems.size());
  for (const ConfigProblem& p : problems) out.push_back(scenario_line(file, p));
  return out;
}

Experiment parse_scenario_text(const std::string& text, const std::string& file,
                               const std::vector<std::string>& sets) {
  auto fail = [&](const std::string& msg) {
    throw ScenarioError(file, {{ErrorCode::kBadInput, "", msg}});
  };
  if (text.size() > kMaxScenarioBytes)
    fail("file too large (" + std::to_string(text.size()) + " bytes, at most " +
         std::to_string(kMaxScenarioBytes) + ")");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    fail("empty file (expected a JSON object)");
  nlohmann::json doc;
  try {
    doc = parse_json_limited(text, file, kMaxNestingDepth);
  } catch (const std::invalid_argument& e) {
    throw_unreadable(e);
  }
  return parse_scenario(doc, file, sets);
}

Experiment load_scenario(const std::string& path, const std::vector<std::string>& sets) {
  std::string text;
  try {
    text = read_input_file(path, kMaxScenarioBytes, "scenario file");
  } catch (const std::invalid_argument& e) {
    throw_unreadable(e);
  }
  return parse_scenario_text(text, path, sets);
}

}  // namespace commlab
