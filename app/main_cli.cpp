// commlab-cli: the headless engine. Thin: parse arguments, hand off to a registered subcommand.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "cli/command.h"

namespace commlab::cli {
std::vector<Command>& command_registry() {
  static std::vector<Command> registry;
  return registry;
}
}  // namespace commlab::cli

int main(int argc, char** argv) {
  using namespace commlab::cli;
  CLI::App app{
      "CommLab headless engine: collectives, codecs, trimming and training on a simulated "
      "cluster (contract: CLI.md)",
      "commlab-cli"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "commlab-cli 0.1.0");
  auto& registry = command_registry();
  std::sort(registry.begin(), registry.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  std::function<int()> action;
  for (Command& command : registry) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    auto run = command.setup(*sub);
    sub->callback([&action, run] { action = run; });
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
  } catch (const InvalidInput& e) {
    std::cerr << "commlab-cli: " << e.what() << "\n";
    return kExitInvalid;
  } catch (const std::invalid_argument& e) {
    std::cerr << "commlab-cli: " << e.what() << "\n";
    return kExitInvalid;
  } catch (const std::exception& e) {
    std::cerr << "commlab-cli: failed: " << e.what() << "\n";
    return kExitFailed;
  }
}
