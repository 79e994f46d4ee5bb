#include "scenario/config_problem.h"

namespace commlab {

std::vector<std::string> problem_lines(const ConfigProblems& problems) {
  std::vector<std::string> lines;
  lines.reserve(problems.size());
  for (const ConfigProblem& p : problems) lines.push_back(p.text());
  return lines;
}

ConfigProblem problem_of(const std::exception& e) {
  if (const auto* status = dynamic_cast<const StatusError*>(&e)) return status->status;
  if (dynamic_cast<const std::invalid_argument*>(&e) != nullptr)
    return {ErrorCode::kBadInput, "", e.what()};
  // Any other logic_error is a broken precondition inside the engine (a buffer too short for its
  // plan, a malformed flow graph): the user's input is not at fault.
  if (dynamic_cast<const std::logic_error*>(&e) != nullptr)
    return {ErrorCode::kInternal, "", e.what()};
  return {ErrorCode::kFailedRun, "", e.what()};
}

std::exception_ptr exception_of(const ConfigProblem& problem) {
  switch (problem.code) {
    case ErrorCode::kBadInput: return std::make_exception_ptr(ConfigError(problem));
    case ErrorCode::kInternal: return std::make_exception_ptr(std::logic_error(problem.text()));
    case ErrorCode::kFailedRun: break;
  }
  return std::make_exception_ptr(std::runtime_error(problem.text()));
}

}  // namespace commlab
