#include "cli/util/command_line_util.h"

#include <algorithm>
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

// "unknown subcommand 'x' (expected one of: ...)": CLI11's "A subcommand is required" did not
// say that the word was not one.
std::optional<int> unknown_subcommand(const std::vector<std::string>& args) {
  const auto& registry = command_registry();
  if (args.size() < 2 || args[1].starts_with("-") ||
      std::any_of(registry.begin(), registry.end(),
                  [&](const Command& c) { return c.name == args[1]; }))
    return std::nullopt;
  std::string names;
  for (const Command& c : registry) names += (names.empty() ? "" : ", ") + c.name;
  std::cerr << "commlab-cli: unknown subcommand '" << args[1].substr(0, 80)
            << "' (expected one of: " << names << ")\n";
  return kExitInvalid;
}

}  // namespace

void add_commands(CLI::App& app, std::function<int()>& action) {
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("commlab-cli ") + commlab::commlab_version());
  auto& registry = command_registry();
  std::sort(registry.begin(), registry.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  for (Command& command : registry) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    auto run = command.setup(*sub);
    sub->callback([&action, run] { action = run; });
  }
}

int run_command_line(const std::vector<std::string>& args) {
  CLI::App app{
      "CommLab headless engine: collectives, codecs, trimming and training on a simulated "
      "cluster (contract: docs/cli.md)",
      "commlab-cli"};
  std::function<int()> action;
  add_commands(app, action);
  if (std::optional<int> status = unknown_subcommand(args)) return *status;
  std::vector<char*> argv;
  std::vector<std::string> words = args;
  for (std::string& w : words) argv.push_back(w.data());
  const int argc = static_cast<int>(argv.size());
  if (std::optional<int> status = parse_flags(app, argc, argv.data(), "commlab-cli"))
    return *status;
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

}  // namespace commlab::cli
