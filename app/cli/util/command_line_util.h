#pragma once
// commlab-cli's command line as a function: the program (main_cli.cpp), `reproduce` (which runs
// its rows' commands in this process) and the flag fuzzer build the same CLI11 app from the
// registry of app/cli/*_command.cpp. Contract: docs/cli.md.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace commlab::cli {

// Adds every registered subcommand to `app` (sorted by name, as --help lists them) and the
// --version flag; once `app` has parsed a command line, `action` runs the chosen subcommand.
void add_commands(CLI::App& app, std::function<int()>& action);

// Parses and runs one command line (args[0] is the program name) and returns its exit status:
// 0, 1 after a failed run, 2 after bad input, each error one line "commlab-cli: ..." on std::cerr.
int run_command_line(const std::vector<std::string>& args);

}  // namespace commlab::cli
