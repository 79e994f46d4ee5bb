// commlab-cli: the headless engine. Thin: parse arguments, hand off to a registered subcommand.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "cli/util/flag_parse_util.h"
#include "scenario/config_problem.h"
#include "scenario/run/results_io.h"

namespace commlab::cli {
std::vector<Command>& command_registry() {
  static std::vector<Command> registry;
  return registry;
}

namespace {

// The one place an error becomes the exit status (docs/cli.md, "Exit codes"): one line on
// stderr, "failed: " before a run's failure, "internal error: " before the engine's own broken
// precondition, and the status of the problem's code.
int report(const ConfigProblem& problem) {
  const char* kind = problem.code == ErrorCode::kBadInput   ? ""
                     : problem.code == ErrorCode::kInternal ? "internal error: "
                                                            : "failed: ";
  std::cerr << "commlab-cli: " << kind << problem.text() << "\n";
  return exit_status(problem.code);
}
}  // namespace
}  // namespace commlab::cli

int main(int argc, char** argv) {
  using namespace commlab::cli;
  // A shell's file-size limit (ulimit -f) would kill the process with SIGXFSZ in mid-write, before
  // the staged writers could remove their temporaries or say which file; ignored, the write fails
  // with EFBIG and the error path runs (one line naming the file, exit 1, earlier files intact).
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{
      "CommLab headless engine: collectives, codecs, trimming and training on a simulated "
      "cluster (contract: docs/cli.md)",
      "commlab-cli"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("commlab-cli ") + commlab::commlab_version());
  auto& registry = command_registry();
  std::sort(registry.begin(), registry.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  std::function<int()> action;
  for (Command& command : registry) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    auto run = command.setup(*sub);
    sub->callback([&action, run] { action = run; });
  }
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(registry.begin(), registry.end(),
                   [&](const Command& c) { return c.name == argv[1]; })) {
    std::string names;  // "A subcommand is required" did not say the word was not one
    for (const Command& c : registry) names += (names.empty() ? "" : ", ") + c.name;
    std::cerr << "commlab-cli: unknown subcommand '" << std::string(argv[1]).substr(0, 80)
              << "' (expected one of: " << names << ")\n";
    return kExitInvalid;
  }
  if (std::optional<int> status = parse_flags(app, argc, argv, "commlab-cli")) return *status;
  try {
    return action ? action() : kExitInvalid;
  } catch (const AlreadyReported& e) {
    return e.code;
  } catch (const InvalidInput& e) {
    return report({commlab::ErrorCode::kBadInput, "", e.what()});
  } catch (const std::exception& e) {
    return report(commlab::problem_of(e));
  }
}
