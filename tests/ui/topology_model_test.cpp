#include "topology_model.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace commlab::ui {
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

}  // namespace
}  // namespace commlab::ui
