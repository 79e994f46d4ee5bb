// The catalog generator against what the closed forms say: every FLOP of a training
// iteration is on some rank, every gradient byte in some bucket, the 1F1B pipeline's critical
// path, DP overlap, MoE all-to-alls, and the round trip through a Chakra trace.
#include "workload/catalog/catalog_graph.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "network/analytical.h"
#include "topology/builders.h"
#include "workload/chakra_trace.h"
#include "workload/scheduler.h"

namespace commlab::workload {
namespace {

CatalogGraphOptions split(int dp, int tp, int pp, int global_batch) {
  CatalogGraphOptions o;
  o.parallel.dp = dp;
  o.parallel.tp = tp;
  o.parallel.pp = pp;
  o.parallel.global_batch = global_batch;
  return o;
}

// One GPU per server at `gbps`: every rank pair crosses the network.
AnalyticalBackend network(int ranks, double gbps) {
  LeafSpineParams p;
  p.gpus_per_server = 1;
  p.servers = ranks;
  p.nic_gbps = gbps;
  while (p.radix * p.radix / 2 < ranks) p.radix *= 2;
  return AnalyticalBackend(make_leaf_spine(p));
}

double total_flops(const Graph& g) {
  double f = 0;
  for (const RankGraph& rg : g.ranks)
    for (const Node& n : rg.nodes)
      if (n.kind == NodeKind::kCompute) f += n.flops;
  return f;
}

uint64_t count(const RankGraph& rg, NodeKind kind, CommKind comm) {
  uint64_t c = 0;
  for (const Node& n : rg.nodes)
    c += n.kind == kind && (kind == NodeKind::kCompute || n.comm == comm);
  return c;
}

TEST(CatalogGraph, EveryTrainingFlopIsOnSomeRank) {
  // Sum over ranks = training FLOPs per token x global batch x seq, for a dense 3D split and for
  // MoE with expert parallelism (balanced routing: each token meets top_k experts).
  const auto& llama = find_workload("llama3-8b");
  CatalogGraphOptions o = split(2, 2, 4, 16);
  EXPECT_NEAR(total_flops(catalog_graph(llama, o)) / catalog_graph_flops(llama, o), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(catalog_graph_flops(llama, o), training_flops_per_token(llama) * 16 * 8192);
  const auto& mixtral = find_workload("mixtral-8x7b");
  CatalogGraphOptions m = split(4, 2, 2, 8);
  m.ep = 4;
  EXPECT_NEAR(total_flops(catalog_graph(mixtral, m)) / catalog_graph_flops(mixtral, m), 1.0, 1e-12);
}

TEST(CatalogGraph, EveryGradientByteIsInOneBucketOfItsReplica) {
  // One DP replica's reduce-scatters over all its ranks carry every parameter once, in
  // grad_bytes each (the untied head counted), up to the truncation of a /tp share per part.
  const auto& s = find_workload("llama3-8b");
  CatalogGraphOptions o = split(2, 2, 4, 16);
  o.grad_bytes = 4;
  const Graph g = catalog_graph(s, o);
  double rs = 0, ag = 0;
  for (int r = 0; r < 2 * 4; ++r)  // replica d = 0: ranks (0 * pp + s) * tp + t
    for (const Node& n : g.ranks[r].nodes) {
      if (n.kind != NodeKind::kCollective || n.comm != CommKind::kDp) continue;
      EXPECT_LE(n.bytes, o.bucket_bytes);
      (n.op == CommOp::kReduceScatter ? rs : ag) += static_cast<double>(n.bytes);
    }
  EXPECT_NEAR(rs, 4.0 * static_cast<double>(parameter_count(s)), 64.0 * 8);
  // The all-gathers return exactly those bytes, bucket for bucket.
  EXPECT_EQ(ag, rs);
}

TEST(CatalogGraph, APipelineRunsAtTheSpeedOfItsSlowestStageAfterTheFillAndDrain) {
  // pp = 4, m = 8 micro-batches, tp = dp = 1, a network fast enough to be free. The last stage
  // (it also runs the head) is the slowest, so 1F1B gives
  //   iteration = (pp - 1) * (t_f + t_b) + m * (t_f,last + t_b,last) + optimizer(stage 0)
  // (the first forward reaches the last stage, which then never waits, and the last backward
  // travels back through the other stages), where t = the stage's compute per micro-batch.
  const auto& s = find_workload("gpt-7b");
  const int pp = 4, m = 8;
  const Graph g = catalog_graph(s, split(1, 1, pp, m));
  SchedulerOptions opt;
  auto stage_time = [&](int rank, const std::string& prefix) {
    double t = 0;
    for (const Node& n : g.ranks[rank].nodes) {
      const std::string& name = g.name_of(n);
      if (n.kind == NodeKind::kCompute && name.rfind(prefix, 0) == 0 && name.size() > 4 &&
          name.substr(name.size() - 4) == " mb0")
        t += opt.compute.time(n.flops, n.mem_bytes);
    }
    return t;
  };
  const double tfb = stage_time(0, "fwd") + stage_time(0, "bwd");
  const double last = stage_time(pp - 1, "fwd") + stage_time(pp - 1, "bwd");
  ASSERT_GT(last, tfb);
  double optimizer = 0;
  for (const Node& n : g.ranks[0].nodes)
    if (g.name_of(n) == "optimizer") optimizer = opt.compute.time(n.flops, n.mem_bytes);
  AnalyticalBackend net = network(pp, 1e6);
  const ScheduleResult r = schedule(g, net, opt);
  EXPECT_NEAR(r.iteration_s, (pp - 1) * tfb + m * last + optimizer, 1e-3 * r.iteration_s);
  EXPECT_EQ(r.p2p, 2u * m * (pp - 1));  // an activation and a gradient per micro-batch per boundary
}

TEST(CatalogGraph, EqualStagesIdleForTheTextbookBubble) {
  // With equal stages (a one-token vocabulary makes the head free) the 1F1B iteration is
  // (m + p - 1)(t_f + t_b), so every stage's compute stream idles (p - 1) / (m + p - 1) of it
  // (Narayanan et al. 2021), here p = 4, m = 12: 3/15 = 20%.
  TransformerSpec s = find_workload("gpt-7b");
  s.vocab = 1;
  const int pp = 4, m = 12;
  const Graph g = catalog_graph(s, split(1, 1, pp, m));
  AnalyticalBackend net(make_flat(pp, 1e18, 0));  // hand-offs take no time
  SchedulerOptions opt;
  const ScheduleResult r = schedule(g, net, opt);
  auto optimizer = [&](int rank) {  // the Adam step after the pipeline drains
    for (const Node& n : g.ranks[rank].nodes)
      if (g.name_of(n) == "optimizer") return opt.compute.time(n.flops, n.mem_bytes);
    return 0.0;
  };
  const double pipeline = r.iteration_s - optimizer(0);  // the drain ends on stage 0
  for (int stage = 0; stage < pp; ++stage) {
    const double busy = r.stream_busy[stage][kComputeStream].busy_s - optimizer(stage);
    // Tolerance: the one-token head still costs a little (~1e-6 of the pipeline).
    EXPECT_NEAR(1 - busy / pipeline, (pp - 1.0) / (m + pp - 1.0), 1e-5) << "stage " << stage;
  }
}

TEST(CatalogGraph, GradientBucketsOverlapTheBackwardOnlyWhenAsked) {
  // dp = 4, 800 Gb/s: DP traffic (0.3 s) is well below compute (1.4 s). Without overlap every DP
  // byte is exposed, after the backward: iteration = critical compute + DP total. With overlap
  // the buckets run under the backward (and the all-gathers under the forward): under a tenth of
  // it stays exposed, and the same bytes are sent.
  const auto& s = find_workload("gpt-7b");
  CatalogGraphOptions o = split(4, 1, 1, 8);
  o.overlap = false;
  const int dp = static_cast<int>(CommKind::kDp);
  AnalyticalBackend a = network(4, 800);
  const ScheduleResult off = schedule(catalog_graph(s, o), a);
  o.overlap = true;
  AnalyticalBackend b = network(4, 800);
  const ScheduleResult on = schedule(catalog_graph(s, o), b);
  EXPECT_NEAR(off.exposed_s[dp], off.comm_total_s[dp], 1e-6 * off.comm_total_s[dp]);
  EXPECT_NEAR(off.iteration_s, off.critical_compute_s + off.comm_total_s[dp], 1e-6);
  EXPECT_LT(on.exposed_s[dp], 0.1 * off.exposed_s[dp]);
  EXPECT_NEAR(on.comm_total_s[dp], off.comm_total_s[dp], 1e-9);
  EXPECT_EQ(on.bytes_on_wire, off.bytes_on_wire);
  // At 100 Gb/s communication (1.6 s) exceeds compute: now the network is the critical path and
  // overlap hides compute under it instead, iteration < compute + communication.
  o.overlap = true;
  AnalyticalBackend c = network(4, 100);
  const ScheduleResult slow = schedule(catalog_graph(s, o), c);
  EXPECT_GT(slow.exposed_s[dp], slow.critical_compute_s);
  EXPECT_LT(slow.iteration_s, 0.85 * (off.critical_compute_s + slow.comm_total_s[dp]));
}

TEST(CatalogGraph, ExpertParallelismAddsFourAllToAllsPerBlockAndMicroBatch) {
  // Forward: dispatch + combine; backward: their gradients. ep = 2 over dp = 4, pp = 1, tp = 1,
  // m = 2 micro-batches: 4 x 32 layers x 2 on every rank; a dense model has none.
  const auto& mixtral = find_workload("mixtral-8x7b");
  CatalogGraphOptions o = split(4, 1, 1, 8);
  o.ep = 2;
  const Graph g = catalog_graph(mixtral, o);
  EXPECT_EQ(count(g.ranks[3], NodeKind::kCollective, CommKind::kEp), 4u * 32 * 2);
  AnalyticalBackend net = network(4, 100);
  const ScheduleResult r = schedule(g, net);
  EXPECT_GT(r.exposed_s[static_cast<int>(CommKind::kEp)], 0);
  EXPECT_EQ(count(catalog_graph(find_workload("gpt-7b"), split(4, 1, 1, 8)).ranks[0],
                  NodeKind::kCollective, CommKind::kEp),
            0u);
}

TEST(CatalogGraph, SplitsThatDoNotDivideAreClearErrors) {
  CatalogGraphOptions o = split(4, 1, 1, 8);
  o.ep = 3;  // does not divide dp
  EXPECT_THROW(catalog_graph(find_workload("mixtral-8x7b"), o), std::invalid_argument);
  o.ep = 2;  // a dense model has no experts
  EXPECT_THROW(catalog_graph(find_workload("gpt-7b"), o), std::invalid_argument);
  EXPECT_THROW(catalog_graph(find_workload("gpt-7b"), split(1, 1, 5, 8)), std::invalid_argument);
  // 1 KiB buckets of GPT-3's 87 GB per TP rank on 512 GPUs would be ~4.4e10 nodes: refused by
  // the estimate, before anything is allocated.
  CatalogGraphOptions huge = split(128, 4, 1, 128);
  huge.bucket_bytes = 1024;
  try {
    catalog_graph(find_workload("gpt3-175b"), huge);
    ADD_FAILURE() << "a graph over the node cap was built";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("nodes, over the cap"), std::string::npos) << e.what();
  }
}

TEST(CatalogGraph, AnEmittedTraceReplaysToTheSameIteration) {
  // Graph -> Chakra files -> graph: the same schedule, to the nanosecond.
  const auto& s = find_workload("llama3-8b");
  const Graph g = catalog_graph(s, split(2, 2, 2, 8));
  const auto dir = std::filesystem::temp_directory_path() / "commlab_catalog_graph_test";
  std::filesystem::remove_all(dir);
  write_chakra_trace(g, dir.string(), "llama");
  const Graph back = read_chakra_trace((dir / "llama").string());
  ASSERT_EQ(back.node_count(), g.node_count());
  AnalyticalBackend a = network(8, 100), b = network(8, 100);
  const ScheduleResult r1 = schedule(g, a), r2 = schedule(back, b);
  EXPECT_NEAR(r2.iteration_s, r1.iteration_s, 1e-9);
  EXPECT_EQ(r2.bytes_on_wire, r1.bytes_on_wire);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace commlab::workload
