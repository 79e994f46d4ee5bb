#pragma once
// The one way CommLab parses JSON it did not write itself: files (scenarios, cluster
// and calibration files, communicator groups), trace metadata strings and --set values. The
// nesting depth is checked by a linear scan before the parser runs, so JSON nested 100,000 deep is
// a one-line error naming the file, the depth reached and the limit instead of a stack overflow;
// and values quoted in messages are short (json_excerpt never recurses into a deep value).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace commlab {

// Nesting limit for JSON CommLab reads (every legitimate file nests fewer than 10 levels).
inline constexpr int kMaxJsonDepth = 64;

// Parses `text`; `file` names the source in messages. Throws std::invalid_argument:
//   "FILE:LINE:COL: JSON nested deeper than LIMIT levels (depth DEPTH at that point)"
//   "FILE:LINE:COL: invalid JSON: REASON"
nlohmann::json parse_json_limited(std::string_view text, const std::string& file,
                                  int max_depth = kMaxJsonDepth);

// Like parse_json_limited, but a syntax error returns a discarded value (as nlohmann's
// allow_exceptions=false does); too deep still throws.
nlohmann::json parse_json_or_discarded(std::string_view text, const std::string& file,
                                       int max_depth = kMaxJsonDepth);

// A value for an error message: scalars as JSON text cut to max_chars ("..." when cut), arrays
// and objects as "an array of N items" / "an object of N keys" (never dumped: a deep value would
// recurse and a big one would fill the terminal).
std::string json_excerpt(const nlohmann::json& v, size_t max_chars = 80);

}  // namespace commlab
