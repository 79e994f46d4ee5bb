// The one JSON entry point: the nesting limit is checked before the parser runs, and messages name
// the file and the line:column, never dumping a deep or a big value.
#include "io/json_input.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace commlab {
namespace {

std::string message_of(std::string_view text, int depth = kMaxJsonDepth) {
  try {
    parse_json_limited(text, "f.json", depth);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(JsonInput, ParsesWithinTheLimit) {
  const nlohmann::json j = parse_json_limited(R"({"a": [1, {"b": "]]]"}]})", "f.json", 3);
  EXPECT_EQ(j["a"][1]["b"], "]]]");  // brackets inside strings do not count
}

TEST(JsonInput, TooDeepNamesWhereAndHowDeep) {
  // 100,000 nested arrays: refused by the linear scan, no recursion in the parser.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  // The 65th '[' is byte 64, line 1 column 65.
  EXPECT_EQ(message_of(deep), "f.json:1:65: nesting deeper than 64 levels (100000 deep)");
  EXPECT_EQ(message_of("{\n\"a\": [[1]]}", 2), "f.json:2:7: nesting deeper than 2 levels (3 deep)");
  EXPECT_THROW(parse_json_or_discarded(deep, "f.json"), std::invalid_argument);
}

TEST(JsonInput, SyntaxErrorsNameLineAndColumn) {
  const std::string m = message_of("{\n  \"a\": 1,\n  \"b\": }");
  EXPECT_EQ(m.rfind("f.json:3:8: invalid JSON: ", 0), 0u) << m;
  EXPECT_EQ(m.find("[json.exception"), std::string::npos) << m;  // the library's prefix is cut
  EXPECT_TRUE(parse_json_or_discarded("{", "f.json").is_discarded());
}

TEST(JsonInput, ExcerptsNeverDumpContainers) {
  EXPECT_EQ(json_excerpt(nlohmann::json::array({1, 2, 3})), "an array of 3 items");
  EXPECT_EQ(json_excerpt(nlohmann::json::object({{"k", 1}})), "an object of 1 keys");
  EXPECT_EQ(json_excerpt(nlohmann::json("abcdef"), 4), "\"abc...");  // dump() quotes, then cut
  EXPECT_EQ(json_excerpt(nlohmann::json(42)), "42");
}

}  // namespace
}  // namespace commlab
