#include "views/topology_model.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace commlab::views {
namespace {

TEST(TopologyModel, FatTreeK4HasOneBoxPerNodeAndOneLinePerCable) {
  TopologySettings s;  // fattree:k=4, ring, 64 MiB
  TopologyPicture pic = compute_topology_picture(s);
  // k=4 fat-tree: k^3/4 = 16 hosts, k^2/2 = 8 edge + 8 aggregation, (k/2)^2 = 4 core switches.
  EXPECT_EQ(pic.ranks, 16);
  EXPECT_EQ(pic.aggregation, 0);
  EXPECT_EQ(pic.boxes.size(), 16u + 20u);
  // Cables: 16 host-edge + 8*2 edge-agg + 8*2 agg-core, each duplex pair drawn once.
  EXPECT_EQ(pic.edges.size(), 48u);
  for (const TopoEdge& e : pic.edges) EXPECT_EQ(e.links, 2);
  // Switch tiers sit above the hosts, higher tiers higher up.
  double host_y = 0, core_y = 1e9;
  for (const TopoBox& b : pic.boxes) {
    if (b.kind == NodeKind::kGpu) host_y = std::max(host_y, b.y);
    if (b.label.rfind("core", 0) == 0) core_y = std::min(core_y, b.y);
  }
  EXPECT_LT(core_y, host_y);
}

TEST(TopologyModel, UtilisationIsBytesOverBandwidthTimesStepTime) {
  TopologySettings s;
  TopologyPicture pic = compute_topology_picture(s);
  ASSERT_GT(pic.step_time_s, 0);
  // Ring step 1: every host sends count/n elements = 64 MiB / 16 to its successor, so every host
  // uplink carries exactly 4 MiB.
  const double chunk = (64.0 * (1 << 20)) / 16;
  int uplinks = 0;
  for (const TopoEdge& e : pic.edges) {
    const TopoBox& a = pic.boxes[e.a];
    if (a.kind != NodeKind::kGpu) continue;
    ++uplinks;
    EXPECT_DOUBLE_EQ(e.bytes[0], chunk);
    // utilisation = bytes / (bandwidth x step time)
    EXPECT_NEAR(e.utilisation[0], chunk / (e.bandwidth_Bps[0] * pic.step_time_s), 1e-12);
  }
  EXPECT_EQ(uplinks, 16);
  // Max-min fair sharing never pushes a link past its capacity.
  EXPECT_LE(pic.max_utilisation, 1.0 + 1e-9);
  EXPECT_GT(pic.max_utilisation, 0.5);
}

TEST(TopologyModel, LargeClustersAggregateAndKeepEveryGpu) {
  TopologySettings s;
  s.spec = "netzip-512";
  TopologyPicture pic = compute_topology_picture(s);
  EXPECT_EQ(pic.ranks, 512);
  EXPECT_EQ(pic.aggregation, 2);  // 512 one-GPU servers > 64: one box per leaf
  int gpus = 0;
  for (const TopoBox& b : pic.boxes) gpus += b.frame ? 0 : b.gpus;
  EXPECT_EQ(gpus, 512);
  EXPECT_LT(pic.boxes.size(), 120u);

  s.spec = "dgx-h100-pod:nodes=64";  // 512 GPUs in 64 servers: one box per server
  pic = compute_topology_picture(s);
  EXPECT_EQ(pic.aggregation, 1);
  gpus = 0;
  for (const TopoBox& b : pic.boxes) gpus += b.gpus;
  EXPECT_EQ(gpus, 512);
}

TEST(TopologyModel, ServersAreFramedWithTheirParts) {
  TopologySettings s;
  s.spec = "dgx-h100";
  TopologyPicture pic = compute_topology_picture(s);
  int frames = 0, gpus = 0, nvswitches = 0;
  for (const TopoBox& b : pic.boxes) {
    frames += b.frame;
    gpus += !b.frame && b.kind == NodeKind::kGpu;
    nvswitches += b.kind == NodeKind::kNvSwitch;
  }
  EXPECT_EQ(frames, 1);
  EXPECT_EQ(gpus, 8);
  EXPECT_GE(nvswitches, 1);
}

TEST(TopologyModel, EveryPresetBuildsAndBadSpecsThrow) {
  for (const auto& [spec, about] : topology_presets()) {
    TopologySettings s;
    s.spec = spec;
    EXPECT_NO_THROW(compute_topology_picture(s)) << spec;
    EXPECT_FALSE(about.empty()) << spec;
  }
  TopologySettings bad;
  bad.spec = "fattree:k=3";
  EXPECT_THROW(compute_topology_picture(bad), std::invalid_argument);
  bad.spec = "nonsense";
  EXPECT_THROW(compute_topology_picture(bad), std::invalid_argument);
}

// flat:8 (8 GPUs on one crossbar) with 7 background senders pushing into rank 0 at line rate and
// 8-packet switch buffers: the crossbar port into rank 0 is offered ~8x its bandwidth.
TopologySettings incast_settings(const std::string& admission) {
  TopologySettings s;
  s.spec = "flat:8";
  s.backend = "packet";
  s.message_bytes = 1 << 20;
  s.admission = admission;
  s.queue_packets = 8;
  s.background = "incast:7";
  return s;
}

// The edge direction from the crossbar into GPU rank `rank`.
std::pair<const TopoEdge*, int> into_gpu(const TopologyPicture& pic, const std::string& rank) {
  for (const TopoEdge& e : pic.edges) {
    if (pic.boxes[e.a].label == rank && pic.boxes[e.b].kind == NodeKind::kSwitch) return {&e, 1};
    if (pic.boxes[e.b].label == rank && pic.boxes[e.a].kind == NodeKind::kSwitch) return {&e, 0};
  }
  return {nullptr, 0};
}

TEST(TopologyModel, PacketIncastTrimsOnlyOnTheLinkIntoTheTarget) {
  const TopologyPicture pic = compute_topology_picture(incast_settings("trim"));
  auto [target, dir] = into_gpu(pic, "0");
  ASSERT_NE(target, nullptr);
  // Offered ~8x line rate into an 8-packet queue: it fills (queue up to 8 x (4096 + 64) B of
  // data, plus trimmed headers) and the excess is trimmed, not dropped.
  EXPECT_GT(target->queue_bytes[dir], 4 * 4160.0);
  EXPECT_EQ(target->queue_capacity_bytes[dir], 8 * 4160.0);
  EXPECT_GT(target->trims[dir], 0u);
  EXPECT_EQ(pic.total_drops, 0u);
  EXPECT_GT(pic.max_queue_bytes, 0);
  // Every other port carries at most one line-rate flow (a ring successor), so never trims; host
  // ports never trim (only switches have finite buffers).
  uint64_t elsewhere = 0;
  for (const TopoEdge& e : pic.edges)
    for (int d = 0; d < 2; ++d)
      if (&e != target || d != dir) elsewhere += e.trims[d] + e.drops[d];
  EXPECT_EQ(elsewhere, 0u);
  EXPECT_EQ(pic.total_trims, target->trims[dir]);
  // The crossbar -> rank 0 port is busy most of the step: the background keeps it saturated.
  EXPECT_GT(target->utilisation[dir], 0.8);
  EXPECT_LE(pic.max_utilisation, 1.0 + 1e-9);

  // Tail-drop: the same overflow is dropped instead.
  const TopologyPicture drop = compute_topology_picture(incast_settings("tail-drop"));
  auto [dtarget, ddir] = into_gpu(drop, "0");
  ASSERT_NE(dtarget, nullptr);
  EXPECT_GT(dtarget->drops[ddir], 0u);
  EXPECT_EQ(drop.total_trims, 0u);
  EXPECT_EQ(drop.total_drops, dtarget->drops[ddir]);
}

TEST(TopologyModel, AnalyticalBackendHasNoQueuesTrimsOrDrops) {
  const TopologyPicture pic = compute_topology_picture(TopologySettings{});
  EXPECT_EQ(pic.max_queue_bytes, 0);
  EXPECT_EQ(pic.total_trims + pic.total_drops, 0u);
  for (const TopoEdge& e : pic.edges)
    for (int d = 0; d < 2; ++d) {
      EXPECT_EQ(e.queue_bytes[d], 0);
      EXPECT_EQ(e.queue_capacity_bytes[d], 0);
      EXPECT_EQ(e.trims[d] + e.drops[d], 0u);
    }
}

TEST(TopologyModel, AggregatedEdgesSumTheirMemberLinks) {
  TopologySettings s;
  s.spec = "leafspine:servers=8,gpus_per_server=4";
  s.backend = "packet";
  s.message_bytes = 4 << 20;
  s.background = "incast:8";
  const TopologyPicture full = compute_topology_picture(s);
  s.max_endpoints = 8;  // 32 GPUs > 8: one box per server
  const TopologyPicture agg = compute_topology_picture(s);
  ASSERT_EQ(agg.aggregation, 1);
  ASSERT_EQ(full.aggregation, 0);
  // The simulation does not depend on how it is drawn: per-link numbers are identical.
  ASSERT_EQ(full.links.size(), agg.links.size());
  for (size_t l = 0; l < full.links.size(); ++l) {
    EXPECT_EQ(full.links[l].trims, agg.links[l].trims);
    EXPECT_EQ(full.links[l].queue_bytes, agg.links[l].queue_bytes);
  }
  EXPECT_EQ(full.total_trims, agg.total_trims);
  EXPECT_GT(agg.total_trims, 0u);
  // trims[e][d] = sum over links l folded into e in direction d of trims_l;
  // queue_bytes[e][d] = max over the same links; links inside one box (edge -1) are not drawn, so
  // sum over edges + sum over hidden links = total_trims.
  std::vector<uint64_t> trims(2 * agg.edges.size(), 0);
  std::vector<double> queue(2 * agg.edges.size(), 0);
  uint64_t hidden = 0;
  for (size_t l = 0; l < agg.links.size(); ++l) {
    const int e = agg.link_edge[l];
    if (e < 0) {
      hidden += agg.links[l].trims;
      continue;
    }
    trims[2 * e + agg.link_dir[l]] += agg.links[l].trims;
    queue[2 * e + agg.link_dir[l]] =
        std::max(queue[2 * e + agg.link_dir[l]], agg.links[l].queue_bytes);
  }
  uint64_t drawn = 0;
  for (size_t e = 0; e < agg.edges.size(); ++e)
    for (int d = 0; d < 2; ++d) {
      EXPECT_EQ(agg.edges[e].trims[d], trims[2 * e + d]);
      EXPECT_EQ(agg.edges[e].queue_bytes[d], queue[2 * e + d]);
      drawn += agg.edges[e].trims[d];
    }
  EXPECT_GT(drawn, 0u);  // the congested leaf -> server 0 port is drawn
  EXPECT_EQ(drawn + hidden, agg.total_trims);
}

TEST(TopologyModel, EveryPresetRunsOnThePacketBackend) {
  for (const auto& [spec, about] : topology_presets()) {
    TopologySettings s;  // ring, 64 MiB: a step moves 64 MiB in all, within the 128 MiB budget
    s.spec = spec;
    s.backend = "packet";
    TopologyPicture pic;
    ASSERT_NO_THROW(pic = compute_topology_picture(s)) << spec;
    EXPECT_GT(pic.step_time_s, 0) << spec;
    // Some link is busy; none beyond 100% (busy time is clamped per sample, then averaged).
    EXPECT_GT(pic.max_utilisation, 0.1) << spec;
    EXPECT_LE(pic.max_utilisation, 1.0 + 1e-9) << spec;
  }
}

TEST(TopologyModel, PacketBackendRejectsStepsTooLargeToSimulate) {
  TopologySettings s;
  s.backend = "packet";
  s.algorithm = "direct";  // 16 ranks x 15 peers x 64 MiB: far over the 128 MiB step budget
  EXPECT_THROW(compute_topology_picture(s), std::invalid_argument);
  s.backend = "quantum";
  EXPECT_THROW(compute_topology_picture(s), std::invalid_argument);
  s.backend = "packet";
  s.algorithm = "ring";
  s.background = "incast:x";
  EXPECT_THROW(compute_topology_picture(s), std::invalid_argument);
}

}  // namespace
}  // namespace commlab::views

namespace commlab::views {

// The ring's steps are its real 2(N-1), as Teaching counts them (a time-only
// plan folds the identical ones; the picture must not say "Step 1/2" on 16 GPUs).
TEST(TopologyModel, RingStepsAreTheUnfoldedOnes) {
  TopologySettings s;  // fattree:k=4: 16 GPUs
  TopologyPicture pic = compute_topology_picture(s);
  EXPECT_EQ(pic.steps, 30);
  EXPECT_EQ(pic.phase, "reduce-scatter");
  s.step = 15;  // the last reduce-scatter step
  EXPECT_EQ(compute_topology_picture(s).phase, "reduce-scatter");
  s.step = 16;  // the first all-gather step
  pic = compute_topology_picture(s);
  EXPECT_EQ(pic.step, 16);
  EXPECT_EQ(pic.phase, "all-gather");
  s.spec = "flat:4";
  s.step = 1;
  EXPECT_EQ(compute_topology_picture(s).steps, 6);
}

}  // namespace commlab::views
