// Fuzzes commlab-cli's flag parser: the CLI11 app of every subcommand, built by
// add_commands exactly as commlab-cli builds it (app/cli/*_command.cpp are compiled into this
// target), parsed but never run. Input: arguments separated by NUL bytes (at most 64). app.parse
// must succeed or throw a CLI::ParseError (help, version and every bad flag); a crash, another
// exception, a hang or an unbounded allocation while parsing is a finding.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cli/util/command_line_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commlab::cli;
  std::vector<std::string> args;
  const std::string all(reinterpret_cast<const char*>(data), size);
  for (size_t at = 0; at <= all.size() && args.size() < 64;) {
    size_t end = all.find('\0', at);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(at, end - at));
    at = end + 1;
  }
  CLI::App app{"fuzz", "commlab-cli"};
  std::function<int()> action;
  add_commands(app, action);
  std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
  try {
    app.parse(args);
  } catch (const CLI::ParseError&) {
  }
  return 0;  // `action` is never called: parsing only
}
