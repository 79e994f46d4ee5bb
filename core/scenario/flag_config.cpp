// Flags checked by the scenario's field table and cross-field checks, with messages that name the
// flag (flag_config.h).
#include "scenario/flag_config.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "io/status.h"
#include "scenario/scenario_internal.h"
#include "scenario/schema.h"

namespace commlab {
namespace {

Field limit(std::string path, FieldType type, double min, double max, bool min_exclusive = false) {
  Field f;
  f.path = std::move(path);
  f.type = type;
  f.min = min, f.max = max;
  f.min_exclusive = min_exclusive;
  return f;
}

const std::vector<Field>& flag_only_fields() {
  static const std::vector<Field> rows = {
      limit("threads", FieldType::kInt, 0, kMaxThreads),
      limit("link_gbps", FieldType::kNumber, 0, 1e6, true),
  };
  return rows;
}

const Field& row_of(const FlagSetting& s) {
  if (const Field* f = find_field(s.path)) return *f;
  for (const Field& f : flag_only_fields())
    if (f.path == s.path) return f;
  throw std::logic_error("flag " + s.flag + " names no field: '" + s.path + "'");
}

// Every field path in `msg` that a flag set becomes that flag ("a multiple of training.ranks" ->
// "a multiple of --ranks"; dotted paths only); the longest paths first, so no path is replaced
// inside a longer one.
std::string with_flags(std::string msg, std::vector<FlagSetting> settings) {
  std::sort(settings.begin(), settings.end(), [](const FlagSetting& a, const FlagSetting& b) {
    return a.path.size() > b.path.size();
  });
  for (const FlagSetting& s : settings)
    for (size_t at = s.path.find('.') == std::string::npos ? std::string::npos : msg.find(s.path);
         at != std::string::npos; at = msg.find(s.path, at))
      msg.replace(at, s.path.size(), s.flag), at += s.flag.size();
  return msg;
}

std::string flag_of(const std::vector<FlagSetting>& settings, const std::string& path) {
  for (const FlagSetting& s : settings)
    if (s.path == path) return s.flag;
  return path;  // a field no flag sets (e.g. the flat cluster a command builds)
}

void throw_if_any(const std::vector<std::string>& problems) {
  if (problems.empty()) return;
  std::string line;
  for (const std::string& p : problems) line += (line.empty() ? "" : "; ") + p;
  throw bad_input(line);
}

std::vector<std::string> field_problems(const std::vector<FlagSetting>& settings) {
  std::vector<std::string> problems;
  for (const FlagSetting& s : settings) {
    // A number flag holds a double: 5.0 is shown as the user typed it, 5.
    const nlohmann::json& v = s.value;
    const bool whole = v.is_number_float() && std::fabs(v.get<double>()) < 9e15 &&
                       v.get<double>() == std::floor(v.get<double>());
    const nlohmann::json shown = whole ? nlohmann::json(v.get<long long>()) : v;
    if (auto bad = check_field_value(row_of(s), shown)) problems.push_back(s.flag + ": " + *bad);
  }
  return problems;
}

}  // namespace

void check_flags(const std::vector<FlagSetting>& settings) {
  throw_if_any(field_problems(settings));
}

RunConfig run_config_from_flags(const std::vector<FlagSetting>& settings, RunConfig base) {
  throw_if_any(field_problems(settings));
  nlohmann::json doc = nlohmann::json::object();
  for (const FlagSetting& s : settings)
    if (find_field(s.path)) doc[field_pointer(s.path)] = s.value;
  apply_json(doc, base);
  if (base.cluster.spec.empty()) base.cluster.spec = "flat:" + std::to_string(base.training.ranks);
  ClusterCache cache;
  std::vector<std::string> problems;
  for (const ConfigProblem& p : check_run(base, cache))
    problems.push_back(flag_of(settings, p.field) + ": " + with_flags(p.message, settings));
  throw_if_any(problems);
  return base;
}

}  // namespace commlab
