// `commlab-cli traffic` against its contract (docs/cli.md): JSON keys, exit codes.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_runner.h"

namespace {

using Output = commlab::testing::CliOutput;

Output traffic(const std::string& args) {
  return commlab::testing::run_cli("traffic " + args);
}

TEST(TrafficCli, JsonHasTheContractKeys) {
  Output o = traffic("--cluster fattree:k=4 --pattern incast:8 --flow-size 256K --json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  for (const char* key : {"pattern", "flows", "fct_us", "packets_sent", "retransmitted", "trimmed",
                          "dropped", "data_packet_hops", "wall_s", "packet_hops_per_s"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"first", "median", "last", "ideal"})
    EXPECT_TRUE(j["fct_us"].contains(key));
  EXPECT_EQ(j["pattern"], "incast:8");
  EXPECT_EQ(j["flows"], 8);
  // 8 x 256 KB = 512 packets of 4 KB, each sent once plus once per trim (NDP).
  EXPECT_EQ(j["packets_sent"].get<uint64_t>(), 512 + j["retransmitted"].get<uint64_t>());
  EXPECT_GT(j["trimmed"].get<uint64_t>(), 0u);
  EXPECT_GE(j["fct_us"]["last"].get<double>(), j["fct_us"]["ideal"].get<double>());
}

TEST(TrafficCli, AcceptTrimmedRetransmitsNothing) {
  Output o = traffic(
      "--cluster fattree:k=4 --pattern incast:8 --flow-size 256K --transport accept-trimmed "
      "--json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["retransmitted"], 0);
  EXPECT_EQ(j["packets_sent"], 512);
}

TEST(TrafficCli, RoceIsLosslessOnOnePath) {
  Output o =
      traffic("--cluster fattree:k=4 --pattern incast:8 --flow-size 256K --transport roce --json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["transport"], "roce");
  EXPECT_EQ(j["paths"], 1);  // RoCE keeps a flow on its ECMP path by default
  // PFC: an 8-to-1 incast into 8-packet queues drops nothing, so 512 packets are sent once.
  EXPECT_EQ(j["dropped"], 0);
  EXPECT_EQ(j["trimmed"], 0);
  EXPECT_EQ(j["packets_sent"], 512);
}

TEST(TrafficCli, BadInputExitsTwoWithOneLine) {
  for (const char* args :
       {"--cluster fattree:k=4 --pattern ring", "--cluster fattree:k=4",
        "--cluster fattree:k=4 --pattern perm --transport tcp",
        "--cluster fattree:k=4 --pattern perm --flow-size 0",
        "--cluster fattree:k=4 --pattern incast:99", "--cluster nope --pattern perm",
        "--cluster fattree:k=4 --pattern perm --mtu 0"}) {
    Output o = traffic(args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << args;
  }
}

double collective_time_us(const std::string& backend) {
  Output o = commlab::testing::run_cli(
      "collective --ranks 16 --sizes 16M:16M --time-only "
      "--slice-bytes 0 --json --backend " +
      backend);
  EXPECT_EQ(o.code, 0) << o.err;
  return nlohmann::json::parse(o.out)["rows"][0]["time_us"].get<double>();
}

TEST(CollectiveCli, AnalyticalWithFramingIsThePacketBackendsTimeOnAnUncongestedRing) {
  // flat:16 ring all-reduce, 16 MiB, bulk-synchronous steps: the packet backend exceeds plain
  // alpha-beta by its headers and control packets (~3.1%); --backend analytical+framing adds
  // them (network/framed_backend.h) and agrees within 2%.
  const double packet = collective_time_us("packet");
  const double plain = collective_time_us("analytical");
  const double framed = collective_time_us("analytical+framing");
  EXPECT_NEAR(packet / framed, 1.0, 0.02);
  EXPECT_GT(packet / plain, 1.02);
  Output bad = commlab::testing::run_cli("collective --sizes 1K:1K --backend nope");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("analytical, packet or analytical+framing"), std::string::npos) << bad.err;
}

}  // namespace
