#pragma once
// Errors as values on hot paths (the design's Abseil rule): a Result<T> holds a T or a message.
// Exceptions are kept for invalid user input at the boundary (scenario, CLI flags).
#include <string>
#include <utility>
#include <variant>

namespace commlab {

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
