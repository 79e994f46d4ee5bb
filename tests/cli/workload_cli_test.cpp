// `workload` on the graph engine (issue #16): the JSON contract, the Chakra round trip through
// the command line (--emit-trace, then --trace), the closed form still one flag away, and flags
// that need the graph refused with the sum engine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../support/cli_runner.h"

namespace commlab {
namespace {

using nlohmann::json;
using testing::run_cli;

const std::string kLlama =
    "workload --catalog llama3-8b --cluster leafspine:servers=4,gpus_per_server=8 --tp 4 --pp 2 "
    "--global-batch 32 --ratio 0.5 --json";

TEST(WorkloadCli, TheGraphEngineReportsTheCriticalPathSplit) {
  const auto o = run_cli(kLlama);
  ASSERT_EQ(o.code, 0) << o.err;
  const json d = json::parse(o.out);
  EXPECT_EQ(d["engine"], "graph");
  EXPECT_EQ(d["dp"], 4);
  for (const char* run : {"baseline", "with_techniques"}) {
    const json& t = d[run];
    // The critical path covers the iteration: compute + exposed communication + idle gaps.
    const double sum = t["compute_s"].get<double>() + t["tp_s"].get<double>() +
                       t["dp_s"].get<double>() + t["pp_s"].get<double>() + t["ep_s"].get<double>() +
                       t["idle_s"].get<double>();
    EXPECT_NEAR(sum, t["iteration_s"].get<double>(), 1e-6 * sum) << run;
    // One stage boundary (pp 2) per replica and TP rank, crossed by an activation and a gradient
    // per micro-batch: 2 x 8 micro-batches (32 / dp 4) x 4 TP ranks x 4 replicas.
    EXPECT_EQ(t["p2p"], 2 * 8 * 4 * 4) << run;
  }
  // Halving TP and DP bytes shortens the iteration, never lengthens it.
  EXPECT_LT(d["with_techniques"]["iteration_s"].get<double>(),
            d["baseline"]["iteration_s"].get<double>());
  EXPECT_GT(d["time_saving"].get<double>(), 0);
}

TEST(WorkloadCli, AnEmittedTraceReplaysToTheSameNumbers) {
  const std::string dir = ::testing::TempDir() + "/workload_cli_trace_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  const auto gen = run_cli(kLlama + " --emit-trace " + dir);
  ASSERT_EQ(gen.code, 0) << gen.err;
  ASSERT_TRUE(std::filesystem::exists(dir + "/llama3-8b.31.et"));
  const auto rep =
      run_cli("workload --trace " + dir +
              "/llama3-8b --cluster leafspine:servers=4,gpus_per_server=8 --ratio 0.5 --json");
  ASSERT_EQ(rep.code, 0) << rep.err;
  const json a = json::parse(gen.out), b = json::parse(rep.out);
  for (const char* run : {"baseline", "with_techniques"})
    EXPECT_DOUBLE_EQ(b[run]["iteration_s"].get<double>(), a[run]["iteration_s"].get<double>());
  EXPECT_EQ(b["gpus"], 32);
  std::filesystem::remove_all(dir);
}

TEST(WorkloadCli, ATrainedModelsTraceReplaysToTheTrainersIteration) {
  // train --emit-trace: the iteration the trainer ran (its compute durations, an FP32 all-reduce
  // per bucket) as Chakra files; read back and replayed on the trainer's alpha-beta ring, it takes
  // the trainer's own simulated iteration time (sim_time_s / iterations; every iteration costs the
  // same, the shapes do not change).
  const std::string dir = ::testing::TempDir() + "/train_trace_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  const auto o = run_cli(
      "train --model mlp --data spiral --ranks 4 --iterations 3 --batch 64 "
      "--link-gbps 10 --json --emit-trace " +
      dir);
  ASSERT_EQ(o.code, 0) << o.err;
  const json d = json::parse(o.out);
  const double per_iteration = d["sim_time_s"].get<double>() / 3;
  // Up to one FP32 element per ring step apart: the planner moves whole elements (the largest
  // chunk is ceil(count / n)), the reducer's formula bytes / n. At most 4 buckets (layers) x
  // 2(n - 1) = 6 steps x 4 bytes at 10 Gb/s.
  EXPECT_NEAR(d["trace_replay_iteration_s"].get<double>(), per_iteration, 4 * 6 * 4 / 1.25e9);
  ASSERT_TRUE(std::filesystem::exists(dir + "/train-mlp.3.et"));
  // The same files replay through `workload --trace`.
  const auto rep = run_cli("workload --trace " + dir + "/train-mlp --json");
  ASSERT_EQ(rep.code, 0) << rep.err;
  EXPECT_EQ(json::parse(rep.out)["gpus"], 4);
  std::filesystem::remove_all(dir);
}

TEST(WorkloadCli, RunWritesATracePerTrainedRunThatReplays) {
  // run --emit-trace: DIR/RUN.RANK.et for each of the scenario's runs (teaching_ring4: ring,
  // skip-1, skip-2 on 4 ranks); each replays through `workload --trace` on its 4 ranks.
  const std::string base = ::testing::TempDir() + "/run_trace_" + std::to_string(getpid());
  std::filesystem::remove_all(base);
  const auto o = run_cli("run " + std::string(COMMLAB_SOURCE_DIR) +
                         "/samples/teaching_ring4.json --quiet --set training.iterations=2 --out " +
                         base + "/out --emit-trace " + base + "/trace");
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* run : {"ring", "skip-1", "skip-2"}) {
    EXPECT_TRUE(std::filesystem::exists(base + "/trace/" + run + ".3.et")) << run;
    const auto rep = run_cli("workload --trace " + base + "/trace/" + run + " --json");
    ASSERT_EQ(rep.code, 0) << rep.err;
    EXPECT_EQ(json::parse(rep.out)["gpus"], 4) << run;
  }
  std::filesystem::remove_all(base);
}

TEST(WorkloadCli, TheClosedFormStaysAvailableAndRefusesGraphOnlyFlags) {
  const auto sum = run_cli(
      "workload --catalog gpt3-175b --cluster netzip-512:gbps=100 --tp 4 --ratio 0.33 --engine sum "
      "--json");
  ASSERT_EQ(sum.code, 0) << sum.err;
  EXPECT_EQ(json::parse(sum.out)["engine"], "sum");
  const auto bad = run_cli(
      "workload --catalog gpt3-175b --cluster netzip-512:gbps=100 --engine sum --no-overlap");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("need --engine graph"), std::string::npos) << bad.err;
  const auto ep = run_cli("workload --catalog gpt3-175b --cluster netzip-512:gbps=100 --ep 2");
  EXPECT_EQ(ep.code, 2);
  EXPECT_NE(ep.err.find("mixture-of-experts"), std::string::npos) << ep.err;
}

}  // namespace
}  // namespace commlab
