// Reading and parsing scenario text with hostile-input limits: file size, nesting depth, and JSON
// syntax errors reported as FILE:LINE:COL on one line.

#include "numeric/input_file.h"
#include "scenario/scenario.h"
#include "scenario/schema.h"

namespace commlab {
namespace {

// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix.
std::string bare_message(const std::string& what) {
  size_t col = what.find("column ");
  size_t colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
  if (colon != std::string::npos) return what.substr(colon + 2);
  size_t bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

}  // namespace

ScenarioError::ScenarioError(std::vector<std::string> list)
    : std::invalid_argument([&] {
        std::string all;
        for (const auto& p : list) all += (all.empty() ? "" : "\n") + p;
        return all;
      }()),
      problems(std::move(list)) {}

Experiment parse_scenario_text(const std::string& text, const std::string& file,
                               const std::vector<std::string>& sets) {
  auto fail = [&](const std::string& msg) { throw ScenarioError({file + ":" + msg}); };
  if (text.size() > kMaxScenarioBytes)
    fail(" file too large (" + std::to_string(text.size()) + " bytes, at most " +
         std::to_string(kMaxScenarioBytes) + ")");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    fail(" empty file (expected a JSON object)");
  if (auto at = json_too_deep(text, kMaxNestingDepth))
    fail(line_col(text, *at) + ": nesting deeper than " + std::to_string(kMaxNestingDepth) +
         " levels");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fail(line_col(text, e.byte == 0 ? 0 : e.byte - 1) +
         ": invalid JSON: " + bare_message(e.what()));
  } catch (const nlohmann::json::exception& e) {
    fail(" invalid JSON: " + bare_message(e.what()));
  }
  return parse_scenario(doc, file, sets);
}

Experiment load_scenario(const std::string& path, const std::vector<std::string>& sets) {
  std::string text;
  try {
    text = read_input_file(path, kMaxScenarioBytes, "scenario file");
  } catch (const std::invalid_argument& e) {
    throw ScenarioError({e.what()});
  }
  return parse_scenario_text(text, path, sets);
}

}  // namespace commlab
