// run --seeds N (issue 22): the seeds really differ, summary.json carries every seed with its mean
// and interval and the time-to-accuracy against the baseline, and the numbers do not depend on
// --threads or --jobs.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli_runner.h"

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

TEST(CliSeeds, RunPrintsTheSpeedupOverTheBaseline) {
  const std::string out = ::testing::TempDir() + "/seeds_print_" + std::to_string(getpid());
  std::string args = kSmall;
  args.erase(args.find(" --quiet"), 8);
  auto o = run_cli("run " + kScenario + " --seeds 2 --out " + out + args);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("over 2 seeds (95% CI): acc "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("time to acc 0.300: "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("speedup vs baseline "), std::string::npos) << o.err;
}

}  // namespace
