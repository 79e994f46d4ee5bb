#pragma once
// Errors as values at the engine's boundary, as Abseil does: a Status {code, field, message} says
// what kind of failure (which the CLI maps to its exit status and Python to its exception), which
// field is at fault (a JSON path, a flag or a Python argument: each door names its own) and why.
// StatusOr<T> holds a T or a Status. Exceptions stay for broken internal invariants
// (std::logic_error: "internal error", exit 1); a Status crosses an exception boundary as
// StatusError, which keeps all three parts.
//
// Result<T> is the lighter form for hot paths that only need a message (codec frames).
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace commlab {

enum class ErrorCode {
  kBadInput,   // the configuration, a flag or an argument is wrong: the user fixes it (exit 2)
  kFailedRun,  // the input was fine but the run failed (exit 1)
  kInternal,   // an engine limit or bug, not the user's input (exit 1)
};

// The exit status of docs/cli.md ("Exit codes"): 2 for invalid input, 1 for a failed run.
int exit_status(ErrorCode code);
// "bad_input", "failed_run", "internal": the code's name (Python's InvalidInput.code).
const char* code_name(ErrorCode code);

struct Status {
  ErrorCode code = ErrorCode::kBadInput;
  std::string field;  // "training.ranks", "--skip", "skip"; "" when no one field is at fault
  std::string message;
  // "field: message", or the message alone when there is no field: the one place the user's line
  // is made.
  std::string text() const;
  bool operator==(const Status&) const = default;
};

// A bad-input Status naming `field`.
inline Status invalid_input(std::string field, std::string message) {
  return Status{ErrorCode::kBadInput, std::move(field), std::move(message)};
}

// A Status thrown across code that reports by exception (the engine's run-time refusals); what()
// is status.text(). An invalid_argument, so callers that catch bad input keep catching it.
struct StatusError : std::invalid_argument {
  explicit StatusError(Status s);
  StatusError(std::string field, std::string message);  // a kBadInput status
  Status status;
};

// The engine's refusal of the user's input where the refusing code reports by exception: a
// kBadInput StatusError (exit 2; Python's InvalidInput) whose what() is `message`. Core throws
// bad input only this way (never a bare std::invalid_argument: scripts/check_error_style.py);
// engine limits and broken invariants are std::logic_error (kInternal), and failures outside
// the input (a full disk, a vanished peer) std::runtime_error (kFailedRun).
[[nodiscard]] inline StatusError bad_input(std::string message) {
  return StatusError(invalid_input("", std::move(message)));
}

// A value or the Status that says why there is none. value() on an error throws StatusError with
// that Status (never bad_variant_access), so a forgotten check still reports the user's problem.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  StatusOr(Status status) : v_(std::move(status)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& {
    check();
    return std::get<0>(v_);
  }
  T& value() & {
    check();
    return std::get<0>(v_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(v_));
  }
  const T& operator*() const { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  // The error; only when !ok().
  const Status& status() const { return std::get<1>(v_); }

 private:
  void check() const {
    if (!ok()) throw StatusError(std::get<1>(v_));
  }
  std::variant<T, Status> v_;
};

struct Error {
  std::string message;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const std::string& error() const { return std::get<1>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(std::string message) {
  return Error{std::move(message)};
}

}  // namespace commlab
