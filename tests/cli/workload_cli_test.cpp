// `workload` on the graph engine: the JSON contract, the Chakra round trip through
// the command line (--emit-trace, then --trace), the closed form still one flag away, and flags
// that need the graph refused with the sum engine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../workload/chakra_wire.h"
#include "support/cli_runner.h"

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
                       t["other_s"].get<double>() + t["idle_s"].get<double>();
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

// The table's header names the MFU as set: 0.005 is not rounded to 0.01, and a two-decimal value
// keeps its two decimals.
TEST(WorkloadCli, TheHeaderNamesTheMfuAsSet) {
  const std::string table =
      "workload --catalog llama3-8b --cluster leafspine:servers=4,gpus_per_server=8 --tp 4 --pp 2 "
      "--global-batch 32";
  const auto small = run_cli(table + " --mfu 0.005");
  ASSERT_EQ(small.code, 0) << small.err;
  EXPECT_NE(small.out.find("at MFU 0.005,"), std::string::npos) << small.out.substr(0, 200);
  const auto usual = run_cli(table + " --mfu 0.4");
  ASSERT_EQ(usual.code, 0) << usual.err;
  EXPECT_NE(usual.out.find("at MFU 0.40,"), std::string::npos) << usual.out.substr(0, 200);
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
  // The node budget is the user's to set: 32 ranks of llama3-8b hold far more than 100
  // nodes, so the trace is refused before it is parsed, naming the budget and the flag.
  const auto small =
      run_cli("workload --trace " + dir +
              "/llama3-8b --cluster leafspine:servers=4,gpus_per_server=8 --ratio 0.5 "
              "--max-trace-nodes 100");
  EXPECT_EQ(small.code, 2) << small.err;
  EXPECT_NE(small.err.find("over the budget of 100 nodes"), std::string::npos) << small.err;
  EXPECT_NE(small.err.find("--max-trace-nodes"), std::string::npos) << small.err;
  const auto catalog = run_cli(kLlama + " --max-trace-nodes 100");
  EXPECT_EQ(catalog.code, 2);
  EXPECT_NE(catalog.err.find("--max-trace-nodes 100: needs --trace"), std::string::npos)
      << catalog.err;
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

// Writes DIR/t.RANK.et, one file per rank, and returns DIR/t.
std::string write_trace(const std::string& name, const std::vector<std::string>& files) {
  const std::string dir = ::testing::TempDir() + "/" + name + "_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (size_t r = 0; r < files.size(); ++r)
    std::ofstream(dir + "/t." + std::to_string(r) + ".et", std::ios::binary) << files[r];
  return dir + "/t";
}

TEST(WorkloadCli, AThirdPartyTracesCommunicationIsReportedAsOther) {
  using namespace test::chakra_wire;
  // 4 ranks, no commlab_* attributes: 100 us of compute, then an all-to-all of 1 MiB.
  std::vector<std::string> files;
  for (int r = 0; r < 4; ++r)
    files.push_back(
        trace_file({NodeMsg(1, "gemm", kComp).micros(100), NodeMsg(2, "a2a", kColl)
                                                               .attr(attr_i("comm_type", kAllToAll))
                                                               .attr(attr_i("comm_size", 1 << 20))
                                                               .data(1)}));
  const std::string prefix = write_trace("other_trace", files);
  const auto o = run_cli("workload --trace " + prefix + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const json d = json::parse(o.out);
  const json& t = d["baseline"];
  // The default flat network (25 GB/s per rank, 5 us): the all-to-all is one step in which each
  // rank sends S/n to each of the n-1 others over its link, T = alpha + (n-1)(S/n)/B.
  const double a2a = 5e-6 + 3 * (1 << 18) / 25e9;
  EXPECT_NEAR(t["other_s"].get<double>(), a2a, 1e-12);
  EXPECT_NEAR(t["comm_total_s"]["other"].get<double>(), a2a, 1e-12);
  EXPECT_NEAR(t["iteration_s"].get<double>(), 100e-6 + a2a, 1e-12);
  EXPECT_EQ(t["tp_s"], 0.0);
  EXPECT_EQ(t["dp_s"], 0.0);
  EXPECT_EQ(d["compute_timed"], true);
  EXPECT_EQ(d["untimed_compute_nodes"], 0);
  EXPECT_FALSE(d.contains("warning"));
  // The text table has the column.
  const auto text = run_cli("workload --trace " + prefix);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("other(s)"), std::string::npos) << text.out;
  std::filesystem::remove_all(std::filesystem::path(prefix).parent_path());
}

TEST(WorkloadCli, ATraceWithNeitherDurationsNorOpCountsSaysSo) {
  using namespace test::chakra_wire;
  // A host-only PyTorch trace as chakra converts it: CPU ops without durations or op counts.
  std::vector<std::string> files;
  for (int r = 0; r < 2; ++r)
    files.push_back(trace_file({NodeMsg(1, "aten::linear", kComp).attr(attr_b("is_cpu_op", true)),
                                NodeMsg(2, "aten::relu", kComp).data(1)}));
  const std::string prefix = write_trace("untimed_trace", files);
  const auto o = run_cli("workload --trace " + prefix + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("warning: trace " + prefix), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("none of its 4 compute nodes has a duration"), std::string::npos) << o.err;
  const json d = json::parse(o.out);
  EXPECT_EQ(d["compute_timed"], false);
  EXPECT_EQ(d["untimed_compute_nodes"], 4);
  EXPECT_TRUE(d["warning"].is_string());
  EXPECT_TRUE(d["baseline"]["iteration_s"].is_null()) << d["baseline"];
  EXPECT_TRUE(d["time_saving"].is_null());
  const auto text = run_cli("workload --trace " + prefix);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("n/a"), std::string::npos) << text.out;
  EXPECT_NE(text.err.find("warning:"), std::string::npos) << text.err;
  std::filesystem::remove_all(std::filesystem::path(prefix).parent_path());
}

TEST(WorkloadCli, SendsAreEagerUnlessRendezvousIsAsked) {
  using namespace test::chakra_wire;
  // Two ranks, each sends then receives (ASTRA-sim's custom ring shape): eager completes,
  // rendezvous deadlocks with a message that names the waiting send.
  std::vector<std::string> files;
  for (int r = 0; r < 2; ++r)
    files.push_back(trace_file({NodeMsg(1, "send", kSend)
                                    .attr(attr_i("comm_dst", 1 - r))
                                    .attr(attr_i("comm_size", 1 << 17)),
                                NodeMsg(2, "recv", kRecv)
                                    .attr(attr_i("comm_src", 1 - r))
                                    .attr(attr_i("comm_size", 1 << 17))
                                    .data(1)}));
  const std::string prefix = write_trace("p2p_trace", files);
  const auto eager = run_cli("workload --trace " + prefix + " --json");
  ASSERT_EQ(eager.code, 0) << eager.err;
  EXPECT_EQ(json::parse(eager.out)["p2p"], "eager");
  EXPECT_EQ(json::parse(eager.out)["unreceived_sends"], 0);
  EXPECT_EQ(eager.err.find("never received"), std::string::npos) << eager.err;
  // One flow each way on the flat network: T = alpha + S/B.
  EXPECT_NEAR(json::parse(eager.out)["baseline"]["iteration_s"].get<double>(),
              5e-6 + (1 << 17) / 25e9, 1e-12);
  const auto rendezvous = run_cli("workload --trace " + prefix + " --p2p rendezvous --json");
  EXPECT_NE(rendezvous.code, 0);
  EXPECT_NE(rendezvous.err.find("deadlocks after 0 of 4 nodes"), std::string::npos)
      << rendezvous.err;
  const auto bad = run_cli("workload --trace " + prefix + " --p2p lazy");
  EXPECT_EQ(bad.code, 2) << bad.err;
  std::filesystem::remove_all(std::filesystem::path(prefix).parent_path());
}

// Eager sends complete without a recv, but a send no recv matches is reported: how many, on
// stderr and as "unreceived_sends" (0 when every send was received).
TEST(WorkloadCli, SendsThatAreNeverReceivedAreCounted) {
  using namespace test::chakra_wire;
  // Rank 0 sends twice to rank 1, which receives once: one send is never received.
  const std::string prefix =
      write_trace("unreceived_trace", {trace_file({NodeMsg(1, "send", kSend)
                                                       .attr(attr_i("comm_dst", 1))
                                                       .attr(attr_i("comm_size", 1 << 17)),
                                                   NodeMsg(2, "send", kSend)
                                                       .attr(attr_i("comm_dst", 1))
                                                       .attr(attr_i("comm_size", 1 << 17))
                                                       .data(1)}),
                                       trace_file({NodeMsg(1, "recv", kRecv)
                                                       .attr(attr_i("comm_src", 0))
                                                       .attr(attr_i("comm_size", 1 << 17))})});
  const auto o = run_cli("workload --trace " + prefix + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(json::parse(o.out)["unreceived_sends"], 1);
  EXPECT_NE(o.err.find("commlab-cli: warning: trace " + prefix +
                       " (2 ranks, 3 nodes): 1 of 2 sends were never received (eager sends "
                       "complete without a matching recv; their data was timed, nothing received "
                       "it)\n"),
            std::string::npos)
      << o.err;
  const auto text = run_cli("workload --trace " + prefix);
  EXPECT_NE(text.err.find("1 of 2 sends were never received"), std::string::npos) << text.err;
  std::filesystem::remove_all(std::filesystem::path(prefix).parent_path());
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

TEST(WorkloadCli, ATraceRefusesEveryCatalogOnlyFlag) {
  // A trace brings its own model, ranks and groups: flags that shape a catalog model were
  // silently ignored with --trace. Each is refused (exit 2) with one line naming it.
  const std::string dir =
      ::testing::TempDir() + "/workload_cli_catalog_only_" + std::to_string(getpid());
  ASSERT_EQ(run_cli(kLlama + " --emit-trace " + dir).code, 0);
  const std::string trace = "workload --trace " + dir + "/llama3-8b --json ";
  for (const std::string flag : {"--tp 2", "--pp 2", "--dp 4", "--ep 2", "--micro-batch 2",
                                 "--global-batch 64", "--seq 1024", "--grad-dtype fp32",
                                 "--bucket-mb 10", "--no-overlap", "--no-distributed-optimizer"}) {
    const auto o = run_cli(trace + flag);
    EXPECT_EQ(o.code, 2) << flag << ": " << o.err;
    EXPECT_EQ(o.err, "commlab-cli: " + flag +
                         ": applies to catalog models only, not to --trace (a trace has its own "
                         "model, ranks and groups)\n")
        << flag;
    EXPECT_TRUE(o.out.empty()) << flag;
  }
  const auto both = run_cli(trace + "--catalog gpt-7b");
  EXPECT_EQ(both.code, 2) << both.err;
  EXPECT_NE(both.err.find("--catalog gpt-7b: give --catalog or --trace"), std::string::npos)
      << both.err;
  // What does apply to a trace is still taken: the SkipReduce skip and the compute model.
  const auto ok = run_cli(trace + "--skip 1 --mfu 0.5 --gpu h100");
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(json::parse(ok.out)["skip"], 1);
  std::filesystem::remove_all(dir);
}

TEST(WorkloadCli, IdealRoutingRemovesTheLeafSpineEcmpPenalty) {
  // GPT-3 on netzip-512 (tp 8, 8 DP rings side by side), closed form: per-flow ECMP hashes ring
  // flows leaving a leaf onto the same spine uplink, so DP exceeds the bandwidth bound.
  const std::string run =
      "workload --catalog gpt3-175b --cluster netzip-512:gbps=100 --tp 8 --engine sum --json";
  const auto ecmp = run_cli(run);
  ASSERT_EQ(ecmp.code, 0) << ecmp.err;
  const json e = json::parse(ecmp.out);
  EXPECT_EQ(e["routing"], "ecmp");
  const json& cmp = e["routing_comparison"];
  EXPECT_EQ(cmp["routing"], "ideal");
  const double ecmp_dp = e["baseline"]["dp_s"].get<double>();
  const double ideal_dp = cmp["baseline"]["dp_s"].get<double>();
  // ECMP penalty = DP under ECMP / DP under ideal routing.
  EXPECT_NEAR(cmp["ecmp_penalty_dp"].get<double>(), ecmp_dp / ideal_dp, 1e-12 * ecmp_dp);
  EXPECT_GT(ecmp_dp, 1.5 * ideal_dp);
  // The hot links are leaf -> spine (or back) and some is busy longer than any NIC link.
  EXPECT_NE(e["link_load"]["tier"].get<std::string>().find("switch t"), std::string::npos);
  EXPECT_GT(e["link_load"]["busy_over_endpoint_links"].get<double>(), 1.0);
  EXPECT_LT(cmp["link_load"]["busy_over_endpoint_links"].get<double>(), 1.0);
  // Sprayed over all spines the non-oversubscribed fabric is one big switch: DP is flat:512's plus
  // only the latency of the extra hops through the spine (0.38 ms of 6.9 s).
  const auto flat = run_cli(
      "workload --catalog gpt3-175b --cluster flat:512,gbps=100 --tp 8 --engine sum --json");
  ASSERT_EQ(flat.code, 0) << flat.err;
  const json f = json::parse(flat.out);
  const double flat_dp = f["baseline"]["dp_s"].get<double>();
  // One switch: no flow has a choice of paths, so nothing to compare (and no extra replay).
  EXPECT_EQ(f["ecmp_choices"], false);
  EXPECT_FALSE(f.contains("routing_comparison"));
  EXPECT_EQ(e["ecmp_choices"], true);
  EXPECT_GE(ideal_dp, flat_dp);
  EXPECT_LT(ideal_dp, flat_dp * (1 + 1e-4));
  // --routing ideal runs that timing itself and compares with ECMP.
  const auto ideal = run_cli(run + " --routing ideal");
  ASSERT_EQ(ideal.code, 0) << ideal.err;
  const json i = json::parse(ideal.out);
  EXPECT_EQ(i["baseline"]["dp_s"].get<double>(), ideal_dp);
  EXPECT_EQ(i["routing_comparison"]["baseline"]["dp_s"].get<double>(), ecmp_dp);
  // Only the analytical backend has both modes.
  const auto packet = run_cli(
      "workload --catalog gpt3-175b --cluster netzip-512:gbps=100 --engine sum --backend packet "
      "--routing ideal");
  EXPECT_EQ(packet.code, 2);
  EXPECT_NE(packet.err.find("needs the analytical backend"), std::string::npos) << packet.err;
  EXPECT_EQ(run_cli(run + " --routing spray").code, 2);
}

// The split is resolved by the catalog's rule (resolve_parallelism, through catalog_settings),
// and the refusal names the flag at fault, in the words the Python module uses: flat:8 cannot hold
// tp 4 x pp 4, nor dp 4 x tp 2 x pp 2.
TEST(WorkloadCli, ASplitLargerThanTheClusterNamesTheFlagAtFault) {
  const auto r = run_cli("workload --catalog llama3-8b --cluster flat:8 --tp 4 --pp 4");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "commlab-cli: --tp: tp x pp = 16 exceeds the 8 GPUs of the cluster\n");
  const auto too_many =
      run_cli("workload --catalog llama3-8b --cluster flat:8 --dp 4 --tp 2 --pp 2");
  EXPECT_EQ(too_many.code, 2);
  EXPECT_EQ(too_many.err,
            "commlab-cli: --dp: dp x tp x pp = 16 exceeds the 8 GPUs of the cluster\n");
  // dp 0 fills the cluster: floor(8 / (2 x 2)) = 2 replicas, 8 GPUs.
  const auto ok = run_cli("workload --catalog llama3-8b --cluster flat:8 --tp 2 --pp 2 --json");
  ASSERT_EQ(ok.code, 0) << ok.err;
  const json j = json::parse(ok.out);
  EXPECT_EQ(j["dp"], 2);
  EXPECT_EQ(j["gpus"], 8);
}

}  // namespace
}  // namespace commlab
