#pragma once
// Subcommands of commlab-cli register themselves here, one file each (app/cli/*_command.cpp), so
// that adding one never touches main_cli.cpp. Contract: ../shared/CLI.md.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace commlab::cli {

// Exit codes of the contract.
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

}  // namespace commlab::cli
