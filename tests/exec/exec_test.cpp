// Starts mpirun itself: the MPI executor against the simulated data plane (mpi_plan_check), and
// commlab-cli's --exec mpi paths: the table, the launch hint, mismatched arguments, a dead rank
// and a silent rank. Every job runs under `timeout`, so a hang fails the test instead of CI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "support/shell.h"

namespace {

using commlab::testing::Outcome;
using commlab::testing::shell;

// mpirun on loopback shared memory, more ranks than cores allowed; as root (CI) this test's own
// jobs say so to Open MPI, which otherwise refuses.
std::string mpirun(int ranks, const std::string& env = "") {
  return "timeout 60 " + std::string(COMMLAB_MPIEXEC) +
         (geteuid() == 0 ? " --allow-run-as-root" : "") + " -np " + std::to_string(ranks) +
         " --oversubscribe --mca btl self,vader " + env + " ";
}

TEST(MpiExecutor, BitIdenticalToSimulatedDataPlaneOn2Ranks) {
  // Every algorithm x op x size x SkipReduce x wire: each rank's buffer == execute_plan's.
  Outcome o = shell(mpirun(2) + COMMLAB_PLAN_CHECK);
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("0 failures"), std::string::npos) << o.output;
}

TEST(MpiExecutor, BitIdenticalToSimulatedDataPlaneOn4Ranks) {
  Outcome o = shell(mpirun(4) + COMMLAB_PLAN_CHECK);
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("0 failures"), std::string::npos) << o.output;
}

std::string cli() {
  return std::string(COMMLAB_CLI) + " ";
}

nlohmann::json json_of(const Outcome& o) {
  // The JSON document is the output from its first '{' (mpirun may add lines after it).
  size_t begin = o.output.find('{'), end = o.output.rfind('}');
  if (begin == std::string::npos || end == std::string::npos) return nullptr;
  return nlohmann::json::parse(o.output.substr(begin, end - begin + 1), nullptr, false);
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

TEST(CollectiveMpi, WithoutMpirunSaysHowToLaunch) {
  Outcome o = shell(cli() + "collective --exec mpi --sizes 1K:1K");
  EXPECT_EQ(o.code, 2) << o.output;  // docs/cli.md: invalid use, exit 2
  EXPECT_NE(o.output.find("mpirun -np"), std::string::npos) << o.output;
}

TEST(CollectiveMpi, TableVerifiedOn4RanksEveryAlgorithm) {
  for (const char* algo : {"ring", "tree", "hd", "hier", "direct"}) {
    Outcome o = shell(mpirun(4) + cli() + "collective --exec mpi --json --warmup 1 --iters 2 " +
                      "--sizes 1K:16K --op allreduce --algo " + algo);
    ASSERT_EQ(o.code, 0) << algo << "\n" << o.output;
    nlohmann::json j = json_of(o);
    ASSERT_TRUE(j.is_object()) << o.output;
    EXPECT_EQ(j["ranks"], 4);
    EXPECT_EQ(j["verified"], true);
    ASSERT_EQ(j["rows"].size(), 5u);  // 1K, 2K, 4K, 8K, 16K
    for (const auto& row : j["rows"]) {
      EXPECT_EQ(row["wrong"], 0) << algo;
      // min <= avg <= max over ranks, all positive.
      EXPECT_GT(row["time_min_us"].get<double>(), 0);
      EXPECT_LE(row["time_min_us"].get<double>(), row["time_us"].get<double>() + 1e-9);
      EXPECT_LE(row["time_us"].get<double>(), row["time_max_us"].get<double>() + 1e-9);
      EXPECT_TRUE(row["predicted_us"].is_null());  // no --cluster: uncalibrated
    }
  }
}

TEST(CollectiveMpi, SkipReduceAndOpsVerifiedOn2Ranks) {
  for (const char* op : {"allreduce", "reducescatter", "allgather"}) {
    Outcome o = shell(mpirun(2) + cli() + "collective --exec mpi --json --warmup 0 --iters 1 " +
                      "--sizes 4K:4K --skip 1 --skip-policy random --unbiased --op " + op);
    ASSERT_EQ(o.code, 0) << op << "\n" << o.output;
    EXPECT_EQ(json_of(o)["rows"][0]["wrong"], 0) << o.output;
  }
}

TEST(CollectiveMpi, LosslessCodecRoundTripsOverTheWire) {
  // lz4 on the FP32 bytes: every chunk is encoded by its sender and decoded by its receiver; the
  // reduced buffers stay exact (#wrong 0) and fewer bytes travel than FP32's.
  const std::string base =
      mpirun(2) + cli() + "collective --exec mpi --json --warmup 0 --iters 1 --sizes 64K:64K ";
  Outcome plain = shell(base);
  Outcome lz4 = shell(base + "--codec lz4");
  ASSERT_EQ(plain.code, 0) << plain.output;
  ASSERT_EQ(lz4.code, 0) << lz4.output;
  nlohmann::json p = json_of(plain)["rows"][0], c = json_of(lz4)["rows"][0];
  EXPECT_EQ(c["wrong"], 0);
  // Ring all-reduce on 2 ranks: each rank sends 2 chunks of S/2, so FP32 puts 2 S on the wire.
  EXPECT_EQ(p["bytes_on_wire"].get<double>(), 2.0 * 65536);
  EXPECT_LT(c["bytes_on_wire"].get<double>(), p["bytes_on_wire"].get<double>());
}

TEST(CollectiveMpi, CalibratedClusterGivesAPrediction) {
  const std::string file = std::string(COMMLAB_BINARY_DIR) + "/exec_test_cluster.json";
  Outcome cal = shell(mpirun(2) + cli() + "calibrate --sizes 8:64K --codecs lz4 --out " + file);
  ASSERT_EQ(cal.code, 0) << cal.output;
  Outcome o = shell(mpirun(2) + cli() + "collective --exec mpi --json --warmup 1 --iters 2 " +
                    "--sizes 1K:4K --cluster " + file);
  ASSERT_EQ(o.code, 0) << o.output;
  nlohmann::json j = json_of(o);
  EXPECT_EQ(j["calibrated"], true);
  for (const auto& row : j["rows"]) {
    ASSERT_TRUE(row["predicted_us"].is_number()) << o.output;
    EXPECT_GT(row["predicted_us"].get<double>(), 0);
    // error_pct = (predicted - measured) / measured * 100.
    const double want = (row["predicted_us"].get<double>() - row["time_us"].get<double>()) /
                        row["time_us"].get<double>() * 100;
    EXPECT_NEAR(row["error_pct"].get<double>(), want, 1e-6 * std::abs(want) + 1e-9);
  }
  // The simulated collective accepts the same file (it is a plain explicit topology).
  Outcome sim = shell(cli() + "collective --sizes 1K:1K --cluster " + file);
  EXPECT_EQ(sim.code, 0) << sim.output;
}

TEST(CollectiveMpi, ArgumentMismatchIsAnErrorOnEveryRank) {
  // Two app contexts with different --sizes: every rank says so and the job exits 2.
  Outcome o = shell(mpirun(1) + cli() + "collective --exec mpi --sizes 1K:1K : -np 1 " + cli() +
                    "collective --exec mpi --sizes 2K:2K");
  EXPECT_NE(o.code, 0) << o.output;
  EXPECT_NE(o.code, 124) << "hung: " << o.output;
  EXPECT_EQ(occurrences(o.output, "got other arguments or input files than rank 0"), 2u)
      << o.output;
}

TEST(CollectiveMpi, KilledRankEndsTheJob) {
  // Rank 1 dies (SIGKILL) at its 3rd step: mpirun ends the job and names the rank (documented
  // in docs/validation.md), well before the timeout.
  Outcome o = shell(mpirun(2, "-x COMMLAB_MPI_FAULT=1:kill:3") + cli() +
                    "collective --exec mpi --sizes 64K:64K --iters 50 --timeout 20");
  EXPECT_NE(o.code, 0) << o.output;
  EXPECT_NE(o.code, 124) << "hung: " << o.output;
  EXPECT_NE(o.output.find("rank 1"), std::string::npos) << o.output;
}

TEST(CollectiveMpi, SilentRankEndsTheJobAfterTheTimeout) {
  // Rank 1 stops answering at its 3rd step: rank 0's watchdog gives up after --timeout 2 s and
  // aborts the job with its one-line message.
  Outcome o = shell(mpirun(2, "-x COMMLAB_MPI_FAULT=1:hang:3") + cli() +
                    "collective --exec mpi --sizes 64K:64K --iters 50 --timeout 2");
  EXPECT_NE(o.code, 0) << o.output;
  EXPECT_NE(o.code, 124) << "hung: " << o.output;
  EXPECT_NE(o.output.find("rank 0: no answer within 2 s while step"), std::string::npos)
      << o.output;
}

}  // namespace
