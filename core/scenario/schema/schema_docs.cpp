// docs/scenario.md's field reference and docs/scenario.schema.json, generated from the field table
// (tests/scenario check that the committed files match).
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "io/status.h"
#include "scenario/schema.h"

namespace commlab {
namespace {

using nlohmann::json;

// Integral bounds stay integers in the schema ("maximum": 10000000, not 1e7).
json bound(double v) {
  if (std::fabs(v) < 9.1e15 && v == std::floor(v)) return json(static_cast<int64_t>(v));
  return json(v);
}

std::string type_name(const Field& f) {
  switch (f.type) {
    case FieldType::kInt: return "integer";
    case FieldType::kNumber: return "number";
    case FieldType::kBool: return "boolean";
    case FieldType::kString: return "string";
    case FieldType::kEnum: return "enum";
    case FieldType::kIntList: return "list of integers";
    case FieldType::kNumberList: return "list of numbers";
    case FieldType::kStringList: return "list of strings";
  }
  return "?";
}

std::string allowed(const Field& f) {
  switch (f.type) {
    case FieldType::kInt: return limit_text(f.min) + " to " + limit_text(f.max);
    case FieldType::kNumber:
      return (f.min_exclusive ? "(" : "[") + limit_text(f.min) + ", " + limit_text(f.max) + "]";
    case FieldType::kBool: return "true, false";
    case FieldType::kString: return "at most " + std::to_string(f.max_items) + " characters";
    case FieldType::kEnum: {
      std::string out;
      for (const auto& c : f.choices) out += (out.empty() ? "`" : ", `") + c + "`";
      return out;
    }
    case FieldType::kIntList:
      return "at most " + std::to_string(f.max_items) + " items, each " + limit_text(f.min) +
             " to " + limit_text(f.max);
    case FieldType::kNumberList:
      return "at most " + std::to_string(f.max_items) + " items, each in " +
             (f.min_exclusive ? "(" : "[") + limit_text(f.min) + ", " + limit_text(f.max) + "]";
    case FieldType::kStringList:
      return "at most " + std::to_string(f.max_items) + " items of at most 256 characters";
  }
  return "";
}

json leaf_schema(const Field& f) {
  json s;
  switch (f.type) {
    case FieldType::kInt:
      s = {{"type", "integer"}, {"minimum", bound(f.min)}, {"maximum", bound(f.max)}};
      break;
    case FieldType::kNumber:
      s = {{"type", "number"},
           {f.min_exclusive ? "exclusiveMinimum" : "minimum", bound(f.min)},
           {"maximum", bound(f.max)}};
      break;
    case FieldType::kBool: s = {{"type", "boolean"}}; break;
    case FieldType::kString: s = {{"type", "string"}, {"maxLength", f.max_items}}; break;
    case FieldType::kEnum: s = {{"type", "string"}, {"enum", f.choices}}; break;
    case FieldType::kIntList:
      s = {{"type", "array"},
           {"maxItems", f.max_items},
           {"items", {{"type", "integer"}, {"minimum", bound(f.min)}, {"maximum", bound(f.max)}}}};
      break;
    case FieldType::kNumberList:
      s = {{"type", "array"},
           {"maxItems", f.max_items},
           {"items",
            {{"type", "number"},
             {f.min_exclusive ? "exclusiveMinimum" : "minimum", bound(f.min)},
             {"maximum", bound(f.max)}}}};
      break;
    case FieldType::kStringList:
      s = {{"type", "array"},
           {"maxItems", f.max_items},
           {"items", {{"type", "string"}, {"maxLength", 256}}}};
      break;
  }
  s["default"] = f.get(RunConfig{});
  s["description"] = f.description;
  return s;
}

json object_schema() {
  return {{"type", "object"}, {"additionalProperties", false}, {"properties", json::object()}};
}

}  // namespace

std::string scenario_fields_markdown() {
  std::ostringstream out;
  std::string section = "-";
  for (const Field& f : scenario_fields()) {
    std::string head =
        f.path.find('.') == std::string::npos ? "top level" : f.path.substr(0, f.path.find('.'));
    if (head != section) {
      section = head;
      out << "\n### " << section << "\n\n"
          << "| field | type | default | allowed | description |\n|---|---|---|---|---|\n";
    }
    out << "| `" << f.path << "` | " << type_name(f) << " | `" << f.get(RunConfig{}).dump()
        << "` | " << allowed(f) << " | " << f.description << " |\n";
  }
  return out.str();
}

json scenario_json_schema() {
  // Sections become $defs so that the base and every run's "set" share them.
  json settings = object_schema();
  json defs = json::object();
  for (const Field& f : scenario_fields()) {
    std::vector<std::string> parts;
    std::stringstream ss(f.path);
    for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
    if (parts.size() == 1) {
      settings["properties"][parts[0]] = leaf_schema(f);
      continue;
    }
    if (!defs.contains(parts[0])) defs[parts[0]] = object_schema();
    settings["properties"][parts[0]] = {{"$ref", "#/$defs/" + parts[0]}};
    json* node = &defs[parts[0]];
    for (size_t i = 1; i + 1 < parts.size(); ++i) {
      json& props = (*node)["properties"];
      if (!props.contains(parts[i])) props[parts[i]] = object_schema();
      node = &props[parts[i]];
    }
    (*node)["properties"][parts.back()] = leaf_schema(f);
  }
  defs["settings"] = settings;

  std::vector<std::string> paths;
  for (const Field& f : scenario_fields()) paths.push_back(f.path);
  json top = settings;
  top["properties"]["$schema"] = {{"type", "string"}};
  top["properties"]["name"] = {{"type", "string"},
                               {"maxLength", 256},
                               {"description", "Experiment name (default: the file name)."}};
  top["properties"]["description"] = {{"type", "string"}, {"maxLength", kMaxStringLength}};
  top["properties"]["runs"] = {
      {"type", "array"},
      {"maxItems", kMaxRuns},
      {"description", "Runs of the experiment; each merges its set into the base (merge patch)."},
      {"items",
       {{"type", "object"},
        {"additionalProperties", false},
        {"required", {"name"}},
        {"properties",
         {{"name", {{"type", "string"}, {"maxLength", 256}}},
          {"set", {{"$ref", "#/$defs/settings"}}},
          {"forked_from",
           {{"type", "object"},
            {"additionalProperties", false},
            {"required", {"run", "iteration"}},
            {"description",
             "Provenance: the run this one continued (forked from) and at which iteration; "
             "commlab-cli trains it from iteration 1."},
            {"properties",
             {{"run", {{"type", "string"}, {"maxLength", 256}}},
              {"iteration", {{"type", "integer"}, {"minimum", 1}}}}}}},
          {"color",
           {{"type", "integer"},
            {"minimum", 0},
            {"maximum", kMaxRunColor},
            {"description",
             "The run's colour in the GUI: an index into its run palette (0-19 the 20 "
             "palette colours). The GUI writes it on Save so a run keeps its colour when the "
             "file is opened again; commlab-cli ignores it."}}}}}}}};
  top["properties"]["sweep"] = {
      {"type", "array"},
      {"maxItems", 16},
      {"description", "Grid sweep: the cartesian product of all entries is applied to every run."},
      {"items",
       {{"type", "object"},
        {"additionalProperties", false},
        {"required", {"path", "values"}},
        {"properties",
         {{"path", {{"enum", paths}}},
          {"values", {{"type", "array"}, {"minItems", 1}, {"maxItems", kMaxRuns}}}}}}}};
  json schema = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                 {"title", "CommLab scenario"},
                 {"description",
                  "Generated by commlab-cli validate --write-docs docs; see "
                  "docs/scenario.md."}};
  schema.update(top);
  schema["$defs"] = defs;
  return schema;
}

std::string splice_generated_docs(const std::string& doc, const std::string& section) {
  size_t begin = doc.find(kDocsBegin);
  size_t end = doc.find(kDocsEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw bad_input(std::string("docs: markers '") + kDocsBegin + "' and '" + kDocsEnd +
                    "' not found");
  begin += std::string(kDocsBegin).size();
  return doc.substr(0, begin) + "\n" + section + "\n" + doc.substr(end);
}

}  // namespace commlab
