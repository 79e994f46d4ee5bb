// Catalog workloads as runs (scenario/run/catalog_run.h): the RunSession's samples and summary
// are the workload timing of workload/workload_timing.h, repeated per iteration, with the
// run's codec ratio measured on real bytes and SkipReduce on the DP reduce-scatter.
#include "scenario/run/catalog_run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "network/analytical.h"
#include "scenario/runner.h"
#include "scenario/scenario.h"
#include "topology/presets.h"
#include "workload/catalog/catalog.h"
#include "workload/catalog/catalog_graph.h"
#include "workload/chakra_trace.h"
#include "workload/scheduler.h"

namespace commlab {
namespace {

RunConfig gpt3_on_64() {
  RunConfig c;
  c.cluster.spec = "flat:64";
  c.training.ranks = 64;
  c.training.iterations = 4;
  c.training.global_batch = 128;
  c.workload.kind = WorkloadKind::kCatalog;
  c.workload.catalog = "gpt3-175b";
  c.workload.tp = 4;
  c.workload.engine =
      WorkloadEngine::kSum;  // the closed form; TheGraphEngine... below replays graphs
  return c;
}

TEST(CatalogRun, SamplesRepeatTheWorkloadTiming) {
  const RunConfig c = gpt3_on_64();
  ASSERT_TRUE(check_run_config(c).empty());
  // The same timing computed directly: tp 4, dp = 64 / 4 = 16, no techniques.
  AnalyticalBackend backend(cluster_from_spec(c.cluster.spec));
  Parallelism p;
  p.tp = 4;
  p.dp = 16;
  p.global_batch = 128;
  ComputeModel compute;
  compute.gpu = gpu_preset(c.cluster.gpu);
  compute.mfu = c.cluster.mfu;
  const WorkloadTiming direct = time_workload(find_workload("gpt3-175b"), p, backend, compute);

  RunSession session(c);
  session.run();
  ASSERT_EQ(session.samples().size(), 4u);
  for (const Sample& s : session.samples()) {
    EXPECT_TRUE(std::isnan(s.train_loss));
    EXPECT_DOUBLE_EQ(s.compute_time_s, direct.compute_s);
    EXPECT_DOUBLE_EQ(s.comm_time_s, direct.tp_s + direct.dp_s + direct.pp_s);
    // Cumulative: iteration i ends at i x iteration_s.
    EXPECT_NEAR(s.sim_time_s, s.iteration * direct.iteration_s, 1e-12 * direct.iteration_s);
  }
  const RunSummary sum = session.summary();
  EXPECT_EQ(sum.iterations, 4);
  EXPECT_DOUBLE_EQ(sum.mean_ratio, 1.0);
  EXPECT_EQ(sum.skipped_steps, 0u);
  EXPECT_TRUE(session.bucket_names().empty());
}

TEST(CatalogRun, ACodecAndSkippingShortenTheIteration) {
  RunConfig base = gpt3_on_64();
  RunConfig tech = base;
  tech.techniques.codec = "commlab";
  tech.techniques.skipreduce.skip = 2;
  tech.workload.tensor_source = "gaussian";
  RunSession b(base), t(tech);
  const Sample sb = b.step(), st = t.step();
  // Compute does not change; communication shrinks (fewer bytes, fewer steps), the wire ratio is
  // the codec's measured on BF16 gaussian values (~0.66, docs/codecs.md).
  EXPECT_DOUBLE_EQ(st.compute_time_s, sb.compute_time_s);
  EXPECT_LT(st.comm_time_s, sb.comm_time_s);
  EXPECT_DOUBLE_EQ(st.ratio, measure_codec_ratio("commlab", "gaussian", tech.seed));
  EXPECT_GT(st.ratio, 0.5);
  EXPECT_LT(st.ratio, 0.8);
  // SkipReduce: 2 steps of each DP reduce-scatter message of the iteration.
  int64_t rs_messages = 0;
  CatalogRun run(tech);
  for (const MessageTiming& m : run.timing().messages)
    if (m.kind == MessageKind::kDpReduceScatter) rs_messages += m.count;
  ASSERT_GT(rs_messages, 0);
  EXPECT_EQ(t.summary().skipped_steps, static_cast<uint64_t>(2 * rs_messages));
}

TEST(CatalogRun, CodecPlacementChargesTheComputedCodecSeconds) {
  RunConfig nic = gpt3_on_64();
  nic.techniques.codec = "commlab";
  nic.workload.tensor_source = "gaussian";
  RunConfig gpu = nic;
  gpu.techniques.codec_placement = CodecPlacement::kGpu;
  const Sample sn = RunSession(nic).step(), sg = RunSession(gpu).step();
  // Encode + decode on a GPU at 100 GB/s (codec_wire.h): 2 / 1e11 s per payload byte, on every
  // message of the iteration (closed form: all exposed). The NIC codes at line rate: 0.
  double payload = 0;
  const CatalogRun run(gpu);
  for (const MessageTiming& m : run.timing().messages)
    payload += static_cast<double>(m.bytes) * static_cast<double>(m.count);
  ASSERT_GT(payload, 0);
  const double expected = 2.0 / 100e9 * payload;
  EXPECT_EQ(sn.codec_time_s, 0.0);
  EXPECT_NEAR(sg.codec_time_s, expected, 1e-9 * expected);
  EXPECT_NEAR(sg.sim_time_s - sn.sim_time_s, expected, 1e-9 * expected);
  EXPECT_DOUBLE_EQ(sg.comm_time_s, sn.comm_time_s) << "the network time does not change";

  // The graph engine splits its exposed time: compute + comm + codec is still the iteration.
  gpu.workload.engine = WorkloadEngine::kGraph;
  const Sample gg = RunSession(gpu).step();
  EXPECT_GT(gg.codec_time_s, 0.0);
  EXPECT_NEAR(gg.compute_time_s + gg.comm_time_s + gg.codec_time_s, gg.sim_time_s,
              1e-9 * gg.sim_time_s);
}

// The scheduler's iteration for `g` on the run's cluster and GPU, without techniques.
double replay_s(const workload::Graph& g, const RunConfig& c) {
  AnalyticalBackend backend(cluster_from_spec(c.cluster.spec));
  workload::SchedulerOptions so;
  so.compute.gpu = gpu_preset(c.cluster.gpu);
  so.compute.mfu = c.cluster.mfu;
  return workload::schedule(g, backend, so).iteration_s;
}

TEST(CatalogRun, TheGraphEngineReplaysTheCatalogGraph) {
  // engine graph (the default): the run's iteration is the scheduler's replay of the catalog
  // graph with the run's techniques; compute + exposed communication (+ idle) = iteration.
  RunConfig c = gpt3_on_64();
  c.workload.engine = WorkloadEngine::kGraph;
  ASSERT_TRUE(check_run_config(c).empty());
  workload::CatalogGraphOptions o;
  o.parallel.tp = 4;
  o.parallel.dp = 16;
  o.parallel.global_batch = 128;
  const workload::Graph g = workload::catalog_graph(find_workload("gpt3-175b"), o);
  const double direct = replay_s(g, c);
  RunSession session(c);
  const Sample s1 = session.step();
  EXPECT_DOUBLE_EQ(s1.sim_time_s, direct);
  EXPECT_NEAR(s1.compute_time_s + s1.comm_time_s, direct, 1e-9 * direct);
  // A codec and SkipReduce: a shorter iteration; 2 steps skipped per DP reduce-scatter bucket.
  RunConfig tech = c;
  tech.techniques.codec = "commlab";
  tech.techniques.skipreduce.skip = 2;
  RunSession t(tech);
  EXPECT_LT(t.step().sim_time_s, direct);
  uint64_t buckets = 0;
  for (const workload::Node& n : g.ranks[0].nodes)
    buckets +=
        n.kind == workload::NodeKind::kCollective && n.op == workload::CommOp::kReduceScatter;
  EXPECT_EQ(t.summary().skipped_steps, 2 * buckets);
}

TEST(CatalogRun, ATraceRunReplaysItsFiles) {
  // kind trace: the scenario names PREFIX of PREFIX.RANK.et; the run's iteration is the replay.
  workload::CatalogGraphOptions o;
  o.parallel.tp = 2;
  o.parallel.pp = 2;
  o.parallel.dp = 2;
  o.parallel.global_batch = 8;
  const workload::Graph g = workload::catalog_graph(find_workload("llama3-8b"), o);
  const auto dir = std::filesystem::path(::testing::TempDir()) / "catalog_run_trace";
  std::filesystem::remove_all(dir);
  workload::write_chakra_trace(g, dir.string(), "llama");
  RunConfig c;
  c.cluster.spec = "flat:8";
  c.training.ranks = 8;
  c.training.iterations = 2;
  c.workload.kind = WorkloadKind::kTrace;
  ASSERT_FALSE(check_run_config(c).empty());  // no workload.trace
  EXPECT_EQ(check_run_config(c).front().field, "workload.trace");
  c.workload.trace = (dir / "llama").string();
  ASSERT_TRUE(check_run_config(c).empty()) << check_run_config(c).front().text();
  const double direct = replay_s(g, c);
  RunSession session(c);
  session.run();
  ASSERT_EQ(session.samples().size(), 2u);
  EXPECT_DOUBLE_EQ(session.samples()[1].sim_time_s, 2 * direct);
  // The group file under another name (ASTRA-sim's --comm-group-configuration), named by
  // workload.comm_groups: the same replay; PREFIX.comm_groups.json, now garbage, is not read.
  const std::string groups = (dir / "groups.json").string();
  std::filesystem::rename(dir / "llama.comm_groups.json", groups);
  std::ofstream(dir / "llama.comm_groups.json") << "{nope";
  c.workload.comm_groups = groups;
  ASSERT_TRUE(check_run_config(c).empty()) << check_run_config(c).front().text();
  RunSession elsewhere(c);
  elsewhere.run();
  EXPECT_DOUBLE_EQ(elsewhere.samples()[1].sim_time_s, 2 * direct);
  // A group file that does not exist, or one given to a kind that reads no trace, names the field.
  c.workload.comm_groups = (dir / "none.json").string();
  ASSERT_FALSE(check_run_config(c).empty());
  EXPECT_EQ(check_run_config(c).front().text().rfind("workload.comm_groups: no file", 0), 0u)
      << check_run_config(c).front().text();
  RunConfig trained;  // kind train
  trained.workload.comm_groups = groups;
  ASSERT_FALSE(check_run_config(trained).empty());
  EXPECT_EQ(check_run_config(trained).front().field, "workload.comm_groups")
      << check_run_config(trained).front().text();
  c.workload.comm_groups.clear();
  // A missing trace names the field.
  c.workload.trace = (dir / "nope").string();
  try {
    RunSession bad(c);
    ADD_FAILURE() << "a missing trace was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.status.field, "workload.trace") << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("workload.trace: ", 0), 0u) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(CatalogRun, ModelSourcesMeasureTheCodecOnARealGradient) {
  // model:mlp is the flat gradient of the zoo MLP after 20 SGD steps
  // (train/layers/model_gradients.h); a lossless codec compresses it below 1 (about 0.55 with
  // commlab, docs/codecs.md) and the measurement is a pure function of the seed.
  const double r = measure_codec_ratio("commlab", "model:mlp", 1);
  EXPECT_GT(r, 0.3);
  EXPECT_LT(r, 0.8);
  EXPECT_DOUBLE_EQ(r, measure_codec_ratio("commlab", "model:mlp", 1));
  EXPECT_THROW(measure_codec_ratio("commlab", "model:nope", 1), std::invalid_argument);
}

TEST(CatalogRun, WhatTheTimePlaneCannotDoIsRefusedByField) {
  RunConfig c = gpt3_on_64();
  c.techniques.trimming.enabled = true;
  c.cluster.backend = ClusterBackend::kPacket;
  const ConfigProblems problems = check_run_config(c);
  auto has = [&](const std::string& field) {
    for (const ConfigProblem& p : problems)
      if (p.field == field) return true;
    return false;
  };
  EXPECT_TRUE(has("techniques.trimming.enabled"));
  EXPECT_TRUE(has("cluster.backend"));
  EXPECT_THROW(RunSession{c}, std::invalid_argument);
  // A tensor source the engine cannot measure is refused with its field named.
  RunConfig bad = gpt3_on_64();
  bad.techniques.codec = "commlab";
  bad.workload.tensor_source = "model:transformer";
  try {
    RunSession session(bad);
    ADD_FAILURE() << "model:transformer was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("workload.tensor_source: ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace commlab
