#pragma once
// A refused configuration at the scenario-to-engine boundary is a Status (io/status.h): its code
// says what kind of failure (which the CLI maps to its exit status), its field the JSON path at
// fault (which the GUI marks), apart from the message. The scenario's names for the same types.
#include <exception>
#include <string>
#include <vector>

#include "io/status.h"

namespace commlab {

using ConfigProblem = Status;
using ConfigProblems = std::vector<ConfigProblem>;
// The engine's refusal of a configuration at run time (the checks it repeats when it runs).
using ConfigError = StatusError;

// text() of each problem, in order.
std::vector<std::string> problem_lines(const ConfigProblems& problems);

// The problem an exception stands for, in one place for the CLI, the GUI and Python: a
// StatusError's own status; any other std::invalid_argument is bad input without a field; any
// other std::logic_error an internal error (the engine throws it for its own broken
// preconditions); anything else a failed run.
ConfigProblem problem_of(const std::exception& e);
// The exception problem_of maps back to `problem` (bad input: a ConfigError; internal: a
// logic_error; a failed run: a runtime_error), for a problem that crossed a process boundary.
std::exception_ptr exception_of(const ConfigProblem& problem);

}  // namespace commlab
