// The command-line contract (../shared/CLI.md): exit codes, one-line errors, JSON keys.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli_runner.h"

namespace {

using Output = commlab::testing::CliOutput;

using commlab::testing::run_cli;

int lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

TEST(Cli, BadFlagsExitTwoWithOneLine) {
  for (const char* args :
       {"collective --ranks -3", "collective --nosuchflag", "collective --sizes 64M:1K",
        "collective --algo nosuch", "collective --op nosuch", "nosuchcommand",
        "collective --algo direct --ranks 200000 --sizes 1K:1K --time-only"}) {
    Output o = run_cli(args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_EQ(lines(o.err), 1) << args << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << args;
  }
}

TEST(Cli, CollectiveJsonHasTheContractKeysAndVerifies) {
  Output o = run_cli("collective --algo ring --ranks 5 --sizes 4K:16K --json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(o.out);
  EXPECT_EQ(doc["algo"], "ring");
  EXPECT_EQ(doc["ranks"], 5);
  EXPECT_EQ(doc["backend"], "analytical");
  EXPECT_EQ(doc["verified"], true);
  ASSERT_EQ(doc["rows"].size(), 3u);  // 4K, 8K, 16K
  for (const auto& row : doc["rows"])
    for (const char* key : {"size_bytes", "count", "time_us", "algbw_gbps", "busbw_gbps", "steps"})
      EXPECT_TRUE(row.contains(key)) << key;
  // 4 KiB = 1024 floats over 5 ranks on 25 GB/s, 5 us: 2(n-1)(alpha + C/B) where C is the largest
  // chunk, ceil(1024/5) = 205 floats = 820 bytes (a bulk-synchronous step waits for it).
  EXPECT_NEAR(doc["rows"][0]["time_us"].get<double>(), 8 * (5 + 820.0 / 25e9 * 1e6), 1e-6);
}

TEST(Cli, TableHasTheNcclTestsColumns) {
  Output o = run_cli("collective --ranks 4 --sizes 1K:1K");
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* col :
       {"size", "count", "type", "redop", "time(us)", "algbw(GB/s)", "busbw(GB/s)"})
    EXPECT_NE(o.out.find(col), std::string::npos) << col;
}

}  // namespace

namespace {

// summary.json without the one field that measures the host (wall time).
nlohmann::json deterministic_summary(const std::string& path) {
  std::ifstream f(path);
  nlohmann::json doc = nlohmann::json::parse(f);
  for (auto& run : doc["runs"]) run.erase("wall_time_s");
  return doc;
}

TEST(Cli, GoldenScenarioSummaryMatchesTheCommittedFile) {
  const std::string src = COMMLAB_SOURCE_DIR;
  const std::string out = ::testing::TempDir() + "/golden_run";
  Output o = run_cli("run " + src + "/tests/data/golden/tiny.json --out " + out + " --quiet");
  ASSERT_EQ(o.code, 0) << o.err;
  // Regenerate after an intended change with:
  //   build/app/commlab-cli run tests/data/golden/tiny.json --out /tmp/g --quiet --reproducible &&
  //   cp /tmp/g/summary.json tests/data/golden/tiny.summary.json
  EXPECT_EQ(deterministic_summary(out + "/summary.json"),
            deterministic_summary(src + "/tests/data/golden/tiny.summary.json"));
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// --reproducible writes wall_time_s as null, so the files must be byte for byte the same whether
// the 5 runs execute one after another on 1 thread or two at a time on 2 threads (issue #10).
TEST(Cli, RunFilesAreBitIdenticalWhateverThreadsAndJobs) {
  const std::string src = COMMLAB_SOURCE_DIR;
  const std::string a = ::testing::TempDir() + "/threads1", b = ::testing::TempDir() + "/jobs2";
  const std::string base = "run " + src + "/tests/data/golden/tiny.json --quiet --reproducible ";
  ASSERT_EQ(run_cli(base + "--threads 1 --jobs 1 --out " + a).code, 0);
  ASSERT_EQ(run_cli(base + "--threads 2 --jobs 2 --out " + b).code, 0);
  const std::string summary = slurp(a + "/summary.json"), series = slurp(a + "/series.csv");
  EXPECT_EQ(summary, slurp(b + "/summary.json"));
  EXPECT_EQ(series, slurp(b + "/series.csv"));
  EXPECT_NE(summary.find("\"wall_time_s\": null"), std::string::npos);
  // 5 runs x 30 iterations + the header.
  EXPECT_EQ(lines(series), 151);
  // And it is the committed golden summary, apart from the wall time it leaves out.
  EXPECT_EQ(deterministic_summary(a + "/summary.json"),
            deterministic_summary(src + "/tests/data/golden/tiny.summary.json"));
}

TEST(Cli, RunRejectsABadScenarioWithExitTwo) {
  Output o = run_cli("run /nonexistent/scenario.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_FALSE(o.err.empty());
}

}  // namespace
