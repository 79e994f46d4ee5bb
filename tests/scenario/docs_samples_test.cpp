// The committed docs match what the field table generates, and every sample scenario validates.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenario/scenario.h"
#include "scenario/schema.h"
#include "support/files.h"

namespace commlab {
namespace {

using commlab::testing::read_file;

namespace fs = std::filesystem;
const fs::path kRoot = COMMLAB_SOURCE_DIR;
const char* kRegenerate = "regenerate with: commlab-cli validate --write-docs docs";

TEST(ScenarioDocs, ReferenceSectionMatchesTheTable) {
  const std::string doc = read_file(kRoot / "docs/scenario.md");
  ASSERT_FALSE(doc.empty());
  // Not EXPECT_EQ: printing two copies of the whole document would bury the one-line hint.
  EXPECT_TRUE(splice_generated_docs(doc, scenario_fields_markdown()) == doc) << kRegenerate;
  for (const Field& f : scenario_fields())
    EXPECT_NE(doc.find("`" + f.path + "`"), std::string::npos) << f.path << ": " << kRegenerate;
}

TEST(ScenarioDocs, JsonSchemaMatchesTheTable) {
  const std::string committed = read_file(kRoot / "docs/scenario.schema.json");
  EXPECT_TRUE(committed == scenario_json_schema().dump(2) + "\n") << kRegenerate;
}

// Every scenario in samples/ (the reproduction suite and teaching demos) must validate. Cluster
// files that scenarios name live beside them as *.topology.json and are not scenarios.
TEST(Samples, EverySampleValidates) {
  const fs::path dir = kRoot / "samples";
  if (!fs::exists(dir)) GTEST_SKIP() << "no samples/ yet";
  int n = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json" || name.ends_with(".topology.json")) continue;
    ++n;
    try {
      Experiment exp = load_scenario(entry.path().string());
      EXPECT_FALSE(exp.runs.empty()) << entry.path();
    } catch (const ScenarioError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  RecordProperty("samples", n);
}

}  // namespace
}  // namespace commlab
