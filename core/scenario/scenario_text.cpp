// Reading and parsing scenario text with hostile-input limits: file size, nesting depth, and JSON
// syntax errors reported as FILE:LINE:COL on one line (parse_json_limited).

#include "numeric/input_file.h"
#include "numeric/json_input.h"
#include "scenario/scenario.h"
#include "scenario/schema.h"

namespace commlab {

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
  nlohmann::json doc;
  try {
    doc = parse_json_limited(text, file, kMaxNestingDepth);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError({e.what()});
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
