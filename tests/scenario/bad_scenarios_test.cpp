// The committed corpus of bad scenarios (tests/data/bad_scenarios): each NAME.json gives exactly
// the lines of NAME.expected (optional NAME.sets: one --set PATH=VALUE per line). None may crash,
// hang or allocate without bound.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenario/scenario.h"
#include "support/files.h"

namespace commlab {
namespace {

using commlab::testing::read_file;

namespace fs = std::filesystem;

std::vector<std::string> read_lines(const fs::path& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

TEST(BadScenarios, EachGivesExactlyItsExpectedLines) {
  const fs::path dir = fs::path(COMMLAB_SOURCE_DIR) / "tests/data/bad_scenarios";
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const fs::path json = entry.path();
    fs::path expected = json, sets_file = json;
    expected.replace_extension(".expected");
    sets_file.replace_extension(".sets");
    ASSERT_TRUE(fs::exists(expected)) << expected;
    std::vector<std::string> sets =
        fs::exists(sets_file) ? read_lines(sets_file) : std::vector<std::string>{};
    std::vector<std::string> got;
    try {
      // The label is the file name, so the expected lines do not depend on the checkout path.
      parse_scenario_text(read_file(json), json.filename().string(), sets);
    } catch (const ScenarioError& e) {
      got = e.lines();
    }
    EXPECT_EQ(got, read_lines(expected)) << json.filename();
    for (const auto& line : got) EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    ++cases;
  }
  EXPECT_GE(cases, 12);
}

}  // namespace
}  // namespace commlab
