#pragma once
// The message of the exception a call throws, for tests that check an error's exact text.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace commlab::testing {

// Calls `fn` and returns what() of the E it throws. When `fn` returns normally the test fails and
// the result is "(no error)", so the caller's comparison fails too and names its own line. An
// exception of another type propagates (gtest reports it as a failure of the test).
template <typename E = std::invalid_argument, typename Fn>
std::string error_of(Fn&& fn) {
  try {
    std::forward<Fn>(fn)();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception, but the call returned normally";
  return "(no error)";
}

}  // namespace commlab::testing
