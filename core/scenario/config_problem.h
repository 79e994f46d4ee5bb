#pragma once
// Errors as values at the scenario-to-engine boundary (issue 34): a problem carries a code (what
// kind of failure, which the CLI maps to its exit status) and the JSON path of the field at fault
// (which the GUI marks), apart from the message. The "field: message" text users read is made in
// one place, ConfigProblem::text().
#include <stdexcept>
#include <string>
#include <vector>

namespace commlab {

enum class ErrorCode {
  kBadInput,   // the configuration or a flag is wrong: the user fixes it (CLI exit 2)
  kFailedRun,  // the input was fine but the run failed (CLI exit 1)
  kInternal,   // an engine limit or bug, not the user's input (CLI exit 1)
};

// The exit status of docs/cli.md ("Exit codes"): 2 for invalid input, 1 for a failed run.
int exit_status(ErrorCode code);

struct ConfigProblem {
  ErrorCode code = ErrorCode::kBadInput;
  std::string field;  // JSON path ("training.ranks", "techniques.trimming.levels[1]"), "" if none
  std::string message;
  // "field: message", or the message alone when there is no field.
  std::string text() const;
  bool operator==(const ConfigProblem&) const = default;
};

using ConfigProblems = std::vector<ConfigProblem>;

// text() of each problem, in order.
std::vector<std::string> problem_lines(const ConfigProblems& problems);

// A problem thrown by the engine when it refuses a configuration (the checks it repeats at run
// time); what() is problem.text(). An invalid_argument, so callers that catch bad input keep
// catching it.
struct ConfigError : std::invalid_argument {
  explicit ConfigError(ConfigProblem p);
  ConfigError(std::string field, std::string message);  // a kBadInput problem
  ConfigProblem problem;
};

// The problem an exception stands for, in one place for the CLI and the GUI: a ConfigError's own;
// any other std::invalid_argument is bad input without a field; any other std::logic_error an
// internal error (the engine throws it for its own broken preconditions); anything else a failed
// run.
ConfigProblem problem_of(const std::exception& e);

}  // namespace commlab
