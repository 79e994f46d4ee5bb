// Reading and parsing scenario text with hostile-input limits: file size, nesting depth, and JSON
// syntax errors reported as FILE:LINE:COL on one line.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "scenario/scenario.h"
#include "scenario/schema.h"

namespace commlab {
namespace {

std::string line_col(const std::string& text, size_t pos) {
  pos = std::min(pos, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < pos; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return std::to_string(line) + ":" + std::to_string(pos - line_start + 1);
}

// Scans brackets outside strings; returns the offset where the depth first exceeds the limit.
std::optional<size_t> too_deep(const std::string& text) {
  int depth = 0;
  bool in_string = false, escape = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxNestingDepth) return i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return std::nullopt;
}

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
  if (auto at = too_deep(text))
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
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ScenarioError({path + ": is a directory, expected a scenario file"});
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError({path + ": cannot open: " + std::strerror(errno)});
  // Read at most one byte past the limit, so a huge or endless file is refused without reading it.
  std::string text(kMaxScenarioBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxScenarioBytes)
    throw ScenarioError(
        {path + ": file too large (more than " + std::to_string(kMaxScenarioBytes) + " bytes)"});
  return parse_scenario_text(text, path, sets);
}

}  // namespace commlab
