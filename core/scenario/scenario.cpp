// Scenario documents: structure validation (every problem, with did-you-mean), --set overrides, and
// expansion of runs (merge patch) and sweeps (cartesian grid) into RunConfigs.
#include "scenario/scenario.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "io/json_input.h"
#include "scenario/scenario_internal.h"
#include "scenario/schema.h"

namespace commlab {
namespace {

using nlohmann::json;

const std::vector<std::string> kTopOnly = {"$schema", "name", "description", "runs", "sweep"};

class Problems {
 public:
  explicit Problems(std::string file) : file_(std::move(file)) {}
  void add(std::string path, std::string msg, ErrorCode code = ErrorCode::kBadInput) {
    for (std::string* text : {&path, &msg})  // one problem, one line
      std::replace(text->begin(), text->end(), '\n', ' ');
    if (!seen_.insert(path + "\n" + msg).second) return;
    if (list_.size() < kMaxProblems)
      list_.push_back({code, std::move(path), std::move(msg)});
    else
      ++dropped_;
  }
  bool empty() const { return list_.empty(); }
  void throw_if_any() const {
    if (list_.empty()) return;
    ConfigProblems all = list_;
    if (dropped_)
      all.push_back(
          {ErrorCode::kBadInput, "", "... and " + std::to_string(dropped_) + " more problems"});
    throw ScenarioError(file_, std::move(all));
  }

 private:
  std::string file_;
  ConfigProblems list_;
  std::set<std::string> seen_;
  size_t dropped_ = 0;
};

// Names directly under `prefix` ("" or "techniques."): fields and sections.
std::vector<std::string> children(const std::string& prefix) {
  std::vector<std::string> out;
  for (const Field& f : scenario_fields()) {
    if (f.path.compare(0, prefix.size(), prefix) != 0) continue;
    std::string rest = f.path.substr(prefix.size());
    std::string name = rest.substr(0, rest.find('.'));
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

std::vector<std::string> all_paths() {
  std::vector<std::string> out;
  for (const Field& f : scenario_fields()) out.push_back(f.path);
  return out;
}

std::string unknown(const std::string& hint) {
  return hint.empty() ? "unknown field" : "unknown field (did you mean '" + hint + "'?)";
}

// Validates the settings object `obj` at field path `prefix` ("" or "cluster."); messages name
// `label` + the field path ("runs[2].set.training.lr").
void check_settings(const json& obj, const std::string& prefix, const std::string& label, bool top,
                    Problems& problems) {
  for (const auto& [key, value] : obj.items()) {
    if (top && std::find(kTopOnly.begin(), kTopOnly.end(), key) != kTopOnly.end()) continue;
    const std::string path = prefix + key;
    if (value.is_null()) continue;  // merge-patch null: back to the default
    if (const Field* f = find_field(path)) {
      if (auto bad = check_field_value(*f, value)) problems.add(label + path, *bad);
      continue;
    }
    std::vector<std::string> names = children(prefix);
    if (std::find(names.begin(), names.end(), key) != names.end()) {  // a section
      if (value.is_object())
        check_settings(value, path + ".", label, false, problems);
      else
        problems.add(label + path, "expected an object, got " + value_as_written(value));
      continue;
    }
    if (top) names.insert(names.end(), kTopOnly.begin() + 1, kTopOnly.end());
    std::string hint = did_you_mean(key, names);
    if (hint.empty()) {  // maybe right name, wrong place ("skip" at top level)
      for (const auto& p : all_paths())
        if (p.size() > key.size() &&
            p.compare(p.size() - key.size() - 1, std::string::npos, "." + key) == 0)
          hint = p;
    }
    problems.add(label + path, unknown(hint));
  }
}

constexpr size_t kMaxFolderName = 200;

std::optional<std::string> check_name(const json& v, size_t max_len) {
  if (!v.is_string()) return "expected a string, got " + value_as_written(v);
  const auto& s = v.get_ref<const std::string&>();
  if (s.empty()) return std::string("must not be empty");
  if (s.size() > max_len)
    return "string too long (" + std::to_string(s.size()) + " characters, at most " +
           std::to_string(max_len) + ")";
  if (std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20; }))
    return std::string("must not contain control characters");
  return std::nullopt;
}

// The experiment's name is its results folder, results/NAME ("../../x" wrote outside
// results/): refused unless it is one folder name that cannot climb, hide or overflow NAME_MAX
// with the ".incomplete" of its staging folder.
std::optional<std::string> check_folder_name(const std::string& s) {
  if (s.find('/') != std::string::npos || s.find('\\') != std::string::npos)
    return "is the results folder results/NAME: must not contain '/' or '\\', got " +
           value_as_written(s);
  if (s[0] == '.')
    return "is the results folder results/NAME: must not start with '.', got " +
           value_as_written(s);
  if (s.size() > kMaxFolderName)
    return "is the results folder results/NAME: at most " + std::to_string(kMaxFolderName) +
           " bytes, got " + std::to_string(s.size());
  return std::nullopt;
}

struct Run {
  std::string name;
  json set = json::object();
  ForkedFrom forked_from;
  int color = -1;
};

// A run's "forked_from": {"run": NAME, "iteration": K >= 1}.
ForkedFrom read_forked_from(const json& value, const std::string& at, Problems& problems) {
  ForkedFrom out;
  if (!value.is_object()) {
    problems.add(at, "expected {\"run\": NAME, \"iteration\": K}, got " + value_as_written(value));
    return out;
  }
  for (const auto& [key, v] : value.items()) {
    if (key == "run") {
      if (auto bad = check_name(v, 256))
        problems.add(at + ".run", *bad);
      else
        out.run = v.get<std::string>();
    } else if (key == "iteration") {
      if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 1'000'000'000)
        problems.add(at + ".iteration", "expected an iteration >= 1, got " + value_as_written(v));
      else
        out.iteration = v.get<int>();
    } else {
      problems.add(at + "." + key, unknown(did_you_mean(key, {"run", "iteration"})));
    }
  }
  if (!value.contains("run")) problems.add(at, "missing run");
  if (!value.contains("iteration")) problems.add(at, "missing iteration");
  if (out.run.empty()) out.iteration = 0;
  return out;
}

struct SweepDim {
  std::string path;
  std::vector<json> values;
};

std::vector<Run> read_runs(const json& doc, const std::string& default_name, Problems& problems) {
  if (!doc.contains("runs")) return {Run{default_name, json::object(), {}, -1}};
  const json& runs = doc["runs"];
  if (!runs.is_array() || runs.empty()) {
    problems.add("runs", "expected a non-empty list of runs, got " + value_as_written(runs));
    return {};
  }
  if (runs.size() > kMaxRuns) {
    problems.add("runs", "too many runs (" + std::to_string(runs.size()) + ", at most " +
                             std::to_string(kMaxRuns) + ")");
    return {};
  }
  std::vector<Run> out;
  std::set<std::string> names;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string at = "runs[" + std::to_string(i) + "]";
    const json& r = runs[i];
    if (!r.is_object()) {
      problems.add(at, "expected an object with name and set, got " + value_as_written(r));
      continue;
    }
    Run run;
    for (const auto& [key, value] : r.items()) {
      if (key == "name") {
        if (auto bad = check_name(value, 256))
          problems.add(at + ".name", *bad);
        else if (!names.insert(value.get<std::string>()).second)
          problems.add(at + ".name", "duplicate run name '" + value.get<std::string>() + "'");
        else
          run.name = value.get<std::string>();
      } else if (key == "set") {
        if (value.is_object()) {
          check_settings(value, "", at + ".set.", false, problems);
          run.set = value;
        } else {
          problems.add(at + ".set", "expected an object, got " + value_as_written(value));
        }
      } else if (key == "forked_from") {
        run.forked_from = read_forked_from(value, at + ".forked_from", problems);
      } else if (key == "color") {
        if (!value.is_number_integer() || value.get<long long>() < 0 ||
            value.get<long long>() > kMaxRunColor)
          problems.add(at + ".color", "expected a run palette index from 0 to " +
                                          std::to_string(kMaxRunColor) + ", got " +
                                          value_as_written(value));
        else
          run.color = value.get<int>();
      } else {
        problems.add(at + "." + key,
                     unknown(did_you_mean(key, {"name", "set", "forked_from", "color"})));
      }
    }
    if (!r.contains("name")) problems.add(at, "missing name");
    out.push_back(std::move(run));
  }
  return out;
}

std::vector<SweepDim> read_sweep(const json& doc, Problems& problems) {
  std::vector<SweepDim> out;
  if (!doc.contains("sweep")) return out;
  const json& sweep = doc["sweep"];
  if (!sweep.is_array() || sweep.size() > 16) {
    problems.add("sweep", "expected a list of at most 16 {path, values} entries, got " +
                              value_as_written(sweep));
    return out;
  }
  for (size_t i = 0; i < sweep.size(); ++i) {
    const std::string at = "sweep[" + std::to_string(i) + "]";
    const json& s = sweep[i];
    if (!s.is_object() || !s.contains("path") || !s.contains("values")) {
      problems.add(at, "expected an object with path and values, got " + value_as_written(s));
      continue;
    }
    for (const auto& [key, value] : s.items())
      if (key != "path" && key != "values")
        problems.add(at + "." + key, unknown(did_you_mean(key, {"path", "values"})));
    SweepDim dim;
    const Field* field = nullptr;
    if (!s["path"].is_string()) {
      problems.add(at + ".path", "expected a field path, got " + value_as_written(s["path"]));
    } else if (!(field = find_field(dim.path = s["path"].get<std::string>()))) {
      problems.add(at + ".path",
                   "unknown field '" + dim.path.substr(0, 100) + "'" +
                       (did_you_mean(dim.path, all_paths()).empty()
                            ? ""
                            : " (did you mean '" + did_you_mean(dim.path, all_paths()) + "'?)"));
    } else if (std::any_of(out.begin(), out.end(),
                           [&](const SweepDim& d) { return d.path == dim.path; })) {
      problems.add(at + ".path", "field '" + dim.path + "' is swept twice");
    }
    const json& values = s["values"];
    if (!values.is_array() || values.empty() || values.size() > kMaxRuns) {
      problems.add(at + ".values", "expected a list of 1 to " + std::to_string(kMaxRuns) +
                                       " values, got " + value_as_written(values));
      continue;
    }
    for (size_t j = 0; j < values.size() && field; ++j)
      if (auto bad = check_field_value(*field, values[j]))
        problems.add(at + ".values[" + std::to_string(j) + "]", *bad);
    dim.values.assign(values.begin(), values.end());
    out.push_back(std::move(dim));
  }
  return out;
}

// (path, value) overrides from --set PATH=VALUE.
std::vector<std::pair<std::string, json>> read_sets(const std::vector<std::string>& sets,
                                                    Problems& problems) {
  std::vector<std::pair<std::string, json>> out;
  for (const std::string& s : sets) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || s.size() > kMaxStringLength) {
      problems.add(
          "--set " + s.substr(0, 100),
          "expected PATH=VALUE (at most " + std::to_string(kMaxStringLength) + " characters)");
      continue;
    }
    std::string path = s.substr(0, eq), text = s.substr(eq + 1);
    json value;
    try {
      value = parse_json_or_discarded(text, "--set " + path, kMaxNestingDepth);
    } catch (const std::invalid_argument& e) {
      problems.add(path, "value nests deeper than " + std::to_string(kMaxNestingDepth) +
                             " levels (from --set)");
      continue;
    }
    if (value.is_discarded()) value = text;  // a bare word is a string: --set cluster.gpu=a100
    const Field* f = find_field(path);
    if (!f) {
      problems.add(path, unknown(did_you_mean(path, all_paths())) + " in --set");
    } else if (auto bad = check_field_value(*f, value)) {
      problems.add(path, *bad + " (from --set)");
    } else {
      out.emplace_back(path, value);
    }
  }
  return out;
}

std::string value_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Merge patch from `a` to `b` (both complete configurations of the same shape).
json diff(const json& a, const json& b) {
  json out = json::object();
  for (const auto& [key, value] : b.items()) {
    if (a.contains(key) && a[key] == value) continue;
    out[key] =
        (a.contains(key) && a[key].is_object() && value.is_object()) ? diff(a[key], value) : value;
  }
  return out;
}

// Resolves cluster.spec and training.ranks from each other (docs/scenario.md, "Cluster and ranks")
// and resolves relative cluster files against the scenario's folder.
void resolve_cluster(const json& merged, const std::string& file, RunConfig& c,
                     ClusterCache& cache) {
  const bool spec_given = merged.contains(field_pointer("cluster.spec")) &&
                          !merged[field_pointer("cluster.spec")].is_null();
  const bool ranks_given = merged.contains(field_pointer("training.ranks")) &&
                           !merged[field_pointer("training.ranks")].is_null();
  if (!spec_given) {
    c.cluster.spec = "flat:" + std::to_string(c.training.ranks);
    return;
  }
  std::string& spec = c.cluster.spec;
  bool is_file = spec.ends_with(".json") || spec.find('/') != std::string::npos;
  std::filesystem::path dir = std::filesystem::path(file).parent_path();
  std::error_code ec;
  if (is_file && !dir.empty() && std::filesystem::path(spec).is_relative() &&
      std::filesystem::exists(dir / spec, ec))
    spec = (dir / spec).lexically_normal().string();
  if (!ranks_given) {
    ClusterInfo info = cache.lookup(spec);
    if (info.error.empty()) c.training.ranks = info.gpus;
  }
}

// packet.background_load sets an onoff source's offered load; a closed-loop background (perm,
// alltoall, incast:K) never reads it, so a scenario that writes it next to one would be taken as
// shaping a run it does not touch. Only a field the scenario writes is refused: the
// default in RunConfig is not, and to_json leaves it out beside a closed-loop pattern.
std::optional<std::string> background_load_problem(const json& merged, const RunConfig& c) {
  const json::json_pointer p = field_pointer("packet.background_load");
  const std::string& bg = c.packet.background;
  if (!merged.contains(p) || merged.at(p).is_null() || bg == "none" || bg == "onoff")
    return std::nullopt;
  return value_text(merged.at(p)) + " given but packet.background is '" + bg +
         "', a closed-loop pattern (a pair starts its next flow when the last completes) that "
         "does not read it; the load applies to onoff only: remove the field or use onoff";
}

}  // namespace

Experiment parse_scenario(const json& doc, const std::string& file,
                          const std::vector<std::string>& sets) {
  Problems problems(file);
  if (!doc.is_object())
    throw ScenarioError(
        file, {{ErrorCode::kBadInput, "",
                "expected a JSON object at the top level, got " + std::string(doc.type_name())}});
  Experiment exp;
  std::string stem = std::filesystem::path(file).stem().string();
  exp.name = stem.empty() ? "scenario" : stem;
  if (doc.contains("name")) {
    if (auto bad = check_name(doc["name"], 256))
      problems.add("name", *bad);
    else if (auto unsafe = check_folder_name(doc["name"].get<std::string>()))
      problems.add("name", *unsafe);
    else
      exp.name = doc["name"].get<std::string>();
  }
  if (doc.contains("description")) {
    const json& d = doc["description"];
    if (!d.is_string())
      problems.add("description", "expected a string, got " + value_as_written(d));
    else if (d.get_ref<const std::string&>().size() > kMaxStringLength)
      problems.add("description",
                   "string too long (" + std::to_string(d.get_ref<const std::string&>().size()) +
                       " characters, at most " + std::to_string(kMaxStringLength) + ")");
    else
      exp.description = doc["description"].get<std::string>();
  }
  check_settings(doc, "", "", true, problems);
  std::vector<Run> runs = read_runs(doc, exp.name, problems);
  std::vector<SweepDim> sweep = read_sweep(doc, problems);
  std::vector<std::pair<std::string, json>> overrides = read_sets(sets, problems);
  for (size_t i = 0; i < sweep.size(); ++i)
    for (const auto& [path, value] : overrides)
      if (path == sweep[i].path)
        problems.add("sweep[" + std::to_string(i) + "].path",
                     "'" + path + "' is also given by --set; remove one");
  size_t grid = 1;
  for (const SweepDim& d : sweep) grid = std::min(grid * d.values.size(), kMaxRuns + 1);
  if (!runs.empty() && grid * runs.size() > kMaxRuns)
    problems.add("sweep", "more than " + std::to_string(kMaxRuns) + " runs in all (runs x grid)");
  problems.throw_if_any();

  json base = doc;
  for (const auto& key : kTopOnly) base.erase(key);
  for (const auto& [path, value] : overrides) base[field_pointer(path)] = value;

  ClusterCache cache;
  RunConfig base_config;
  apply_json(base, base_config);
  resolve_cluster(base, file, base_config, cache);
  const json base_json = to_json(base_config);

  const bool many = runs.size() * grid > 1;
  std::set<std::string> reported;
  exp.resolved = base_json;
  exp.resolved.erase("name");
  exp.resolved["name"] = exp.name;
  if (!exp.description.empty()) exp.resolved["description"] = exp.description;
  exp.resolved["runs"] = json::array();
  for (size_t r = 0; r < runs.size(); ++r) {
    const Run& run = runs[r];
    for (size_t point = 0; point < grid; ++point) {
      json merged = base;
      merged.merge_patch(run.set);
      for (const auto& [path, value] : overrides) merged[field_pointer(path)] = value;
      std::string suffix;
      size_t rest = point;
      for (size_t d = sweep.size(); d-- > 0;) {  // the last sweep entry varies fastest
        const json& v = sweep[d].values[rest % sweep[d].values.size()];
        rest /= sweep[d].values.size();
        merged[field_pointer(sweep[d].path)] = v;
        suffix = sweep[d].path + "=" + value_text(v) + (suffix.empty() ? "" : "," + suffix);
      }
      RunConfig config;
      apply_json(merged, config);
      config.name = suffix.empty() ? run.name : run.name + "/" + suffix;
      resolve_cluster(merged, file, config, cache);
      for (const ConfigProblem& p : check_run(config, cache)) {
        // One line per distinct problem: a sweep repeats the same mistake in every run.
        if (!reported.insert(p.field + "\n" + p.message).second) continue;
        problems.add(p.field, many ? p.message + " (run '" + config.name + "')" : p.message,
                     p.code);
      }
      if (auto bad = background_load_problem(merged, config);
          bad && reported.insert("packet.background_load\n" + *bad).second)
        problems.add("packet.background_load", many ? *bad + " (run '" + config.name + "')" : *bad);
      json entry = {{"name", config.name}};
      json patch = diff(base_json, to_json(config));
      patch.erase("name");
      if (!patch.empty()) entry["set"] = patch;
      if (run.forked_from.iteration > 0) {
        // A fork point after the run's last iteration would name iterations it never made.
        if (run.forked_from.iteration >= config.training.iterations)
          problems.add("runs[" + std::to_string(r) + "].forked_from.iteration",
                       "a fork point must come before the run's last iteration (" +
                           std::to_string(config.training.iterations) + "), got " +
                           std::to_string(run.forked_from.iteration));
        entry["forked_from"] = {{"run", run.forked_from.run},
                                {"iteration", run.forked_from.iteration}};
      }
      if (run.color >= 0) entry["color"] = run.color;
      exp.resolved["runs"].push_back(std::move(entry));
      exp.runs.push_back(std::move(config));
      exp.forked_from.push_back(run.forked_from);
      exp.colors.push_back(run.color);
    }
  }
  problems.throw_if_any();
  return exp;
}

}  // namespace commlab
