// commlab-cli: the headless engine. Thin: parse arguments, hand off to a registered subcommand.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "cli/command.h"
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
// Every number flag of every subcommand refuses NaN and infinities (issue #21): CLI11's range
// checks compare, and every comparison with NaN is false, so `--lr nan` used to pass them. Checked
// before CLI11 parses, so the message is the same whatever other check the flag has.
std::string non_finite_flag(CLI::App& app, int argc, char** argv) {
  CLI::App* sub = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string token = argv[i], value;
    // The subcommand, or a subcommand of it (view topology): its flags are the ones checked.
    CLI::App* parent = sub ? sub : &app;
    auto named = parent->get_subcommands([&](CLI::App* s) { return s->get_name() == token; });
    if (!named.empty()) sub = named.front();
    if (!sub || !named.empty()) continue;
    if (!token.starts_with("-")) continue;
    if (auto eq = token.find('='); eq != std::string::npos)
      value = token.substr(eq + 1), token.resize(eq);
    else if (i + 1 < argc)
      value = argv[i + 1];
    const CLI::Option* option = sub->get_option_no_throw(token);
    if (!option || option->get_type_name().rfind("FLOAT", 0) != 0) continue;
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end != value.c_str() && *end == '\0' && !std::isfinite(v))
      return token + ": expected a finite number, got " + value;
  }
  return "";
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
      "cluster (contract: CLI.md)",
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
  if (std::string bad = non_finite_flag(app, argc, argv); !bad.empty()) {
    std::cerr << "commlab-cli: " << bad << " (see --help)\n";
    return kExitInvalid;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line on stderr, exit 2 (CLI.md): CLI11's own exit() would print a multi-line help hint.
    std::cerr << "commlab-cli: " << e.what() << " (see --help)\n";
    return kExitInvalid;
  }
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
