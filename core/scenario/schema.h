#pragma once
// The one table of scenario fields: one row per RunConfig field with its JSON path, type, default,
// range and description. Validation, defaults filling, did-you-mean, docs/scenario.md and
// docs/scenario.schema.json are all generated from it, so they cannot drift apart.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/size_parse.h"  // limit_text
#include "scenario/run_config.h"

namespace commlab {

enum class FieldType { kInt, kNumber, kBool, kString, kEnum, kIntList, kNumberList, kStringList };

struct Field {
  std::string path;  // dotted JSON path, e.g. "techniques.skipreduce.skip"
  FieldType type = FieldType::kInt;
  std::vector<std::string> choices;  // kEnum: the allowed values
  // kInt, kNumber, kIntList / kNumberList elements: the range (min exclusive when min_exclusive)
  double min = 0, max = 0;
  bool min_exclusive = false;  // kNumber, kNumberList: value must be > min
  size_t max_items = 0;        // lists: most elements; strings: most characters
  std::string description;     // one sentence, for the docs
  // Extra check of a well-typed value (e.g. a codec name); returns an error message or nothing.
  std::function<std::optional<std::string>(const nlohmann::json&)> check;
  std::function<void(RunConfig&, const nlohmann::json&)> set;  // value already validated
  std::function<nlohmann::json(const RunConfig&)> get;
};

// Every field, in document order.
const std::vector<Field>& scenario_fields();
// The row for a dotted path, or nullptr.
const Field* find_field(const std::string& path);

// Checks `value` against the field's type, range and extra check; returns the message of the
// first problem (e.g. "expected a positive integer, got -4") or nothing.
std::optional<std::string> check_field_value(const Field& field, const nlohmann::json& value);

// A value as the user wrote it, for a message: compact JSON cut to 40 characters ("..." when
// cut), so a hostile 1 MiB string never floods the terminal.
std::string value_as_written(const nlohmann::json& v);

// The closest of `candidates` to `word` when close enough to be a plausible typo, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

// JSON pointer of a dotted path ("a.b.c" -> /a/b/c).
nlohmann::json::json_pointer field_pointer(const std::string& path);

// The configuration as nested JSON with every field (the scenario as run), plus "name".
nlohmann::json to_json(const RunConfig& config);
// Sets every field present in `doc` (already validated) on `config`.
void apply_json(const nlohmann::json& doc, RunConfig& config);
// to_json(RunConfig{}) without the name: every field at its default.
nlohmann::json default_config_json();

// Hostile-input limits (documented in docs/scenario.md).
inline constexpr size_t kMaxScenarioBytes = 1 << 20;
inline constexpr int kMaxNestingDepth = 32;
inline constexpr size_t kMaxStringLength = 4096;
inline constexpr int kMaxRanks = 65536;
inline constexpr int kMaxTrainingRanks = 256;
inline constexpr size_t kMaxRuns = 1000;
// A run's "color": an index into the GUI's run palette (20 colours, then hues by the golden angle).
inline constexpr int kMaxRunColor = 1'000'000;
inline constexpr size_t kMaxProblems = 100;
// Floats a trained run may hold, estimated before anything is allocated: model parameters times
// ranks (replicas), batch rows per rank times the widest layer, training rows times input width.
inline constexpr long long kMaxTrainingFloats = 1LL << 27;

// The generated field reference (the part of docs/scenario.md between the markers below) and the
// JSON Schema (docs/scenario.schema.json).
inline constexpr const char* kDocsBegin =
    "<!-- BEGIN GENERATED FIELDS: commlab-cli validate --write-docs docs -->";
inline constexpr const char* kDocsEnd = "<!-- END GENERATED FIELDS -->";
std::string scenario_fields_markdown();
nlohmann::json scenario_json_schema();
// Replaces the text between kDocsBegin and kDocsEnd in `doc` with `section`; throws
// std::invalid_argument when the markers are missing.
std::string splice_generated_docs(const std::string& doc, const std::string& section);

}  // namespace commlab
