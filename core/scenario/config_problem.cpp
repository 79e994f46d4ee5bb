#include "scenario/config_problem.h"

#include <utility>

namespace commlab {

int exit_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadInput: return 2;
    case ErrorCode::kFailedRun:
    case ErrorCode::kInternal: return 1;
  }
  return 1;
}

std::string ConfigProblem::text() const {
  return field.empty() ? message : field + ": " + message;
}

std::vector<std::string> problem_lines(const ConfigProblems& problems) {
  std::vector<std::string> lines;
  lines.reserve(problems.size());
  for (const ConfigProblem& p : problems) lines.push_back(p.text());
  return lines;
}

ConfigError::ConfigError(ConfigProblem p)
    : std::invalid_argument(p.text()), problem(std::move(p)) {}

ConfigError::ConfigError(std::string field, std::string message)
    : ConfigError(ConfigProblem{ErrorCode::kBadInput, std::move(field), std::move(message)}) {}

ConfigProblem problem_of(const std::exception& e) {
  if (const auto* config = dynamic_cast<const ConfigError*>(&e)) return config->problem;
  if (dynamic_cast<const std::invalid_argument*>(&e) != nullptr)
    return {ErrorCode::kBadInput, "", e.what()};
  // Any other logic_error is a broken precondition inside the engine (a buffer too short for its
  // plan, a malformed flow graph): the user's input is not at fault.
  if (dynamic_cast<const std::logic_error*>(&e) != nullptr)
    return {ErrorCode::kInternal, "", e.what()};
  return {ErrorCode::kFailedRun, "", e.what()};
}

}  // namespace commlab
