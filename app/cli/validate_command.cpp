// commlab-cli validate: checks a scenario file and prints every problem, one line each
// (docs/cli.md). Also regenerates the field reference of docs/scenario.md and
// docs/scenario.schema.json from the field table, so the docs never drift from the parser.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "scenario/runner.h"
#include "scenario/scenario.h"
#include "scenario/schema.h"

namespace commlab::cli {
namespace validate_command {
namespace {

struct ValidateOptions {
  std::string scenario;
  std::vector<std::string> sets;
  bool print = false;
  bool print_docs = false;
  bool print_schema = false;
  std::string write_docs;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidInput(path + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_all(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error(path + ": cannot write");
}

int write_docs(const std::string& dir) {
  const std::string md = dir + "/scenario.md";
  write_all(md, splice_generated_docs(read_all(md), scenario_fields_markdown()));
  write_all(dir + "/scenario.schema.json", scenario_json_schema().dump(2) + "\n");
  return kExitOk;
}

int run(const ValidateOptions& o) {
  if (!o.write_docs.empty()) return write_docs(o.write_docs);
  if (o.print_docs) {
    std::cout << scenario_fields_markdown();
    return kExitOk;
  }
  if (o.print_schema) {
    std::cout << scenario_json_schema().dump(2) << "\n";
    return kExitOk;
  }
  if (o.scenario.empty()) throw InvalidInput("validate: expected a SCENARIO.json argument");
  try {
    Experiment exp = load_scenario(o.scenario, o.sets);
    // Every check run makes before training starts, through the function RunSession uses.
    int problems = 0;
    for (const RunConfig& config : exp.runs)
      if (auto bad = check_run_startable(config); bad && ++problems)
        std::cerr << o.scenario << ": run '" << config.name << "': " << bad->text() << "\n";
    if (problems) return kExitInvalid;
    if (o.print) std::cout << exp.resolved.dump(2) << "\n";
    return kExitOk;
  } catch (const ScenarioError& e) {
    for (const auto& line : e.lines()) std::cerr << line << "\n";
    return kExitInvalid;
  }
}

RegisterCommand reg{Command{
    "validate",
    "Checks a scenario file: prints nothing and exits 0 when valid, else every problem as "
    "FILE:JSON.PATH: message and exits 2 (docs/scenario.md)",
    [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<ValidateOptions>();
      app.add_option("scenario", o->scenario, "Scenario file (JSON)");
      app.add_option("--set", o->sets,
                     "Override a field: PATH=VALUE (VALUE as JSON, else a string)")
          ->allow_extra_args(false);
      app.add_flag("--print", o->print,
                   "Print the scenario as run (defaults filled, runs expanded)");
      app.add_flag("--print-docs", o->print_docs, "Print the generated field reference (Markdown)");
      app.add_flag("--print-schema", o->print_schema, "Print the JSON Schema of scenario files");
      app.add_option(
          "--write-docs", o->write_docs,
          "Regenerate DIR/scenario.md (between its markers) and DIR/scenario.schema.json");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace validate_command
}  // namespace commlab::cli
