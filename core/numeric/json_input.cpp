// One JSON entry point with a nesting limit checked before parsing (see json_input.h).

#include "numeric/json_input.h"

#include <stdexcept>

#include "numeric/input_file.h"

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

// One linear pass, strings respected: where the nesting first exceeds max_depth, and how deep the
// text nests in all (so the message says both the depth and the limit).
void check_depth(std::string_view text, const std::string& file, int max_depth) {
  if (!json_too_deep(text, max_depth)) return;
  int depth = 0, deepest = 0;
  size_t first = 0;
  bool in_string = false, escape = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > deepest) deepest = depth;
      if (depth == max_depth + 1 && first == 0) first = i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  throw std::invalid_argument(file + ":" + line_col(text, first) + ": nesting deeper than " +
                              std::to_string(max_depth) + " levels (" + std::to_string(deepest) +
                              " deep)");
}

}  // namespace

nlohmann::json parse_json_limited(std::string_view text, const std::string& file, int max_depth) {
  check_depth(text, file, max_depth);
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(file + ":" + line_col(text, e.byte == 0 ? 0 : e.byte - 1) +
                                ": invalid JSON: " + bare_message(e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(file + ": invalid JSON: " + bare_message(e.what()));
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
