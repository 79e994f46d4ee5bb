// Fuzzes the scenario parser (scenario/scenario.h). Input: scenario text, optionally followed by a
// NUL byte and --set overrides, one per line. parse_scenario_text must accept the scenario or
// throw ScenarioError (every problem one "FILE:..." line); any other exception, a crash, a hang
// or an unbounded allocation is a finding.
#include <string>
#include <vector>

#include "scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string all(reinterpret_cast<const char*>(data), size);
  const size_t nul = all.find('\0');
  std::string text = all.substr(0, nul);
  std::vector<std::string> sets;
  if (nul != std::string::npos) {
    std::string rest = all.substr(nul + 1);
    for (size_t at = 0; at <= rest.size() && sets.size() < 16;) {
      size_t end = rest.find('\n', at);
      if (end == std::string::npos) end = rest.size();
      if (end > at) sets.push_back(rest.substr(at, end - at));
      at = end + 1;
    }
  }
  try {
    commlab::Experiment e = commlab::parse_scenario_text(text, "fuzz.json", sets);
    if (e.runs.empty()) __builtin_trap();  // a valid scenario has at least one run
  } catch (const commlab::ScenarioError& e) {
    if (e.problems.empty()) __builtin_trap();
    for (const auto& line : e.lines())
      if (line.rfind("fuzz.json:", 0) != 0 || line.find('\n') != std::string::npos)
        __builtin_trap();  // every problem is one line that starts with the file
  }
  return 0;
}
