// Reliability round 3 (issue #31): each test is one class of failure a hostile user found, and
// fails without its fix: deep JSON crashed, results lied about their seed, concurrent runs lost
// data, flags gave unclear errors, and some inputs grew memory without bound.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/cli_runner.h"

namespace commlab {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("reliability_" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string deep(int levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

size_t lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

// Every JSON CommLab reads goes through one loader with a depth limit checked before parsing:
// a communicator-group file nested 100,000 deep was a SIGSEGV (the message dumped the value).
TEST(Reliability, DeepJsonIsAOneLineErrorEverywhere) {
  const fs::path dir = scratch("deep");
  const auto emit = run_cli("workload --catalog gpt3-175b --cluster flat:4 --tp 2 --emit-trace " +
                            (dir / "t").string());
  ASSERT_EQ(emit.code, 0) << emit.err;
  const std::string prefix = (dir / "t" / "gpt3-175b").string();
  std::ofstream(prefix + ".comm_groups.json") << "{\"1\": " << deep(100000) << "}";
  const auto groups = run_cli("workload --trace " + prefix + " --cluster flat:4");
  EXPECT_EQ(groups.code, 2);
  EXPECT_EQ(groups.err,
            "commlab-cli: " + prefix +
                ".comm_groups.json:1:70: nesting deeper than 64 levels (100001 deep)\n");
  // A value quoted in a message is short, never a dump of the raw value.
  std::ofstream(prefix + ".comm_groups.json") << "{\"1\": [" << deep(60) << "]}";
  const auto shallow = run_cli("workload --trace " + prefix + " --cluster flat:4");
  EXPECT_EQ(shallow.code, 2);
  EXPECT_LT(shallow.err.size(), 300u) << shallow.err;
  EXPECT_EQ(lines(shallow.err), 1u) << shallow.err;

  std::ofstream(dir / "cluster.json") << "{\"nodes\": " << deep(100000) << "}";
  const auto cluster =
      run_cli("collective --sizes 1K:1K --cluster " + (dir / "cluster.json").string());
  EXPECT_EQ(cluster.code, 2);
  EXPECT_NE(cluster.err.find("nesting deeper than 32 levels (100001 deep)"), std::string::npos)
      << cluster.err;
  std::ofstream(dir / "scenario.json") << "{\"name\": " << deep(100000) << "}";
  const auto scenario = run_cli("validate " + (dir / "scenario.json").string());
  EXPECT_EQ(scenario.code, 2);
  EXPECT_EQ(lines(scenario.err), 1u) << scenario.err;
  const auto set = run_cli("validate " + std::string(COMMLAB_SOURCE_DIR) +
                           "/samples/quickstart.json --set 'training.lr=" + deep(2000) + "'");
  EXPECT_EQ(set.code, 2);
  EXPECT_NE(set.err.find("nests deeper than 32 levels"), std::string::npos)
      << set.err.substr(0, 300);
}

}  // namespace
}  // namespace commlab
