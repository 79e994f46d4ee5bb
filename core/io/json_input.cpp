// One JSON entry point with a nesting limit checked before parsing (see json_input.h).

#include "io/json_input.h"

#include <stdexcept>

#include "io/input_file.h"
#include "io/status.h"

namespace commlab {
namespace {

// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix.
std::string bare_message(const std::string& what) {
  const size_t col = what.find("column ");
  const size_t colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
  if (colon != std::string::npos) return excerpt(what.substr(colon + 2), 200);
  const size_t bracket = what.find("] ");
  return excerpt(bracket == std::string::npos ? what : what.substr(bracket + 2), 200);
}

// Where the nesting first exceeds max_depth and how deep the text nests (the message says both).
void check_depth(std::string_view text, const std::string& file, int max_depth) {
  const JsonNesting n = json_nesting(text, max_depth);
  if (!n.first_over) return;
  throw bad_input(file + ":" + line_col(text, *n.first_over) + ": nesting deeper than " +
                  std::to_string(max_depth) + " levels (" + std::to_string(n.deepest) + " deep)");
}

}  // namespace

nlohmann::json parse_json_limited(std::string_view text, const std::string& file, int max_depth) {
  check_depth(text, file, max_depth);
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw bad_input(file + ":" + line_col(text, e.byte == 0 ? 0 : e.byte - 1) +
                    ": invalid JSON: " + bare_message(e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw bad_input(file + ": invalid JSON: " + bare_message(e.what()));
  }
}

nlohmann::json parse_json_or_discarded(std::string_view text, const std::string& file,
                                       int max_depth) {
  check_depth(text, file, max_depth);
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
}

std::string json_excerpt(const nlohmann::json& v, size_t max_chars) {
  if (v.is_array()) return "an array of " + std::to_string(v.size()) + " items";
  if (v.is_object()) return "an object of " + std::to_string(v.size()) + " keys";
  return excerpt(v.dump(), max_chars);
}

}  // namespace commlab
