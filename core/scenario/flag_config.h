#pragma once
// Command-line flags validated as scenario fields. A subcommand that takes its settings
// as flags (train, collective, run's --threads) names the field each flag sets; every value goes
// through that field's row of the table (schema.h: type, range, extra check) and a resolved run
// through the scenario's cross-field checks (scenario_checks.cpp). One set of limits, one set of
// messages, and every message names the flag the user typed instead of the field path.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/run_config.h"

namespace commlab {

// Worker threads any command may start (OpenMP teams, run --jobs); more crashed libgomp (train
// --threads 100000) or copied the model once per thread.
inline constexpr int kMaxThreads = 256;

struct FlagSetting {
  std::string flag;  // as the user types it: "--momentum"
  std::string path;  // the scenario field it sets ("training.momentum"), or a flag_only row
  nlohmann::json value;
};

// Rows for flags that set no scenario field, checked by the same check_field_value:
//   "threads"   integer in [0, kMaxThreads] (0: the default, one per core), also run --jobs
//   "link_gbps" number in (0, 1e6], a link's bandwidth in Gb/s
// Throws std::logic_error for an unknown path (a programming error, not user input).
void check_flags(const std::vector<FlagSetting>& settings);

// Validates `settings` as a scenario holding those fields would be: each value by its row; then,
// if every value passes, the run they describe (the other fields as in `base`; an empty
// cluster.spec becomes flat:<training.ranks>) by the cross-field checks. Returns that run.
// Throws std::invalid_argument with one line: every problem as "FLAG: message", joined by "; ",
// with the field paths inside messages replaced by the flags that set them.
RunConfig run_config_from_flags(const std::vector<FlagSetting>& settings, RunConfig base);

}  // namespace commlab
