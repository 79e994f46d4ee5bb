// run --fork-at K (the forks, scenario/run/fork.h): every run but the baseline continues
// the baseline's training from iteration K. Its series rows up to K are the baseline's, the
// summary says where it forked, and a fork that changes the training itself is refused (exit 2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.h"

namespace {

using commlab::testing::run_cli;

std::string temp_path(const std::string& stem) {
  return ::testing::TempDir() + "/" + stem + "_" + std::to_string(getpid());
}

std::string write_scenario(const std::string& stem, const std::string& third_run) {
  const std::string path = temp_path(stem) + ".json";
  std::ofstream(path) << R"({"name": "fork", "seed": 3, "cluster": {"spec": "flat:4,gbps=100"},
    "workload": {"model": "mlp", "hidden": [16], "dataset": "spiral"},
    "training": {"ranks": 4, "iterations": 12, "global_batch": 32, "eval_every": 3,
                 "eval_rows": 0, "lr": 0.05},
    "runs": [{"name": "baseline"},
             {"name": "skip", "set": {"techniques": {"skipreduce": {"skip": 2,
                                                                    "min_elements": 0}}}},
             )" << third_run
                      << "]}";
  return path;
}

// series.csv rows of one run, without the run column, by iteration (1-based index).
std::vector<std::string> rows_of(const std::string& csv_path, const std::string& run) {
  std::ifstream csv(csv_path);
  std::vector<std::string> rows;
  const std::string prefix = "\"" + run + "\",";
  for (std::string line; std::getline(csv, line);)
    if (line.rfind(prefix, 0) == 0) rows.push_back(line.substr(prefix.size()));
  return rows;
}

TEST(CliFork, ForksShareTheBaselinesRowsUpToTheForkPoint) {
  const std::string scenario =
      write_scenario("fork_ok", R"({"name": "lr", "set": {"training": {"lr": 0.2}}})");
  const std::string out = temp_path("fork_ok_out");
  const auto o =
      run_cli("run " + scenario + " --fork-at 6 --reproducible --quiet --no-charts --out " + out);
  ASSERT_EQ(o.code, 0) << o.err;
  std::ifstream summary_file(out + "/summary.json");
  const nlohmann::json doc = nlohmann::json::parse(summary_file);
  ASSERT_EQ(doc["runs"].size(), 3u);
  EXPECT_FALSE(doc["runs"][0].contains("forked_from"));
  for (int k : {1, 2}) {
    EXPECT_EQ(doc["runs"][k]["forked_from"],
              (nlohmann::json{{"run", "baseline"}, {"iteration", 6}}));
    EXPECT_EQ(doc["runs"][k]["iterations"], 12);
  }
  const auto base = rows_of(out + "/series.csv", "baseline");
  ASSERT_EQ(base.size(), 12u);
  for (const std::string run : {"skip", "lr"}) {
    const auto rows = rows_of(out + "/series.csv", run);
    ASSERT_EQ(rows.size(), 12u) << run;
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(rows[i], base[i]) << run << " iteration " << i + 1;
    // Iteration 7 runs with the fork's settings: SkipReduce sends fewer bytes, lr 0.2 shows in
    // the lr column (and later in the weights).
    EXPECT_NE(rows[6], base[6]) << run;
  }
  // A fork is deterministic: the same command gives the same files.
  const std::string again = temp_path("fork_again_out");
  ASSERT_EQ(run_cli("run " + scenario +
                    " --fork-at 6 --reproducible --quiet --no-charts --jobs 1 --out " + again)
                .code,
            0);
  std::ifstream a(out + "/series.csv"), b(again + "/series.csv");
  std::stringstream sa, sb;
  sa << a.rdbuf();
  sb << b.rdbuf();
  EXPECT_EQ(sa.str(), sb.str());
}

TEST(CliFork, AForkThatChangesTheTrainingIsRefused) {
  const std::string scenario =
      write_scenario("fork_bad", R"({"name": "big", "set": {"training": {"global_batch": 64}}})");
  const auto o = run_cli("run " + scenario + " --fork-at 6 --quiet --no-charts --out " +
                         temp_path("fork_bad_out"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--fork-at: training.global_batch is 64 in 'big' but 32 in 'baseline'"),
            std::string::npos)
      << o.err;
  const auto late = run_cli("run " + write_scenario("fork_late", R"({"name": "x"})") +
                            " --fork-at 12 --quiet --no-charts --out " + temp_path("fork_late"));
  EXPECT_EQ(late.code, 2);
  EXPECT_NE(late.err.find("--fork-at 12: the baseline 'baseline' runs 12 iterations"),
            std::string::npos)
      << late.err;
}

}  // namespace
