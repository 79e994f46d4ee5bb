#pragma once
// The one flag parser of both programs, commlab-cli and the desktop app's command line: CLI11 with
// the same checks (every number flag refuses NaN and infinities, each refusal one line naming the
// flag, exit 2), so a value refused by one is refused by the other with the same words.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace commlab::cli {

// "--lr: expected a finite number, got nan" for the first number flag given a NaN or an infinity,
// "" when there is none. Flags are looked up in `app` itself when it has no subcommands, else in
// the subcommand named on the command line (and its own subcommands: view topology).
std::string non_finite_flag(CLI::App& app, int argc, char** argv);

// Parses argv into `app`. Returns nothing when the program goes on; otherwise the exit status
// (0 after --help or --version, 2 after a bad flag, with one line "PROGRAM: message (see --help)"
// on stderr).
std::optional<int> parse_flags(CLI::App& app, int argc, char** argv, const std::string& program);

}  // namespace commlab::cli
