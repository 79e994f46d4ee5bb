#pragma once
// Subcommands of commlab-cli register themselves here, one file each (app/cli/*_command.cpp), so
// that adding one never touches main_cli.cpp. Contract: docs/cli.md.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace commlab::cli {

// Exit codes of the contract (exit_status of io/status.h maps an error's code).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitInvalid = 2;

// Thrown by a command for invalid user input; main prints "commlab-cli: MESSAGE" and exits 2.
struct InvalidInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown after the error was already printed (MpiRuntime::report_everywhere): main exits with
// `code` and prints nothing more.
struct AlreadyReported : std::runtime_error {
  explicit AlreadyReported(int exit_code)
      : std::runtime_error("already reported"), code(exit_code) {}
  int code;
};

struct Command {
  std::string name;
  std::string description;
  // Adds the options to `app` and returns the action that runs once they are parsed.
  std::function<std::function<int()>(CLI::App& app)> setup;
};

std::vector<Command>& command_registry();

struct RegisterCommand {
  explicit RegisterCommand(Command command) { command_registry().push_back(std::move(command)); }
};

// Flag checks whose message names the value and what is expected (CLI11 prefixes the flag):
// CLI::PositiveNumber said "Value 0 not in range 0.000000 to 1797693..." (a 300-digit bound).
inline CLI::Validator number_above(double lo, bool inclusive, const char* what) {
  return CLI::Validator(
      [lo, inclusive, what](std::string& s) -> std::string {
        double v = 0;
        try {
          size_t used = 0;
          v = std::stod(s, &used);
          if (used != s.size()) throw std::invalid_argument(s);
        } catch (const std::exception&) {
          return "expected " + std::string(what) + ", got '" + s.substr(0, 80) + "'";
        }
        if (inclusive ? v >= lo : v > lo) return "";
        return "expected " + std::string(what) + ", got " + s.substr(0, 80);
      },
      what);
}
inline const CLI::Validator kPositive = number_above(0, false, "a number > 0");
inline const CLI::Validator kNonNegative = number_above(0, true, "a number >= 0");
// A path flag given as "": the empty value would read as "not given" (workload --trace "").
inline const CLI::Validator kNonEmpty(
    [](std::string& s) {
      return s.empty() ? std::string("expected a path, got an empty value") : "";
    },
    "PATH");

}  // namespace commlab::cli
