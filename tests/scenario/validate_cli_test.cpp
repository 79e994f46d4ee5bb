// commlab-cli validate: exit codes and one line per problem on stderr (docs/cli.md).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_runner.h"

namespace {

using Output = commlab::testing::CliOutput;

using commlab::testing::run_cli;

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(ValidateCli, ValidScenarioPrintsNothingAndExitsZero) {
  const std::string path = write_temp("ok_scenario.json", R"({"name": "ok",
    "runs": [{"name": "a"}, {"name": "b", "set": {"techniques": {"skipreduce": {"skip": 2}}}}]})");
  Output o = run_cli("validate " + path);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(o.out.empty());
  EXPECT_TRUE(o.err.empty());
}

TEST(ValidateCli, EveryProblemOnItsOwnLineExitTwo) {
  const std::string path = write_temp(
      "bad_scenario.json",
      R"({"training": {"ranks": -4}, "techniques": {"skipreduce": {"polcy": "random"}}})");
  Output o = run_cli("validate " + path + " --set training.lr=0");
  EXPECT_EQ(o.code, 2);
  EXPECT_TRUE(o.out.empty());
  // Keys are checked in sorted order (nlohmann::json objects are sorted), then the --set values.
  EXPECT_EQ(o.err, path + ":techniques.skipreduce.polcy: unknown field (did you mean 'policy'?)\n" +
                       path + ":training.ranks: expected a positive integer, got -4\n" + path +
                       ":training.lr: expected a number in (0, 100], got 0 (from --set)\n");
}

TEST(ValidateCli, MissingFileIsInvalidInput) {
  Output o = run_cli("validate /nonexistent/scenario.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err, "/nonexistent/scenario.json: cannot open: No such file or directory\n");
}

TEST(ValidateCli, PrintShowsTheScenarioAsRunWithDefaults) {
  const std::string path = write_temp("print_scenario.json", R"({"training": {"ranks": 4}})");
  Output o = run_cli("validate " + path + " --print --set training.iterations=7");
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(o.out);
  EXPECT_EQ(doc["name"], "print_scenario");
  EXPECT_EQ(doc["training"]["ranks"], 4);
  EXPECT_EQ(doc["training"]["iterations"], 7);
  EXPECT_EQ(doc["cluster"]["spec"], "flat:4");  // only ranks given: a flat cluster of that size
  EXPECT_EQ(doc["techniques"]["skipreduce"]["policy"], "random");  // a default, filled
  ASSERT_EQ(doc["runs"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["name"], "print_scenario");
}

}  // namespace
