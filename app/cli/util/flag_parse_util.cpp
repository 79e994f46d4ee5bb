#include "cli/util/flag_parse_util.h"

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "cli/command.h"

namespace commlab::cli {

// CLI11's range checks compare, and every comparison with NaN is false, so `--lr nan` would pass
// them. Checked before CLI11 parses, so the message is the same whatever other check the flag has.
std::string flag_for_field(const std::string& field,
                           std::initializer_list<std::pair<const char*, const char*>> renamed) {
  if (field.empty()) return field;
  for (auto [name, flag] : renamed)
    if (field == name) return flag;
  std::string flag = "--" + field;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

std::string non_finite_flag(CLI::App& app, int argc, char** argv) {
  CLI::App* sub = app.get_subcommands([](CLI::App*) { return true; }).empty() ? &app : nullptr;
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

std::optional<int> parse_flags(CLI::App& app, int argc, char** argv, const std::string& program) {
  if (std::string bad = non_finite_flag(app, argc, argv); !bad.empty()) {
    std::cerr << program << ": " << bad << " (see --help)\n";
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
    // One line on stderr, exit 2: CLI11's own exit() would print a multi-line help hint.
    std::cerr << program << ": " << e.what() << " (see --help)\n";
    return kExitInvalid;
  }
  return std::nullopt;
}

}  // namespace commlab::cli
