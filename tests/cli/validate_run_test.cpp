// validate runs every check run makes before training starts: each scenario below
// passed validate and was then refused by run. Both now go through check_run_startable
// (scenario/runner.h), the function RunSession's constructor is built from: validate exits 2
// with "FILE: run 'NAME': MESSAGE" and run with "commlab-cli: MESSAGE", the same MESSAGE.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_runner.h"

namespace commlab {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

struct Case {
  const char* fields;   // JSON members added to a small 4-rank scenario
  const char* message;  // what both commands say
};

const Case kCases[] = {
    {R"("workload": {"model": "cnn", "dataset": "spiral"})",
     "model cnn needs square single-channel images with a side divisible by 4 (e.g. "
     "fashion-mnist)"},
    {R"("workload": {"model": "transformer", "dataset": "spiral"})",
     "model transformer needs text data (--data text --text FILE)"},
    {R"("workload": {"model": "transformer", "dataset": "text:/nonexistent/corpus.txt"})",
     "workload.dataset: /nonexistent/corpus.txt: cannot read text file"},
    {R"("techniques": {"codec": "powersgd"})",
     "codec 'powersgd' keeps state per stream; collectives need a stateless codec"},
};

// `name`: a file of each test's own (ctest runs the tests in parallel).
fs::path write_scenario(const std::string& name, const std::string& fields) {
  const fs::path file = fs::path(::testing::TempDir()) / (name + ".json");
  std::ofstream(file) << R"({"name": "vr", )" << fields
                      << R"(, "training": {"ranks": 4, "iterations": 2, "global_batch": 16}})";
  return file;
}

TEST(ValidateRun, ValidateRefusesWhatRunRefusesBeforeTraining) {
  for (const Case& c : kCases) {
    const fs::path file = write_scenario("validate_run_refused", c.fields);
    const auto v = run_cli("validate " + file.string());
    EXPECT_EQ(v.code, 2) << c.fields;
    EXPECT_EQ(v.err, file.string() + ": run 'vr': " + c.message + "\n");
    const fs::path out = fs::path(::testing::TempDir()) / "validate_run_out";
    const auto r = run_cli("run " + file.string() + " --quiet --no-charts --out " + out.string());
    EXPECT_EQ(r.code, 2) << c.fields;
    EXPECT_EQ(r.err, std::string("commlab-cli: ") + c.message + "\n");
    EXPECT_FALSE(fs::exists(out)) << "a refused run left a results folder";
  }
}

TEST(ValidateRun, AbsurdClusterNumbersAreRefusedByBoth) {
  const fs::path file =
      write_scenario("validate_run_absurd", R"("cluster": {"spec": "flat:4,gbps=1e30"})");
  const std::string line = file.string() +
                           ":cluster.spec: cluster 'flat:4,gbps=1e30': gbps: expected a number "
                           "at most 1000000, got 1e30\n";
  const auto v = run_cli("validate " + file.string());
  EXPECT_EQ(v.code, 2);
  EXPECT_EQ(v.err, line);
  const auto r = run_cli("run " + file.string() + " --quiet");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, line);
}

TEST(ValidateRun, EverySampleStillValidates) {
  for (const auto& e : fs::directory_iterator(std::string(COMMLAB_SOURCE_DIR) + "/samples"))
    if (e.path().extension() == ".json") {
      const auto v = run_cli("validate " + e.path().string());
      EXPECT_EQ(v.code, 0) << e.path() << ": " << v.err;
    }
}

}  // namespace
}  // namespace commlab

namespace commlab {
namespace {

// A data-dependent refusal: with Dirichlet alpha 1e-300 each class goes to one rank, so of 16 ranks
// on the 2 classes of spiral data most get no rows. The shards are built from the data set;
// validate builds them too (without training) and refuses with run's message.
TEST(ValidateRun, NonIidShardsLeavingARankEmptyAreRefusedByBoth) {
  const fs::path file = fs::path(::testing::TempDir()) / "validate_run_noniid.json";
  std::ofstream(file) << R"({"name": "vr", "workload": {"dataset": "spiral"}, "training": {
      "ranks": 16, "iterations": 2, "global_batch": 64, "sharding": "non-iid",
      "sharding_alpha": 1e-300}})";
  const auto v = run_cli("validate " + file.string());
  EXPECT_EQ(v.code, 2) << v.out << v.err;
  const std::string prefix = file.string() + ": run 'vr': ";
  ASSERT_EQ(v.err.rfind(prefix, 0), 0u) << v.err;
  const std::string message = v.err.substr(prefix.size());
  EXPECT_NE(message.find("non-iid"), std::string::npos) << message;
  const fs::path out = fs::path(::testing::TempDir()) / "validate_run_noniid_out";
  const auto r = run_cli("run " + file.string() + " --quiet --no-charts --out " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "commlab-cli: " + message);
}

}  // namespace
}  // namespace commlab
