// Per-field checks, did-you-mean, and conversion between RunConfig and JSON, all driven by the
// field table.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "scenario/schema.h"

namespace commlab {
namespace {

using nlohmann::json;

bool integral(const json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d);
}

// An integer written as one compares exactly: as a double, 2^53 + 1 rounds to 2^53 and would pass
// a bound of 2^53. Every bound is an integer exact in a double; a number written with a fraction
// or exponent (1e3) is a double already and compares as one.
bool int_in_range(const json& v, double min, double max) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    return max >= 0 && (min <= 0 || u >= static_cast<uint64_t>(min)) &&
           (max >= 18446744073709551615.0 || u <= static_cast<uint64_t>(max));
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    return (min < -9223372036854775807.0 || i >= static_cast<int64_t>(min)) &&
           (max >= 9223372036854775807.0 || i <= static_cast<int64_t>(max));
  }
  const double d = v.get<double>();
  return d >= min && d <= max;
}

std::optional<std::string> check_int(const Field& f, const json& v, double min, double max) {
  if (!integral(v)) return "expected an integer, got " + value_as_written(v);
  if (int_in_range(v, min, max)) return std::nullopt;
  double d = v.is_number_unsigned() ? static_cast<double>(v.get<uint64_t>()) : v.get<double>();
  if (d < min && min == 1) return "expected a positive integer, got " + value_as_written(v);
  if (d < min && min == 0) return "expected a non-negative integer, got " + value_as_written(v);
  (void)f;
  return "expected an integer in [" + limit_text(min) + ", " + limit_text(max) + "], got " +
         value_as_written(v);
}

std::optional<std::string> check_number(const Field& f, const json& v) {
  if (!v.is_number()) return "expected a number, got " + value_as_written(v);
  double d = v.get<double>();
  if (!std::isfinite(d)) return "expected a finite number, got " + value_as_written(v);
  bool low_ok = f.min_exclusive ? d > f.min : d >= f.min;
  if (low_ok && d <= f.max) return std::nullopt;
  return "expected a number in " + std::string(f.min_exclusive ? "(" : "[") + limit_text(f.min) +
         ", " + limit_text(f.max) + "], got " + value_as_written(v);
}

std::optional<std::string> check_string(const json& v, size_t max_len) {
  if (!v.is_string()) return "expected a string, got " + value_as_written(v);
  size_t n = v.get_ref<const std::string&>().size();
  if (n > max_len)
    return "string too long (" + std::to_string(n) + " characters, at most " +
           std::to_string(max_len) + ")";
  return std::nullopt;
}

std::optional<std::string> check_list(const Field& f, const json& v) {
  const char* what = f.type == FieldType::kIntList      ? "integers"
                     : f.type == FieldType::kNumberList ? "numbers"
                                                        : "strings";
  if (!v.is_array())
    return std::string("expected a list of ") + what + ", got " + value_as_written(v);
  if (v.size() > f.max_items)
    return "list too long (" + std::to_string(v.size()) + " items, at most " +
           std::to_string(f.max_items) + ")";
  for (size_t i = 0; i < v.size(); ++i) {
    auto bad = f.type == FieldType::kIntList      ? check_int(f, v[i], f.min, f.max)
               : f.type == FieldType::kNumberList ? check_number(f, v[i])
                                                  : check_string(v[i], 256);
    if (bad) return "item " + std::to_string(i) + ": " + *bad;
  }
  return std::nullopt;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string value_as_written(const nlohmann::json& v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

// Dots become nesting: "techniques.skipreduce.skip" -> /techniques/skipreduce/skip.
nlohmann::json::json_pointer field_pointer(const std::string& path) {
  std::string ptr = "/" + path;
  std::replace(ptr.begin(), ptr.end(), '.', '/');
  return json::json_pointer(ptr);
}

std::optional<std::string> check_field_value(const Field& f, const json& v) {
  std::optional<std::string> bad;
  switch (f.type) {
    case FieldType::kInt: bad = check_int(f, v, f.min, f.max); break;
    case FieldType::kNumber: bad = check_number(f, v); break;
    case FieldType::kBool:
      if (!v.is_boolean()) bad = "expected true or false, got " + value_as_written(v);
      break;
    case FieldType::kString: bad = check_string(v, f.max_items); break;
    case FieldType::kEnum:
      if (!v.is_string() ||
          std::find(f.choices.begin(), f.choices.end(), v.get<std::string>()) == f.choices.end()) {
        std::string list;
        for (const auto& c : f.choices) list += (list.empty() ? "" : ", ") + c;
        bad = "expected one of " + list + ", got " + value_as_written(v);
      }
      break;
    case FieldType::kIntList:
    case FieldType::kNumberList:
    case FieldType::kStringList: bad = check_list(f, v); break;
  }
  if (!bad && f.check) bad = f.check(v);
  return bad;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.size() > 256) return "";  // a hostile key gets no quadratic work
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  // Plausible typo: at most a third of the word changed (and at least one edit allowed).
  size_t limit = std::max<size_t>(2, word.size() / 3);
  return best_d <= limit ? best : "";
}

json to_json(const RunConfig& config) {
  json nested = json::object();
  nested["name"] = config.name;
  for (const Field& f : scenario_fields()) nested[field_pointer(f.path)] = f.get(config);
  // A closed-loop background does not read packet.background_load and a scenario that writes it
  // beside one is refused (scenario.cpp): the resolved scenario a results folder keeps must rerun.
  const std::string& bg = config.packet.background;
  if (bg != "none" && bg != "onoff") nested["packet"].erase("background_load");
  return nested;
}

void apply_json(const json& doc, RunConfig& config) {
  for (const Field& f : scenario_fields()) {
    json::json_pointer p = field_pointer(f.path);
    if (doc.contains(p) && !doc.at(p).is_null()) f.set(config, doc.at(p));
  }
}

json default_config_json() {
  json nested = json::object();
  RunConfig defaults;
  for (const Field& f : scenario_fields()) nested[field_pointer(f.path)] = f.get(defaults);
  return nested;
}

}  // namespace commlab
