// `commlab-cli view PAGE`: what a GUI page draws, as JSON on stdout or in
// --out; a bad flag is one line naming it, exit 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_runner.h"

namespace commlab {
namespace {

using nlohmann::json;
using testing::run_cli;

TEST(ViewCli, TeachingRingOnFourRanksHasSevenFrames) {
  const auto o = run_cli("view teaching --ranks 4");
  ASSERT_EQ(o.code, 0) << o.err;
  const json d = json::parse(o.out);
  EXPECT_EQ(d["page"], "teaching");
  // 2(N-1) = 6 ring steps and frame 0.
  ASSERT_EQ(d["frames"].size(), 7u);
  for (const json& rank : d["frames"][6]["masks"])
    for (const json& cell : rank) EXPECT_EQ(cell, 0b1111u);
}

TEST(ViewCli, DefaultsAreWhatThePageShowsWhenTheAppOpens) {
  const auto o = run_cli("view topology");
  ASSERT_EQ(o.code, 0) << o.err;
  const json d = json::parse(o.out);
  EXPECT_EQ(d["settings"]["cluster"], "fattree:k=4");
  EXPECT_EQ(d["settings"]["message_bytes"], 64u << 20);
  EXPECT_EQ(d["ranks"], 16);
  // Same settings, same document: no wall-clock time in it.
  EXPECT_EQ(run_cli("view topology").out, o.out);
}

TEST(ViewCli, FlagsReachTheEngine) {
  const auto o = run_cli("view topology --algorithm tree --bytes 1M --step 2");
  ASSERT_EQ(o.code, 0) << o.err;
  const json d = json::parse(o.out);
  EXPECT_EQ(d["settings"]["algorithm"], "tree");
  EXPECT_EQ(d["settings"]["message_bytes"], 1u << 20);
  EXPECT_EQ(d["step"], 2);
  const auto t = run_cli("view throughput --ranks 4 --min-bytes 1M --max-bytes 4M");
  ASSERT_EQ(t.code, 0) << t.err;
  const json j = json::parse(t.out);
  EXPECT_EQ(j["settings"]["ranks"], 4);
  EXPECT_EQ(j["series"][0]["points"].size(), 3u);  // 1, 2, 4 MiB
}

TEST(ViewCli, WorkloadWithSmallSettingsNamesItsTitle) {
  const auto o =
      run_cli("view workload --model gpt-7b --dp 1 --tp 2 --pp 2 --global-batch 4 --max-ranks 2");
  ASSERT_EQ(o.code, 0) << o.err;
  const json d = json::parse(o.out);
  EXPECT_NE(d["title"].get<std::string>().find("dp 1 x tp 2 x pp 2"), std::string::npos)
      << d["title"];
  EXPECT_GT(d["iteration_s"].get<double>(), 0);
  EXPECT_FALSE(d["lanes"].empty());
}

TEST(ViewCli, OutWritesTheSameDocument) {
  const std::string path = ::testing::TempDir() + "/view_cli_" + std::to_string(getpid()) + ".json";
  const auto o = run_cli("view teaching --ranks 3 --out " + path);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(o.out.empty());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), run_cli("view teaching --ranks 3").out);
  std::remove(path.c_str());
}

struct Refused {
  const char* args;
  const char* message;  // the whole of stderr after "commlab-cli: "
};

TEST(ViewCli, BadFlagsExitTwoNamingTheFlag) {
  const Refused kRefused[] = {
      {"view teaching --ranks 17", "--ranks: expected 2 to 16 ranks, got 17 (see --help)"},
      {"view teaching --trim-rate nan",
       "--trim-rate: expected a finite number, got nan (see --help)"},
      {"view teaching --iteration -1",
       "--iteration: expected 0 to 9007199254740992, got -1 (see --help)"},
      {"view teaching --algorithm direct --skip 1",
       "--skip: SkipReduce runs on ring, tree or hd, not direct, got 1"},
      // hier on 5 ranks with the default 2 per node: not whole nodes (check_teaching).
      {"view teaching --algorithm hier --ranks 5",
       "--ranks-per-node: hier groups ranks into whole nodes: 5 ranks are not a multiple of 2"},
      {"view teaching --algorithm tree --ranks 8 --skip 4",
       "--skip: tree on 8 ranks skips at most 3 reduce levels (its depth), got 4"},
      {"view teaching --skip 4", "--skip: ring on 4 ranks skips at most 3 steps (N-1), got 4"},
      {"view topology --bytes 3", "--bytes: expected a byte size in [4B, 1T], got '3'"},
      {"view topology --algorithm foo",
       "--algorithm: foo not in {ring,tree,hd,direct} (see --help)"},
      {"view throughput --min-bytes 1M --max-bytes 1K",
       "--max-bytes: expected a byte size in [1M, 1T], got '1K'"},
      {"view throughput --proto ll", "--proto requires --cluster (see --help)"},
      // The flat page draws up to 256 MiB when --max-bytes is not given (check_throughput).
      {"view throughput --min-bytes 512M",
       "--min-bytes: expected a byte size in [4B, 256M], got 512M"},
      {"view workload --tp abc", "--tp: expected an integer from 1 to 64, got 'abc' (see --help)"},
      {"view workload --gbps 0", "--gbps: expected 1 to 3200, got 0 (see --help)"},
      {"view", "view: expected a page: topology, teaching, workload or throughput"}};
  for (const Refused& r : kRefused) {
    const auto o = run_cli(r.args);
    EXPECT_EQ(o.code, 2) << r.args;
    EXPECT_EQ(o.err, std::string("commlab-cli: ") + r.message + "\n") << r.args;
    EXPECT_TRUE(o.out.empty()) << r.args;
  }
}

TEST(ViewCli, WhatTheEngineRefusesExitsTwo) {
  const auto o = run_cli("view topology --cluster nope:k=1");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("nope"), std::string::npos) << o.err;
  const auto w = run_cli("view workload --model no-such-model");
  EXPECT_EQ(w.code, 2);
  EXPECT_NE(w.err.find("no-such-model"), std::string::npos) << w.err;
}

// NCCL mode on a huge cluster: the ring's plan is over the transfer limit at the larger sizes.
// The sweep is refused with build_plan's message before the tuner's set-up and the smaller sizes
// are timed (as `collective --algo auto` refuses it); not after running for over a minute.
TEST(ViewCli, AThroughputSweepTooLargeToPlanIsRefusedWithTheLimit) {
  const auto o = run_cli("view throughput --cluster flat:100000");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("transfers, over the limit of 50000000"), std::string::npos) << o.err;
}

// Work budgets that count items (links, plan transfers, the timed step's flows, graph nodes),
// each refused before its work with one line naming the count, the budget and the flag that
// raises it. Without the budgets fattree:k=64 runs 9 s into 163 MB of JSON and the workload for
// minutes.
TEST(ViewCli, ItemBudgetsRefuseBeforeTheWork) {
  struct Refused {
    const char* args;
    const char* message;
  };
  const Refused kRefused[] = {
      // A k-ary fat tree has k^3/4 hosts and 3 k^3/4 duplex links: 2 x 3 x 65536 directed.
      {"view topology --cluster fattree:k=64",
       "cluster fattree:k=64: 393216 links, over the budget of 131072 links of the topology "
       "picture (view topology --max-links raises it)"},
      // k=4: 2 x 3 x 16 = 96 directed links.
      {"view topology --max-links 95",
       "cluster fattree:k=4: 96 links, over the budget of 95 links of the topology picture (view "
       "topology --max-links raises it)"},
      // 17 floats do not divide among 16 ranks, so the ring does not fold: 2 N^2 = 512 transfers.
      {"view topology --bytes 68 --max-transfers 511",
       "algorithm ring on 16 ranks: 512 transfers, over the budget of 511 transfers of the "
       "topology picture (view topology --max-transfers raises it)"},
      // direct: one step in which every rank sends to every other, N (N - 1) = 240 flows.
      {"view topology --algorithm direct --max-flows 239",
       "algorithm direct on 16 ranks: step 1 has 240 flows, over the budget of 239 flows of the "
       "topology picture (view topology --max-flows raises it)"},
      {"view workload --model llama3-8b --dp 64 --tp 8 --pp 8 --global-batch 24576 --max-ranks 32",
       "llama3-8b: the graph would have about 56810212 nodes, over the budget of 524288 graph "
       "nodes of the workload picture (view workload --max-graph-nodes raises it)"}};
  for (const Refused& r : kRefused) {
    const auto o = run_cli(r.args);
    EXPECT_EQ(o.code, 2) << r.args;
    EXPECT_EQ(o.err, std::string("commlab-cli: ") + r.message + "\n") << r.args;
    EXPECT_TRUE(o.out.empty()) << r.args;
  }
  // At the budget the page is drawn.
  EXPECT_EQ(run_cli("view topology --max-links 96 --bytes 68 --max-transfers 512").code, 0);
  EXPECT_EQ(run_cli("view topology --algorithm direct --max-flows 240").code, 0);
  const auto small = run_cli("view workload --max-graph-nodes 1");
  EXPECT_EQ(small.code, 2);
  EXPECT_NE(small.err.find("over the budget of 1 graph nodes"), std::string::npos) << small.err;
}

}  // namespace
}  // namespace commlab
