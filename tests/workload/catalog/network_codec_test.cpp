// A codec of the network compresses only traffic that leaves a server: a TP group inside one
// server (NVLink) moves its payload as it is and pays no codec time, in the graph engine and in
// the closed form alike; the same group spread over servers is compressed.
#include <gtest/gtest.h>

#include "network/analytical.h"
#include "topology/builders.h"
#include "workload/catalog/catalog_graph.h"
#include "workload/scheduler.h"
#include "workload/workload_timing.h"

namespace commlab::workload {
namespace {

// 8 GPUs: `gpus_per_server` per server on a leaf-spine at 100 Gb/s.
AnalyticalBackend cluster(int gpus_per_server) {
  LeafSpineParams p;
  p.gpus_per_server = gpus_per_server;
  p.servers = 8 / gpus_per_server;
  p.nic_gbps = 100;
  return AnalyticalBackend(make_leaf_spine(p));
}

// llama3-8b, dp 2 x tp 4: TP groups {0-3} and {4-7}, one micro-batch per replica.
Parallelism split() {
  Parallelism p;
  p.dp = 2, p.tp = 4, p.pp = 1, p.global_batch = 2;
  return p;
}

ScheduleResult replay(AnalyticalBackend& backend, double ratio, double codec_s_per_byte) {
  CatalogGraphOptions o;
  o.parallel = split();
  const Graph g = catalog_graph(find_workload("llama3-8b"), o);
  WorkloadTechniques tech{ratio, ratio, 0};
  tech.codec_s_per_byte = codec_s_per_byte;
  ComputeModel compute;
  return schedule(g, backend, graph_options(compute, tech));
}

constexpr int kTp = static_cast<int>(CommKind::kTp);
constexpr int kDp = static_cast<int>(CommKind::kDp);

TEST(NetworkCodec, TpInsideAServerIsNotCompressedInTheGraphEngine) {
  AnalyticalBackend nvlink = cluster(4);  // each TP group in one server
  const ScheduleResult plain = replay(nvlink, 1.0, 0.0);
  const ScheduleResult coded = replay(nvlink, 0.25, 1e-9);
  ASSERT_GT(plain.comm_total_s[kTp], 0);
  // TP stays on NVLink: the same time and no codec charge; DP (across the two servers) is
  // compressed and charged.
  EXPECT_DOUBLE_EQ(coded.comm_total_s[kTp], plain.comm_total_s[kTp]);
  EXPECT_EQ(coded.codec_total_s[kTp], 0.0);
  EXPECT_LT(coded.comm_total_s[kDp] - coded.codec_total_s[kDp], plain.comm_total_s[kDp]);
  EXPECT_GT(coded.codec_total_s[kDp], 0.0);
  // One GPU per server: the same TP groups cross the network and are compressed.
  AnalyticalBackend apart = cluster(1);
  EXPECT_LT(replay(apart, 0.25, 0.0).comm_total_s[kTp], replay(apart, 1.0, 0.0).comm_total_s[kTp]);
}

TEST(NetworkCodec, TpInsideAServerIsNotCompressedInTheClosedForm) {
  const TransformerSpec& llama = find_workload("llama3-8b");
  ComputeModel compute;
  WorkloadTechniques coded{0.25, 0.25, 0};
  coded.codec_s_per_byte = 1e-9;
  AnalyticalBackend nvlink = cluster(4);
  const WorkloadTiming plain = time_workload(llama, split(), nvlink, compute, {});
  const WorkloadTiming with = time_workload(llama, split(), nvlink, compute, coded);
  EXPECT_DOUBLE_EQ(with.tp_s, plain.tp_s);
  EXPECT_LT(with.dp_s, plain.dp_s);
  AnalyticalBackend apart = cluster(1);
  EXPECT_LT(time_workload(llama, split(), apart, compute, {0.25, 0.25, 0}).tp_s,
            time_workload(llama, split(), apart, compute, {}).tp_s);
}

}  // namespace
}  // namespace commlab::workload
