// `run` across real processes: a short training run with one process per rank equals the
// simulated run bit for bit (every technique the MPI executor carries, and the stateful
// compression baselines top-k and PowerSGD on 2 and 4 processes), and a sweep spread over 2
// processes writes the same files as one process. Every job runs under `timeout`, so a hang fails
// the test instead of CI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/files.h"
#include "support/shell.h"

namespace {

using commlab::testing::read_file;

namespace fs = std::filesystem;
using nlohmann::json;

using commlab::testing::Outcome;
using commlab::testing::shell;

// mpirun on loopback shared memory; as root (CI) this test's own jobs say so to Open MPI, which
// otherwise refuses (never set globally).
std::string mpirun(int processes) {
  return "timeout 60 " + std::string(COMMLAB_MPIEXEC) +
         (geteuid() == 0 ? " --allow-run-as-root" : "") + " -np " + std::to_string(processes) +
         " --oversubscribe --mca btl self,vader " + COMMLAB_CLI;
}

std::string cli() {
  return "timeout 60 " + std::string(COMMLAB_CLI);
}

fs::path scratch(const std::string& name) {
  fs::path dir = fs::path(COMMLAB_BINARY_DIR) / "tests/exec/runs" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs `scenario` (its training.ranks and cluster spec set to `ranks`) reproducibly in one process
// (dir/sim) and on `ranks` MPI processes (dir/real) and checks that they agree; `real` gets the
// MPI run's summary.json (with its "mpi" objects).
void run_both_and_compare(const fs::path& dir, std::string scenario, size_t runs, json& real,
                          int ranks = 2) {
  for (const char* field : {"\"ranks\": 2", "flat:2"}) {
    const std::string from = field;
    const size_t at = scenario.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    scenario.replace(at, from.size(), from.substr(0, from.size() - 1) + std::to_string(ranks));
  }
  std::ofstream(dir / "train.json") << scenario;
  const std::string flags = " --reproducible --quiet --no-charts";
  Outcome sim = shell(cli() + " run " + (dir / "train.json").string() + " --out " +
                      (dir / "sim").string() + flags);
  ASSERT_EQ(sim.code, 0) << sim.output;
  Outcome mpi = shell(mpirun(ranks) + " run " + (dir / "train.json").string() +
                      " --exec mpi --out " + (dir / "real").string() + flags);
  ASSERT_EQ(mpi.code, 0) << mpi.output;
  // Every sample (losses, accuracies, grad norms, divergence between the replicas, wire bytes):
  // the same bytes, so rank r's replica followed the simulated rank r's exactly.
  EXPECT_EQ(read_file(dir / "sim/series.csv"), read_file(dir / "real/series.csv"));
  const json s = json::parse(read_file(dir / "sim/summary.json"));
  real = json::parse(read_file(dir / "real/summary.json"));
  ASSERT_EQ(real["runs"].size(), runs);
  json r = real;
  for (json& run : r["runs"]) {
    // Every bucket each process received equals what the simulated data plane gave that rank.
    EXPECT_EQ(run["mpi"]["processes"], ranks);
    EXPECT_EQ(run["mpi"]["mismatched_buckets"], 0) << run["name"];
    // The prediction is the simulated run's own time plane.
    EXPECT_EQ(run["mpi"]["predicted"]["sim_time_s"], run["sim_time_s"]);
    // The bytes the processes really sent are the simulated data plane's bytes on the wire, but
    // for Bernoulli trimming: the sender cuts the packets a switch would trim, where the
    // simulated wire counts them whole (the network trims nothing in that mode).
    const uint64_t sent = run["mpi"]["bytes_sent"], on_wire = run["bytes_on_wire"];
    if (run["trimmed_packets"].get<uint64_t>() > 0)
      EXPECT_LT(sent, on_wire) << run["name"];
    else
      EXPECT_EQ(sent, on_wire) << run["name"];
    run.erase("mpi");
  }
  EXPECT_EQ(s, r);
}

// 2 ranks, a small MLP on Fashion-MNIST, one run per technique the real collective carries, and
// one on non-iid shards (each process draws its own shard's rows, as the simulated rank does).
const std::string kTwoRanks = R"({
  "name": "mpi_train", "seed": 3,
  "cluster": {"spec": "flat:2,gbps=100,alpha_us=5"},
  "workload": {"model": "mlp", "hidden": [32], "dataset": "fashion-mnist", "max_train": 2000},
  "training": {"ranks": 2, "iterations": 12, "global_batch": 64, "eval_every": 6,
               "eval_rows": 500, "lr": 0.05},
  "collective": {"algorithm": "ring", "wire": "bf16"},
  "runs": [)";
const std::string kTraining = kTwoRanks + R"(
    {"name": "ring-bf16"},
    {"name": "tree-fp32", "set": {"collective": {"algorithm": "tree", "wire": "fp32"}}},
    {"name": "skip-random", "set": {"techniques": {"skipreduce": {"skip": 1, "policy": "random",
                                                                  "min_elements": 0}}}},
    {"name": "codec", "set": {"techniques": {"codec": "commlab"}}},
    {"name": "trim-eden", "set": {"collective": {"wire": "fp32"},
        "techniques": {"trimming": {"enabled": true, "encoding": "eden", "rate": 0.3}}}},
    {"name": "non-iid", "set": {"training": {"sharding": "non-iid", "sharding_alpha": 0.3}}}
  ]})";

TEST(MpiTraining, ShortRunOnTwoProcessesEqualsTheSimulatedRun) {
  const fs::path dir = scratch("train");
  json r;
  ASSERT_NO_FATAL_FAILURE(run_both_and_compare(dir, kTraining, 6, r));
  // SkipReduce really dropped contributions and trimming really cut packets (not a no-op run).
  EXPECT_GT(r["runs"][2]["skipped_steps"].get<int>(), 0);
  EXPECT_GT(r["runs"][4]["trimmed_packets"].get<int>(), 0);
}

// The compression baselines keep per-bucket state on each process (top-k's residual, PowerSGD's
// Q) and exchange the compressed form for real: top-1% pairs on a bf16 wire, PowerSGD rank 1 and 4
// (fc1's 25,120 values as a 158 x 159 matrix, the head's 330 as 18 x 19: both compress).
const std::string kCompressed = kTwoRanks + R"(
    {"name": "topk-1pct", "set": {"techniques": {"topk": {"enabled": true, "fraction": 0.01}}}},
    {"name": "powersgd-r1", "set": {"techniques": {"powersgd": {"enabled": true, "rank": 1}}}},
    {"name": "powersgd-r4-tree-fp32", "set": {"collective": {"algorithm": "tree", "wire": "fp32"},
        "techniques": {"powersgd": {"enabled": true, "rank": 4}}}}
  ]})";

TEST(MpiTraining, CompressionBaselinesOnTwoProcessesEqualTheSimulatedRun) {
  const fs::path dir = scratch("compressed");
  // Bit-identical, no tolerance: each process runs the simulated reducer's exchange for its rank
  // (compressed_exchange.h) with the same plans, codecs and reduction order, so every loss and
  // accuracy of the series is the same double, and each process's state (residuals, Q) follows
  // the simulated rank's.
  json r;
  ASSERT_NO_FATAL_FAILURE(run_both_and_compare(dir, kCompressed, 3, r));
  // Top-1% sends k = ceil(0.01 n) pairs of 6 B (u32 index + bf16 value) instead of 2 B per value:
  // well under the dense wire (ratio = 6 k / (2 n) ~ 0.03 per bucket, plus chunk padding).
  EXPECT_LT(r["runs"][0]["mean_ratio"].get<double>(), 0.1);
  // PowerSGD rank 1 sends (rows + cols) r values per bucket instead of its size:
  // (158 + 159 + 18 + 19) / (25,120 + 330) ~ 0.014 of the dense wire.
  EXPECT_LT(r["runs"][1]["mean_ratio"].get<double>(), 0.2);
}

// 4 processes: the all-gather takes 3 ring steps and the sums of 4 sets (and of 4 P, 4 Q) run in
// rank order on every process, as in the simulated reducer.
TEST(MpiTraining, CompressionBaselinesOnFourProcessesEqualTheSimulatedRun) {
  const fs::path dir = scratch("compressed4");
  json r;
  ASSERT_NO_FATAL_FAILURE(run_both_and_compare(dir, kCompressed, 3, r, 4));
}

// `scenario` on 2 processes for `iterations` iterations, the measured wall-clock values kept.
void run_measured(const fs::path& dir, const std::string& scenario, int iterations, json& summary) {
  std::ofstream(dir / "train.json") << scenario;
  Outcome real = shell(mpirun(2) + " run " + (dir / "train.json").string() +
                       " --exec mpi --quiet --no-charts --set training.iterations=" +
                       std::to_string(iterations) + " --out " + (dir / "out").string());
  ASSERT_EQ(real.code, 0) << real.output;
  summary = json::parse(read_file(dir / "out/summary.json"));
}

TEST(MpiTraining, SummaryRecordsTheMeasuredSplit) {
  json r;
  ASSERT_NO_FATAL_FAILURE(run_measured(scratch("split"), kTraining, 3, r));
  for (const json& run : r["runs"]) {
    const json& m = run["mpi"]["measured_max"];
    // Each rank's whole iterations contain its compute, collectives and codec, so on the slowest
    // rank wall >= each part, and each part was really measured (> 0 s).
    EXPECT_GT(m["compute_s"].get<double>(), 0) << run["name"];
    EXPECT_GT(m["comm_s"].get<double>(), 0) << run["name"];
    EXPECT_GE(m["wall_s"].get<double>(), m["compute_s"].get<double>()) << run["name"];
    EXPECT_GE(m["wall_s"].get<double>(), m["comm_s"].get<double>()) << run["name"];
  }
  // A codec's encode/decode is timed on its own (the plain wires have none).
  EXPECT_GT(r["runs"][3]["mpi"]["measured_max"]["codec_s"].get<double>(), 0);
}

TEST(MpiTraining, CompressionKernelsAreMeasuredAsCodecTime) {
  json r;
  ASSERT_NO_FATAL_FAILURE(run_measured(scratch("compressed_split"), kCompressed, 2, r));
  ASSERT_EQ(r["runs"].size(), 3u);
  for (const json& run : r["runs"]) {
    const json& m = run["mpi"]["measured_max"];
    // Top-k's selection and sums, PowerSGD's products: measured, and inside the whole iteration
    // (top-k's all-gather moves its packed bytes as FP32, which encodes nothing, so its codec
    // time is the kernels' alone).
    EXPECT_GT(m["codec_s"].get<double>(), 0) << run["name"];
    EXPECT_GE(m["wall_s"].get<double>(), m["codec_s"].get<double>()) << run["name"];
  }
}

TEST(MpiTraining, WrongProcessCountAndMissingMpirunAreClearErrors) {
  const fs::path dir = scratch("errors");
  std::ofstream(dir / "train.json") << kTraining;
  Outcome three = shell(mpirun(3) + " run " + (dir / "train.json").string() +
                        " --exec mpi --quiet --no-charts --out " + (dir / "out").string());
  EXPECT_NE(three.code, 0);
  EXPECT_NE(three.output.find("training.ranks: 2 ranks, but mpirun started 3 processes"),
            std::string::npos)
      << three.output;
  Outcome plain = shell(cli() + " run " + (dir / "train.json").string() +
                        " --exec mpi --quiet --no-charts --out " + (dir / "out").string());
  EXPECT_EQ(plain.code, 2);
  EXPECT_NE(plain.output.find("mpirun -np"), std::string::npos) << plain.output;
}

TEST(MpiBatch, SweepSplitOverTwoProcessesEqualsTheSerialRun) {
  const fs::path dir = scratch("sweep");
  std::ofstream(dir / "sweep.json") << R"({
    "name": "mpi_sweep", "seed": 6,
    "cluster": {"spec": "flat:4,gbps=100,alpha_us=5"},
    "workload": {"model": "mlp", "hidden": [16], "dataset": "fashion-mnist", "max_train": 1000},
    "training": {"ranks": 4, "iterations": 8, "global_batch": 64, "eval_every": 4,
                 "eval_rows": 300},
    "techniques": {"skipreduce": {"policy": "random", "min_elements": 0}},
    "runs": [{"name": "skip"}],
    "sweep": [{"path": "techniques.skipreduce.skip", "values": [0, 1, 2]},
              {"path": "training.lr", "values": [0.02, 0.05]}]})";
  const std::string flags = " --reproducible --no-charts";
  Outcome serial = shell(cli() + " run " + (dir / "sweep.json").string() + " --out " +
                         (dir / "serial").string() + flags + " --quiet");
  ASSERT_EQ(serial.code, 0) << serial.output;
  Outcome spread = shell(mpirun(2) + " run " + (dir / "sweep.json").string() + " --out " +
                         (dir / "spread").string() + flags);
  ASSERT_EQ(spread.code, 0) << spread.output;
  // 6 sweep points, point k on process k % 2: process 0 ran 3 and gathered 3.
  EXPECT_NE(spread.output.find("6 runs on 2 processes: 3 here, 3 gathered"), std::string::npos)
      << spread.output;
  for (const char* f : {"summary.json", "series.csv", "scenario.json", "VERSION"})
    EXPECT_EQ(read_file(dir / "serial" / f), read_file(dir / "spread" / f)) << f;
  EXPECT_EQ(json::parse(read_file(dir / "spread/summary.json"))["runs"].size(), 6u);
}

}  // namespace
