// Builders: element counts from the construction's formulas, tiers, and clear errors.
#include "topology/builders.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "support/error_of.h"
#include "topology/gpu_presets.h"

namespace commlab {
namespace {

using testing::error_of;

int count_kind(const Topology& t, NodeKind kind) {
  int n = 0;
  for (const Node& node : t.nodes()) n += node.kind == kind;
  return n;
}

TEST(FatTree, CountsMatchTheClassicFormulas) {
  for (int k : {2, 4, 8, 16}) {
    Topology t = make_fat_tree({.k = k});
    // hosts = k^3/4, switches = k^2 (edge + aggregation) + k^2/4 (core) = 5k^2/4
    EXPECT_EQ(t.ranks(), k * k * k / 4) << "k=" << k;
    EXPECT_EQ(count_kind(t, NodeKind::kSwitch), 5 * k * k / 4) << "k=" << k;
    // links: every switch port is used once, duplex: hosts k^3/4 + edge-agg k^3/4 + agg-core k^3/4
    EXPECT_EQ(t.links().size(), 2u * 3 * k * k * k / 4) << "k=" << k;
    EXPECT_NO_THROW(t.check());
  }
}

TEST(FatTree, TiersRanksAndLinkParameters) {
  Topology t = make_fat_tree({.k = 8, .link_gbps = 100, .hop_latency_us = 1.0});
  ASSERT_EQ(t.ranks(), 128);
  for (int r = 0; r < t.ranks(); ++r) EXPECT_EQ(t.gpus()[r], r);  // hosts come first
  int tiers[4] = {0, 0, 0, 0};
  for (const Node& n : t.nodes()) ++tiers[n.tier];
  EXPECT_EQ(tiers[0], 128);
  EXPECT_EQ(tiers[1], 32);  // k * k/2 edge
  EXPECT_EQ(tiers[2], 32);  // k * k/2 aggregation
  EXPECT_EQ(tiers[3], 16);  // (k/2)^2 core
  for (const Link& l : t.links()) {
    EXPECT_DOUBLE_EQ(l.bandwidth_Bps, 100e9 / 8);  // 100 Gb/s = 12.5 GB/s
    EXPECT_DOUBLE_EQ(l.latency_s, 1e-6);
  }
  EXPECT_EQ(t.spec(), "fattree:k=8,gbps=100,hop_us=1,buffer=524288");
}

TEST(FatTree, RejectsNonsense) {
  EXPECT_EQ(error_of([] { make_fat_tree({.k = 3}); }),
            "fattree: k: expected an even integer in [2, 64], got 3");
  EXPECT_EQ(error_of([] { make_fat_tree({.k = 4, .link_gbps = 0}); }),
            "fattree: gbps: expected a positive number, got 0");
  EXPECT_EQ(error_of([] { make_fat_tree({.k = 4, .hop_latency_us = -1}); }),
            "fattree: hop_us: expected a number >= 0, got -1");
}

TEST(Node, NvSwitchAndPcieTrees) {
  Topology nv = make_node({.gpus = 8, .gpu = "h100"});
  EXPECT_EQ(nv.ranks(), 8);
  EXPECT_EQ(count_kind(nv, NodeKind::kNvSwitch), 1);
  // H100 NVLink 4: 900 GB/s bidirectional = 450 GB/s per direction per GPU
  EXPECT_DOUBLE_EQ(nv.links()[0].bandwidth_Bps, 450e9);
  EXPECT_EQ(nv.gpu_model(), "h100");
  Topology pcie = make_node({.gpus = 8, .gpu = "a100", .fabric = NodeFabric::kPcie});
  // 4 PCIe switches (two GPUs each) + 1 root complex
  EXPECT_EQ(count_kind(pcie, NodeKind::kPcieSwitch), 5);
  EXPECT_NO_THROW(pcie.check());
  EXPECT_EQ(error_of([] { make_node({.gpus = 8, .gpu = "v100"}); }),
            "node: gpu: unknown GPU 'v100' (expected one of a100, h100, h200, b200)");
}

TEST(LeafSpine, OversubscriptionSetsPortsAndSpines) {
  // radix 64, oversubscription 3: 48 server ports, 16 up ports = 16 spines per leaf
  Topology t =
      make_leaf_spine({.servers = 12, .gpus_per_server = 8, .radix = 64, .oversubscription = 3.0});
  EXPECT_EQ(t.ranks(), 96);
  int leaves = 0, spines = 0;
  for (const Node& n : t.nodes()) {
    leaves += n.kind == NodeKind::kSwitch && n.tier == 1;
    spines += n.kind == NodeKind::kSwitch && n.tier == 2;
  }
  EXPECT_EQ(leaves, 2);  // 48 ports / 8 NICs = 6 servers per leaf, 12 servers
  EXPECT_EQ(spines, 16);
  EXPECT_NO_THROW(t.check());
}

TEST(LeafSpine, RadixTooSmallIsReported) {
  // radix 8, non-blocking: 4 server ports per leaf -> 64 leaves > 8 spine ports
  EXPECT_EQ(error_of([] { make_leaf_spine({.servers = 256, .gpus_per_server = 1, .radix = 8}); }),
            "leafspine: radix too small: 64 leaves need spines with >= 64 ports but radix is 8 "
            "(raise radix, lower servers, or use a fat-tree)");
  EXPECT_EQ(error_of([] { make_leaf_spine({.servers = 2, .gpus_per_server = 8, .radix = 8}); }),
            "leafspine: radix too small: a leaf has 4 server ports but a server has 8 NICs");
  EXPECT_EQ(error_of([] { make_leaf_spine({.servers = 2, .oversubscription = 0}); }),
            "leafspine: oversub: expected a positive number, got 0");
}

TEST(Rail, OneLeafPerGpuIndex) {
  Topology t = make_rail_optimized({.servers = 4, .gpus_per_server = 8, .radix = 64});
  // every NIC of GPU index g sits on leaf "rail<g>.leaf0"
  for (const Link& l : t.links()) {
    const Node& a = t.nodes()[l.from];
    const Node& b = t.nodes()[l.to];
    if (a.kind == NodeKind::kNic && b.kind == NodeKind::kSwitch) {
      std::string g = a.name.substr(a.name.find("nic") + 3);
      EXPECT_EQ(b.name, "rail" + g + ".leaf0");
    }
  }
  EXPECT_NO_THROW(t.check());
}

TEST(Torus, EveryGpuHasTwoNeighboursPerDimension) {
  Topology t = make_torus({.dims = {4, 4, 4}});
  EXPECT_EQ(t.ranks(), 64);
  for (int g : t.gpus()) EXPECT_EQ(t.out_links(g).size(), 6u);  // +-1 in 3 dimensions
  Topology small = make_torus({.dims = {2, 3}});
  // dimension of 2: one neighbour; dimension of 3: two
  for (int g : small.gpus()) EXPECT_EQ(small.out_links(g).size(), 3u);
  EXPECT_EQ(error_of([] { make_torus({.dims = {8}}); }),
            "torus: dims: expected 2 or 3 dimensions like 8x8 or 4x4x4, got 1 dims");
}

TEST(GpuPresets, VendorFigures) {
  // H100 SXM: 989 TFLOPS dense BF16, 3.35 TB/s HBM3, 400 Gb/s NIC = 50 GB/s
  const GpuPreset& h = gpu_preset("H100");
  EXPECT_DOUBLE_EQ(h.bf16_flops, 989e12);
  EXPECT_DOUBLE_EQ(h.hbm_Bps, 3.35e12);
  EXPECT_DOUBLE_EQ(h.nic_Bps, 50e9);
  EXPECT_EQ(gpu_presets().size(), 4u);
}

}  // namespace
}  // namespace commlab
