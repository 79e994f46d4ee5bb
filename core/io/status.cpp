#include "io/status.h"

namespace commlab {

int exit_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadInput: return 2;
    case ErrorCode::kFailedRun:
    case ErrorCode::kInternal: return 1;
  }
  return 1;
}

const char* code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadInput: return "bad_input";
    case ErrorCode::kFailedRun: return "failed_run";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

std::string Status::text() const {
  return field.empty() ? message : field + ": " + message;
}

StatusError::StatusError(Status s) : std::invalid_argument(s.text()), status(std::move(s)) {}

StatusError::StatusError(std::string field, std::string message)
    : StatusError(invalid_input(std::move(field), std::move(message))) {}

}  // namespace commlab
