// The calibration's size-aware view (Calibration::at_message): interpolation between measured
// samples and the link bandwidth and reduction speed a collective of a given message size sees.
// Pure arithmetic on a hand-made calibration: no MPI needed.
#include "exec/calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace {

using commlab::exec::Calibration;
using commlab::exec::interpolate_log_log;
using commlab::exec::LatencyBandwidth;

TEST(Calibration, LogLogInterpolationIsExactOnAPowerLaw) {
  // y = 3 x^0.5 is a straight line in log-log: between samples 1K and 1M, y(32K) = 3 * 2^7.5.
  std::vector<std::pair<uint64_t, double>> s{{1 << 10, 3.0 * 32}, {1 << 20, 3.0 * 1024}};
  EXPECT_NEAR(interpolate_log_log(s, 32 << 10), 3.0 * std::pow(2.0, 7.5), 1e-9);
  // Outside the samples: the end values.
  EXPECT_DOUBLE_EQ(interpolate_log_log(s, 1), 96.0);
  EXPECT_DOUBLE_EQ(interpolate_log_log(s, 1ull << 30), 3072.0);
}

TEST(Calibration, TimeAtFollowsTheSamplesAndTheLineOutsideThem) {
  LatencyBandwidth f;
  f.latency_s = 1e-6;
  f.bandwidth_Bps = 10e9;
  f.samples = {{1024, 2e-6}, {4096, 8e-6}};
  EXPECT_DOUBLE_EQ(f.time_at(1024), 2e-6);
  // 2048 is half-way in log2: 2e-6 * (8/2)^0.5 = 4e-6.
  EXPECT_NEAR(f.time_at(2048), 4e-6, 1e-15);
  // Beyond the samples the fit: 1e-6 + 1 MiB / 10 GB/s.
  EXPECT_NEAR(f.time_at(1 << 20), 1e-6 + (1 << 20) / 10e9, 1e-15);
}

Calibration two_regime() {
  // Cache-resident steps at 20 GB/s up to 512 KiB, memory-bound 5 GB/s from 32 MiB.
  Calibration c;
  c.ranks = 2;
  c.host_of = {0, 0};
  c.ring.latency_s = 1e-6;
  c.ring.bandwidth_Bps = 12e9;  // the one line through both regimes
  c.ring.samples = {{512 << 10, 1e-6 + (512 << 10) / 20e9}, {32 << 20, 1e-6 + (32 << 20) / 5e9}};
  c.reduce_Bps = 30e9;
  c.reduce_samples = {{4096, 80e9}, {16 << 20, 30e9}};
  return c;
}

TEST(Calibration, AtMessageUsesTheBandwidthMeasuredAtThatSize) {
  const Calibration c = two_regime();
  // At a sample: bandwidth = bytes / (t - latency), exactly the sampled regime's.
  EXPECT_NEAR(c.at_message(512 << 10).ring.bandwidth_Bps, 20e9, 1e-3);
  EXPECT_NEAR(c.at_message(32 << 20).ring.bandwidth_Bps, 5e9, 1e-3);
  // The reduction speed follows its own samples: 80 GB/s in cache, 30 GB/s from memory.
  EXPECT_DOUBLE_EQ(c.at_message(4096).reduce_Bps, 80e9);
  EXPECT_DOUBLE_EQ(c.at_message(64 << 20).reduce_Bps, 30e9);
  // Latency and everything else unchanged.
  EXPECT_DOUBLE_EQ(c.at_message(32 << 20).ring.latency_s, 1e-6);
}

TEST(Calibration, SamplesSurviveTheClusterFile) {
  const Calibration c = two_regime();
  const std::string file = std::string(COMMLAB_BINARY_DIR) + "/calibration_test_cluster.json";
  std::ofstream(file) << commlab::exec::calibration_to_json(c).dump();
  std::optional<Calibration> back = commlab::exec::read_calibration(file);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->ring.samples.size(), 2u);
  EXPECT_NEAR(back->at_message(32 << 20).ring.bandwidth_Bps, 5e9, 1e-3 * 5e9 * 1e-9 + 1);
  ASSERT_EQ(back->reduce_samples.size(), 2u);
  EXPECT_NEAR(back->reduce_samples[0].second, 80e9, 1);
}

TEST(Calibration, MalformedSamplesNameTheField) {
  const std::string file = std::string(COMMLAB_BINARY_DIR) + "/calibration_test_bad.json";
  nlohmann::json j = commlab::exec::calibration_to_json(two_regime());
  j["calibration"]["ring"]["samples_bytes_us"] = {{4096, 1.0}, {1024, 2.0}};  // not increasing
  std::ofstream(file) << j.dump();
  try {
    commlab::exec::read_calibration(file);
    FAIL() << "accepted decreasing sample sizes";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("calibration.ring.samples_bytes_us[1]"), std::string::npos)
        << e.what();
  }
}

TEST(Calibration, HostileCountsAreRefusedBeforeAnyAllocation) {
  // A calibration file is user input: hosts = 2^31 - 1 would size per-host tables.
  const std::string file = std::string(COMMLAB_BINARY_DIR) + "/calibration_test_hosts.json";
  nlohmann::json j = commlab::exec::calibration_to_json(two_regime());
  j["calibration"]["hosts"] = 2147483647;
  std::ofstream(file) << j.dump();
  try {
    commlab::exec::read_calibration(file);
    FAIL() << "accepted 2^31 - 1 hosts for 2 ranks";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("calibration.hosts: expected 1 to ranks (2)"),
              std::string::npos)
        << e.what();
  }
}

// The simulated `collective --cluster cal.json` times the file's nodes and links; a malformed
// calibration block in it is checked there too, not only by --exec mpi: every command
// that takes --cluster refuses it.
TEST(Calibration, TheSimulatedCollectiveRefusesAMalformedBlockToo) {
  const std::string file = std::string(COMMLAB_BINARY_DIR) + "/calibration_test_simulated.json";
  nlohmann::json j = commlab::exec::calibration_to_json(two_regime());
  std::ofstream(file) << j.dump();
  const auto good = commlab::testing::run_cli("collective --cluster " + file + " --sizes 4K:8K");
  ASSERT_EQ(good.code, 0) << good.err;  // the file as calibrate writes it is a cluster
  j["calibration"]["reduce_gbps"] = -5;
  std::ofstream(file) << j.dump();
  const auto bad = commlab::testing::run_cli("collective --cluster " + file + " --sizes 4K:8K");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(file + ":calibration.reduce_gbps: expected"), std::string::npos)
      << bad.err;
  // Every command that takes --cluster builds its network in one place (make_backend), which
  // checks the block: workload refuses it as well.
  const auto workload =
      commlab::testing::run_cli("workload --catalog llama3-8b --cluster " + file + " --tp 1");
  EXPECT_EQ(workload.code, 2);
  EXPECT_NE(workload.err.find(file + ":calibration.reduce_gbps: expected"), std::string::npos)
      << workload.err;
}

}  // namespace

// A calibration file is user input. Every field, optional ones included, is checked for
// its type and range with a message naming the field and the value; a negative reduction rate was
// a free reduction, a zero ring bandwidth made only rank 0 throw while the others waited, and a
// wrong-typed optional field ended as the JSON library's message (exit 1).
TEST(Calibration, EveryFieldIsCheckedAndNamed) {
  const std::string file = std::string(COMMLAB_BINARY_DIR) + "/calibration_test_fields.json";
  const std::vector<std::pair<std::string, nlohmann::json>> cases = {
      {"/calibration/reduce_gbps", -5},        {"/calibration/ring/bandwidth_gbps", 0},
      {"/calibration/ring/latency_us", 1e308}, {"/calibration/host_name", 7},
      {"/calibration/oversubscribed", "yes"},  {"/calibration/codecs", {{"codec", "lz4"}}},
      {"/calibration/ring/max_rel_error", "x"}};
  for (const auto& [pointer, bad] : cases) {
    nlohmann::json j = commlab::exec::calibration_to_json(two_regime());
    j[nlohmann::json::json_pointer(pointer)] = bad;
    std::ofstream(file) << j.dump();
    std::string field = pointer.substr(1);
    std::replace(field.begin(), field.end(), '/', '.');
    try {
      commlab::exec::read_calibration(file);
      ADD_FAILURE() << "accepted " << pointer << " = " << bad.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(file + ":" + field + ": expected"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Calibration, DeepJsonIsAOneLineErrorNotACrash) {
  const std::string file = std::string(COMMLAB_BINARY_DIR) + "/calibration_test_deep.json";
  std::ofstream(file) << "{\"calibration\": " << std::string(100000, '[')
                      << std::string(100000, ']') << "}";
  try {
    commlab::exec::read_calibration(file);
    FAIL() << "accepted JSON 100,000 deep";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), file + ":1:80: nesting deeper than 64 levels (100001 deep)");
  }
}
