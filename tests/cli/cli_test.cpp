// The command-line contract (docs/cli.md): exit codes, one-line errors, JSON keys.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_runner.h"
#include "support/files.h"

namespace {

using commlab::testing::read_file;

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

// --reproducible writes wall_time_s as null, so the files must be byte for byte the same whether
// the 5 runs execute one after another on 1 thread or two at a time on 2 threads.
TEST(Cli, RunFilesAreBitIdenticalWhateverThreadsAndJobs) {
  const std::string src = COMMLAB_SOURCE_DIR;
  const std::string a = ::testing::TempDir() + "/threads1", b = ::testing::TempDir() + "/jobs2";
  const std::string base = "run " + src + "/tests/data/golden/tiny.json --quiet --reproducible ";
  ASSERT_EQ(run_cli(base + "--threads 1 --jobs 1 --out " + a).code, 0);
  ASSERT_EQ(run_cli(base + "--threads 2 --jobs 2 --out " + b).code, 0);
  const std::string summary = read_file(a + "/summary.json"), series = read_file(a + "/series.csv");
  EXPECT_EQ(summary, read_file(b + "/summary.json"));
  EXPECT_EQ(series, read_file(b + "/series.csv"));
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

// run --seeds N: the seeds really differ, summary.json carries every seed with its
// mean and interval and the time-to-accuracy against the baseline, and the numbers do not depend
// on --threads or --jobs.
namespace {

using commlab::testing::run_cli;

const std::string kScenario = std::string(COMMLAB_SOURCE_DIR) + "/samples/quickstart.json";
const std::string kSmall =
    " --quiet --no-charts --reproducible --set training.iterations=12 --set training.eval_every=4"
    " --set workload.max_train=2000 --set training.eval_rows=500"
    " --set training.target_accuracy=0.3";

std::string read(const std::string& path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), {}};
}

TEST(CliSeeds, SeedsDifferAndSummaryCarriesIntervals) {
  const std::string out = ::testing::TempDir() + "/seeds_a_" + std::to_string(getpid());
  auto o = run_cli("run " + kScenario + " --seeds 3 --out " + out + kSmall);
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json doc = nlohmann::json::parse(read(out + "/summary.json"));
  ASSERT_FALSE(doc["runs"].empty());
  const nlohmann::json& run = doc["runs"][0];
  const nlohmann::json& seeds = run["seeds"];
  EXPECT_EQ(seeds["n"], 3);
  const uint64_t s0 = run["seed"].get<uint64_t>();
  EXPECT_EQ(seeds["values"], nlohmann::json::array({s0, s0 + 1, s0 + 2}));
  const nlohmann::json& loss = seeds["final_train_loss"]["values"];
  ASSERT_EQ(loss.size(), 3u);
  EXPECT_NE(loss[0], loss[1]);  // other data order and initialisation
  EXPECT_NE(loss[1], loss[2]);
  EXPECT_TRUE(seeds["final_test_accuracy"]["ci95"].is_array());
  EXPECT_EQ(seeds["final_test_accuracy"]["values"][0], run["final_test_accuracy"]);
  EXPECT_TRUE(seeds.contains("time_to_accuracy_speedup"));
  EXPECT_EQ(seeds["time_to_accuracy_s"]["reached"], 3);
  // series.csv holds every seed's rows, the later seeds under NAME@seed=S.
  const std::string csv = read(out + "/series.csv");
  EXPECT_NE(csv.find("@seed=" + std::to_string(s0 + 2)), std::string::npos);
}

TEST(CliSeeds, SameNumbersWhateverThreadsAndJobs) {
  const std::string a = ::testing::TempDir() + "/seeds_t1_" + std::to_string(getpid());
  const std::string b = ::testing::TempDir() + "/seeds_t2_" + std::to_string(getpid());
  ASSERT_EQ(
      run_cli("run " + kScenario + " --seeds 2 --threads 1 --jobs 1 --out " + a + kSmall).code, 0);
  ASSERT_EQ(
      run_cli("run " + kScenario + " --seeds 2 --threads 2 --jobs 2 --out " + b + kSmall).code, 0);
  EXPECT_EQ(read(a + "/summary.json"), read(b + "/summary.json"));
  EXPECT_EQ(read(a + "/series.csv"), read(b + "/series.csv"));
}

TEST(CliSeeds, OneSeedGivesNoInterval) {
  const std::string out = ::testing::TempDir() + "/seeds_one_" + std::to_string(getpid());
  ASSERT_EQ(run_cli("run " + kScenario + " --out " + out + kSmall).code, 0);
  const nlohmann::json doc = nlohmann::json::parse(read(out + "/summary.json"));
  const nlohmann::json& acc = doc["runs"][0]["seeds"]["final_test_accuracy"];
  EXPECT_EQ(acc["n"], 1);
  EXPECT_TRUE(acc["ci95"].is_null());
  EXPECT_FALSE(acc["mean"].is_null());
}

TEST(CliSeeds, AFinishedResultRefusesAddedSeeds) {
  // Pre-registration: seeds 2 written and finished; asking the same folder for 3 seeds (the same 2
  // and one more) is refused before anything is run or replaced, naming the folder and the field.
  const std::string out = ::testing::TempDir() + "/seeds_prereg_" + std::to_string(getpid());
  ASSERT_EQ(run_cli("run " + kScenario + " --seeds 2 --out " + out + kSmall).code, 0);
  const std::string before = read(out + "/summary.json");
  auto more = run_cli("run " + kScenario + " --seeds 3 --out " + out + kSmall);
  EXPECT_EQ(more.code, 2) << more.err;
  EXPECT_NE(more.err.find(out + " holds a finished result"), std::string::npos) << more.err;
  EXPECT_NE(more.err.find("adds seeds to it"), std::string::npos) << more.err;
  EXPECT_NE(more.err.find("(`seeds`, --seeds, --seed)"), std::string::npos) << more.err;
  EXPECT_EQ(read(out + "/summary.json"), before);
  // Other seeds altogether: refused as a change.
  auto other = run_cli("run " + kScenario + " --seeds 2 --seed 40 --out " + out + kSmall);
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("changes its seeds"), std::string::npos) << other.err;
  // The same seeds again (a reproduction): allowed.
  EXPECT_EQ(run_cli("run " + kScenario + " --seeds 2 --out " + out + kSmall).code, 0);
}

TEST(CliSeeds, RunPrintsTheSpeedupOverTheBaseline) {
  const std::string out = ::testing::TempDir() + "/seeds_print_" + std::to_string(getpid());
  std::string args = kSmall;
  args.erase(args.find(" --quiet"), 8);
  auto o = run_cli("run " + kScenario + " --seeds 2 --out " + out + args);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("over 2 seeds (95% CI): acc "), std::string::npos) << o.err;
  // The censored median of the smoothed crossing and the paired log-t speedup (tta_stats.h).
  EXPECT_NE(o.err.find("time to 30%: "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("speedup vs baseline: "), std::string::npos) << o.err;
  // Pairs used / pairs run on every speedup line.
  EXPECT_NE(o.err.find("2/2 pairs"), std::string::npos) << o.err;
  // And the arms' p-values adjusted together (Holm).
  EXPECT_NE(o.err.find(", Holm-adjusted "), std::string::npos) << o.err;
}

}  // namespace
