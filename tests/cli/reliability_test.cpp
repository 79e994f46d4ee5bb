// Reliability round 3: each test is one class of failure a hostile user found, and
// fails without its fix: deep JSON crashed, results lied about their seed, concurrent runs lost
// data, flags gave unclear errors, and some inputs grew memory without bound.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/cli_runner.h"
#include "support/files.h"

namespace commlab {
namespace {

using commlab::testing::read_file;

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

const char* kTinyRun = R"({"name": "q", "seed": 1, "cluster": {"spec": "flat:2"},
  "workload": {"model": "mlp", "hidden": [8], "dataset": "spiral"},
  "training": {"ranks": 2, "iterations": 2, "global_batch": 16, "eval_every": 1, "eval_rows": 0},
  "runs": [{"name": "a\"b", "set": {"seed": 3}}]})";

// Results that lied: the folder's scenario.json kept the scenario's seed after --seed 5, --seed -1
// was ignored, a quote in a run name broke series.csv, validate passed a trace that does not
// exist, and a chart that failed to write still committed the folder with exit 0.
TEST(Reliability, ResultsRecordWhatRanAndRefuseWhatCannot) {
  const fs::path dir = scratch("lies");
  std::ofstream(dir / "q.json") << kTinyRun;
  const std::string scn = (dir / "q.json").string();
  const auto run =
      run_cli("run " + scn + " --seed 5 --no-charts --quiet --out " + (dir / "o").string());
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string recorded = read_file(dir / "o" / "scenario.json");
  EXPECT_NE(recorded.find("\"seed\": 5"), std::string::npos) << recorded;
  EXPECT_EQ(recorded.find("\"seed\": 3"), std::string::npos) << recorded;
  EXPECT_NE(read_file(dir / "o" / "series.csv").find("\n\"a\"\"b\",1,"), std::string::npos);
  for (const char* seed : {"-1", "9007199254740993"}) {
    const auto bad =
        run_cli("run " + scn + " --no-charts --out " + (dir / "x").string() + " --seed " + seed);
    EXPECT_EQ(bad.code, 2) << seed;
    EXPECT_NE(bad.err.find(std::string("--seed ") + seed +
                           ": expected an integer in [0, 9007199254740992]"),
              std::string::npos)
        << bad.err;
  }
  std::ofstream(dir / "trace.json") << R"({"name": "t", "cluster": {"spec": "flat:4"},
    "workload": {"kind": "trace", "trace": "/nonexistent/x", "engine": "graph"}})";
  const auto validate = run_cli("validate " + (dir / "trace.json").string());
  EXPECT_EQ(validate.code, 2);
  EXPECT_NE(validate.err.find("workload.trace: no trace file '/nonexistent/x.0.et'"),
            std::string::npos)
      << validate.err;
#ifdef COMMLAB_HAVE_CHARTS
  ::setenv("COMMLAB_FAIL_WRITE", "loss_time.svg", 1);  // results_io.h: a simulated full disk
  const auto full = run_cli("run " + scn + " --quiet --out " + (dir / "full").string());
  ::unsetenv("COMMLAB_FAIL_WRITE");
  EXPECT_EQ(full.code, 1) << full.err;
  EXPECT_NE(full.err.find("loss_time.svg: No space left on device"), std::string::npos) << full.err;
  EXPECT_FALSE(fs::exists(dir / "full"));
#endif
}

// Two runs into one --out: the second deleted the first's live DIR.incomplete and the first
// committed a mix of both. Now the second refuses naming the live pid; a dead run's lock is reused.
TEST(Reliability, ASecondRunIntoALiveFolderIsRefused) {
  const fs::path dir = scratch("lock");
  std::ofstream(dir / "q.json") << kTinyRun;
  const std::string run =
      "run " + (dir / "q.json").string() + " --no-charts --quiet --out " + (dir / "D").string();
  std::ofstream(dir / "D.lock") << "999999";  // a stale lock: no process holds it
  std::thread first([&] {
    const auto o = run_cli(run + " --set training.iterations=1500");
    EXPECT_EQ(o.code, 0) << o.err;
  });
  for (int i = 0; i < 400 && !fs::exists(dir / "D.incomplete"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto second = run_cli(run);
  first.join();
  EXPECT_EQ(second.code, 2);
  EXPECT_NE(second.err.find("is being written by commlab-cli pid "), std::string::npos)
      << second.err;
  EXPECT_TRUE(fs::exists(dir / "D" / "summary.json"));
  EXPECT_NE(read_file(dir / "D" / "summary.json").find("\"iterations\": 1500"), std::string::npos);
}

// Unclear errors: each names the flag, the value and what is expected, on one line, exit 2.
TEST(Reliability, BadFlagsNameTheFlagTheValueAndTheExpectation) {
  const fs::path dir = scratch("flags");
  std::ofstream(dir / "empty.bin").flush();
  const auto emit = run_cli("workload --catalog gpt3-175b --cluster flat:4 --tp 2 --emit-trace " +
                            (dir / "t").string());
  ASSERT_EQ(emit.code, 0) << emit.err;
  const std::string trace = (dir / "t" / "gpt3-175b").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"collective --bw 0 --sizes 1K:1K", "--bw: expected a number > 0, got 0"},
      {"traffic --cluster fattree:k=4 --pattern perm --mtu 1", "--mtu 1: expected more than 64"},
      {"nosuch", "unknown subcommand 'nosuch' (expected one of: "},
      {"collective --ranks-per-node -3 --sizes 1K:1K",
       "--ranks-per-node: expected 1 to 1048576, got -3"},
      // Range flags refuse in the words of the engine's settings (catalog_settings: tp 1..4096).
      {"workload --tp 0", "--tp: expected 1 to 4096, got 0"},
      {"workload --tp 99999999999", "--tp: expected 1 to 4096, got 99999999999"},
      {"workload --tp 2.5", "--tp: expected an integer from 1 to 4096, got '2.5'"},
      {"workload --mfu 2", "--mfu: expected a number in (0, 1], got 2"},
      {"collective --ranks 0 --sizes 1K:1K", "--ranks: expected 1 to 1048576 ranks, got 0"},
      {"workload --trace ''", "--trace: expected a path, got an empty value"},
      {"workload --trace " + trace + " --cluster flat:4 --skip 1000",
       "--skip 1000: expected at most 3, the N-1 steps of a ring over the trace's 4 ranks (" +
           trace + ".0.et to .3.et)"},
      {"workload --trace " + trace + " --cluster flat:2",
       "--cluster flat:2: 2 GPUs, expected at least 4, one for each of the trace's 4 ranks (" +
           trace + ".0.et to .3.et)"},
      {"codec --input " + (dir / "empty.bin").string(), "is empty (expected bf16 values)"},
      // 2 n^2 = 8e8 ring transfers over the 5e7 cap; auto said "algorithm 'ring'" unexplained.
      {"collective --algo auto --ranks 20000 --time-only --sizes 1K:1K",
       "--algo auto (NCCL's tuner, whose ring is checked): algorithm 'ring' on 20000 ranks"}};
  for (const auto& [args, expected] : cases) {
    const auto o = run_cli(args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_NE(o.err.find(expected), std::string::npos) << args << ": " << o.err;
    EXPECT_EQ(lines(o.err), 1u) << o.err;
    EXPECT_LT(o.err.size(), 320u) << o.err;
  }
}

// Work without bound: the cap is on the work (trials x dim) and the message says cap and value.
TEST(Reliability, QuantizeWorkIsCapped) {
  const auto o = run_cli("quantize --encoding eden --trials 2000000000");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--trials 2000000000 x --dim 16384 = 32768000000000 coordinates to encode, "
                       "over the cap of 1073741824"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(run_cli("quantize --encoding eden --trials 2 --dim 1024").code, 0);
}

#ifdef COMMLAB_HAVE_CHARTS
// The GUI ignored bad values of its own flags: each is now an error naming the flag, exit 2.
TEST(Reliability, GuiFlagsAreCheckedNotIgnored) {
  const std::string gui = std::string("QT_QPA_PLATFORM=offscreen ") + COMMLAB_BINARY_DIR +
                          "/app/commlab --screenshot " + ::testing::TempDir() + "/never.png ";
  const std::string scn = std::string(COMMLAB_SOURCE_DIR) + "/samples/quickstart.json";
  for (const auto& [args, expected] : std::vector<std::pair<std::string, std::string>>{
           {"--size abc", "--size: expected WxH"},
           {scn + " --run 99", "--run: expected an integer from 0 to"},
           {"--run 1", "--run 1: chooses one of a scenario's runs; give the scenario file too"},
           {"--iterations -5", "--iterations: expected 1 to 1000000, got -5"},
           // The Throughput tab's chooser holds the flat network and 6 NCCL clusters: 0 to 6.
           {"--throughput-cluster 7",
            "--throughput-cluster: expected an integer from 0 to 6, got '7'"},
           {"--throughput-cluster abc",
            "--throughput-cluster: expected an integer from 0 to 6, got 'abc'"},
           // Parsed by commlab-cli's flag parser: the same checks and words.
           {"--skip abc", "--skip: expected an integer from 0 to 15, got 'abc'"},
           {"--teach-ranks 99999", "--teach-ranks: expected 2 to 16 ranks, got 99999"},
           {"--compare-seeds 1", "--compare-seeds: expected 2 to 50, got 1"},
           {"--trim nan", "--trim: expected a finite number, got nan"},
           {"--step -1", "--step: expected 0 to 1000000, got -1"},
           {"--teach-algo bogus", "--teach-algo: bogus not in"},
           // The engine's skip limits, as commlab-cli collective states them.
           {"--teach-algo direct --skip 1",
            "--skip: SkipReduce runs on ring, tree or hd, not direct, got 1"},
           {"--teach-algo tree --teach-ranks 8 --skip 4",
            "--skip: tree on 8 ranks skips at most 3 reduce levels (its depth), got 4"},
           {"--teach-ranks 4 --skip 4",
            "--skip: ring on 4 ranks skips at most 3 steps (N-1), got 4"},
           {"--no-such-flag",
            "commlab: The following argument was not expected: --no-such-flag"}}) {
    const std::string out = ::testing::TempDir() + "/gui_err.txt";
    const int status = std::system((gui + args + " >/dev/null 2>" + out).c_str());
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 2) << args;
    EXPECT_NE(read_file(out).find(expected), std::string::npos) << args << ": " << read_file(out);
  }
}
#endif

// --algo auto checks its ring's plan on a flat network's --ranks before the network is built: a
// million ranks' nodes and routes take 10-14 s to build (release build, busy machine).
TEST(Reliability, AutoOnAMillionRanksIsRefusedBeforeTheNetworkIsBuilt) {
  const auto start = std::chrono::steady_clock::now();
  const auto o = run_cli("collective --algo auto --ranks 1048576 --time-only");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err,
            "commlab-cli: --algo auto (NCCL's tuner, whose ring is checked): algorithm 'ring' on "
            "1048576 ranks needs about 2199023255552 transfers, over the limit of 50000000 (fewer "
            "ranks; for ring, a size divisible by the ranks with --time-only folds the plan)\n");
  EXPECT_LT(s, 5.0);  // the issue's target; measured 0.2 s
}

}  // namespace
}  // namespace commlab
