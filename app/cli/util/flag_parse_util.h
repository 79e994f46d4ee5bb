#pragma once
// The one flag parser of both programs, commlab-cli and the desktop app's command line: CLI11 with
// the same checks (every number flag refuses NaN and infinities, each refusal one line naming the
// flag, exit 2), so a value refused by one is refused by the other with the same words.
#include <CLI/CLI.hpp>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "io/bounds.h"

namespace commlab::cli {

// The flag that sets a settings field: "--" and the field with dashes ("trim_rate" is --trim-rate),
// or the flag `renamed` gives the field ({"bw_gbps", "--bw"}); "" for no field.
std::string flag_for_field(const std::string& field,
                           std::initializer_list<std::pair<const char*, const char*>> renamed = {});

// "--lr: expected a finite number, got nan" for the first number flag given a NaN or an infinity,
// "" when there is none. Flags are looked up in `app` itself when it has no subcommands, else in
// the subcommand named on the command line (and its own subcommands: view topology).
std::string non_finite_flag(CLI::App& app, int argc, char** argv);

// Parses argv into `app`. Returns nothing when the program goes on; otherwise the exit status
// (0 after --help or --version, 2 after a bad flag, with one line "PROGRAM: message (see --help)"
// on stderr).
std::optional<int> parse_flags(CLI::App& app, int argc, char** argv, const std::string& program);

// The refusal of `text` as a value of a flag in `b`, "" when it is one: the settings' wording for
// a number outside the range ("expected 1 to 4096, got 0"), and "expected an integer from 1 to
// 4096, got 'abc'" (or "a number from") for text that is not one. Numbers are read as CLI11 reads
// them; an integer flag reads the value as a long long, so 5000000000 on an int flag is a number
// out of range, not a word.
template <typename T>
std::string range_problem(const Bounds<T>& b, const std::string& text) {
  if constexpr (std::is_floating_point_v<T>) {
    double v = 0;
    if (CLI::detail::lexical_cast(text, v))
      return b.contains(static_cast<T>(v)) ? "" : range_refusal(b, range_value_text(v));
  } else {
    long long v = 0;
    if (CLI::detail::lexical_cast(text, v)) {
      // Every Bounds of a flag lies within long long's range.
      const bool inside = v >= static_cast<long long>(b.lo) && v <= static_cast<long long>(b.hi);
      return inside ? "" : range_refusal(b, std::to_string(v));
    }
    unsigned long long u = 0;  // beyond long long: above every bound
    if (CLI::detail::lexical_cast(text, u)) return range_refusal(b, std::to_string(u));
  }
  const char* kind = std::is_floating_point_v<T> ? "a number" : "an integer";
  return std::string("expected ") + kind + " from " + range_value_text(b.lo) + " to " +
         range_value_text(b.hi) + ", got '" + text.substr(0, 80) + "'";
}

// A flag check from `b` (CLI11 prefixes the flag: "--tp: expected 1 to 4096, got 0"); --help
// shows it in CLI11's form for ranges, "INT in [1 - 4096]".
template <typename T>
CLI::Validator in_range(Bounds<T> b) {
  std::ostringstream help;
  help << CLI::detail::type_name<T>() << " in [" << b.lo << " - " << b.hi << "]";
  return CLI::Validator([b](std::string& text) { return range_problem(b, text); }, help.str());
}
template <typename T>
CLI::Validator in_range(T lo, T hi) {
  return in_range(Bounds<T>{lo, hi});
}

// A flag check by the engine's own check of a number: `problem(value)` is the settings' refusal,
// whose message CLI11 prefixes with the flag ("--mfu: expected a number in (0, 1], got 0"), so the
// flag and the Python argument are refused in the same words. `help` is what --help shows.
template <typename Problem>
CLI::Validator checked_by(Problem problem, std::string help) {
  return CLI::Validator(
      [problem](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v))
          return "expected a number, got '" + text.substr(0, 80) + "'";
        std::optional<Status> bad = problem(v);
        return bad ? bad->message : "";
      },
      std::move(help));
}

}  // namespace commlab::cli
