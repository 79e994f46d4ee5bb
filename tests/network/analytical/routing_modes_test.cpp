// Routing modes of the analytical backend: per-flow ECMP (the default) against ideal routing, which
// splits every flow evenly over its equal-cost paths (packet spraying).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <vector>

#include "network/analytical.h"
#include "numeric/rng.h"
#include "topology/presets.h"

namespace commlab {
namespace {

constexpr double kUplink = 10e9;     // B/s, every leaf-spine link
constexpr double kHostLink = 100e9;  // B/s, GPU <-> leaf: never the bottleneck
constexpr int kSpines = 2;

// Two leaves, two spines, two GPUs under each leaf (ranks 0, 1 on leaf 0; 2, 3 on leaf 1).
Topology two_leaf_fabric() {
  Topology t("two-leaf");
  int leaf[2], spine[kSpines];
  for (int& l : leaf) l = t.add_node(NodeKind::kSwitch, "leaf", -1, 1);
  for (int& s : spine) s = t.add_node(NodeKind::kSwitch, "spine", -1, 2);
  for (int g = 0; g < 4; ++g)
    t.add_duplex(t.add_node(NodeKind::kGpu, "gpu", g), leaf[g / 2], kHostLink, 0);
  for (int l : leaf)
    for (int s : spine) t.add_duplex(l, s, kUplink, 0);
  return t;
}

// Flow ids for 0->2 and 1->3 that per-flow ECMP hashes onto the same spine.
std::pair<uint64_t, uint64_t> colliding_ids(const Topology& t, const Router& router) {
  auto spine_of = [&](int src, int dst, uint64_t id) {
    for (int li : router.path(src, dst, id))
      if (t.nodes()[t.links()[li].to].tier == 2) return t.links()[li].to;
    throw std::logic_error("path without a spine");
  };
  const int first = spine_of(0, 2, 1);
  for (uint64_t id = 2; id < 64; ++id)
    if (spine_of(1, 3, id) == first) return {1, id};
  throw std::logic_error("no colliding id in 64 tries");
}

TEST(RoutingModes, EcmpCollisionDoublesTimeAndIdealSpreadsIt) {
  const Topology t = two_leaf_fabric();
  AnalyticalBackend ecmp(t), ideal(t);
  ideal.set_routing(RoutingMode::kIdeal);
  const auto [id_a, id_b] = colliding_ids(t, ecmp.router());
  const uint64_t bytes = 1'000'000'000;
  const std::vector<Flow> one{{0, 2, bytes, id_a}};
  const std::vector<Flow> two{{0, 2, bytes, id_a}, {1, 3, bytes, id_b}};

  // ECMP, alone: the whole flow on one uplink, T1 = bytes / B.
  const double t1 = bytes / kUplink;
  EXPECT_NEAR(ecmp.time_step(one).duration_s, t1, 1e-12 * t1);
  // ECMP, both on the same spine: they share one uplink at B / 2 each, 2 x T1.
  const StepResult collided = ecmp.time_step(two);
  for (const auto& f : collided.flows) EXPECT_NEAR(f.finish_s, 2 * t1, 1e-12 * t1);
  // Ideal, alone: half the bytes over each of the 2 spines, bytes / (paths x B).
  EXPECT_NEAR(ideal.time_step(one).duration_s, bytes / (kSpines * kUplink), 1e-12 * t1);
  // Ideal, both: each uplink carries r/2 + r/2 = r <= B, so r = B: each flow takes T1, the
  // single-flow ECMP time, against 2 x T1 collided.
  const StepResult spread = ideal.time_step(two);
  for (const auto& f : spread.flows) EXPECT_NEAR(f.finish_s, t1, 1e-12 * t1);
}

TEST(RoutingModes, SpreadFractionsConserveTheFlow) {
  // fattree k=4: between pods, (k/2)^2 = 4 shortest paths; each core link carries 1/4.
  const Topology t = cluster_from_spec("fattree:k=4");
  const Router router(t);
  const int src = 0, dst = t.ranks() - 1;
  std::vector<int> links;
  std::vector<double> fractions;
  router.append_spread(src, dst, links, fractions);
  ASSERT_EQ(links.size(), fractions.size());
  // Flow conservation: into every node = out of it, except 1 out of src and 1 into dst.
  std::map<int, double> net;  // out - in
  for (size_t k = 0; k < links.size(); ++k) {
    net[t.links()[links[k]].from] += fractions[k];
    net[t.links()[links[k]].to] -= fractions[k];
  }
  for (const auto& [node, balance] : net) {
    const double want = node == t.gpus()[src] ? 1.0 : node == t.gpus()[dst] ? -1.0 : 0.0;
    EXPECT_NEAR(balance, want, 1e-12) << "node " << node;
  }
  int max_tier = 0;
  for (const Node& n : t.nodes()) max_tier = std::max(max_tier, n.tier);
  int core_links = 0;
  for (size_t k = 0; k < links.size(); ++k)
    if (t.nodes()[t.links()[links[k]].to].tier == max_tier) {
      ++core_links;
      EXPECT_NEAR(fractions[k], 0.25, 1e-12);
    }
  EXPECT_EQ(core_links, 4);
  // A single-path ECMP route is one of the spread's links, each of which it uses fully.
  for (int li : router.path(src, dst, 9))
    EXPECT_NE(std::find(links.begin(), links.end(), li), links.end());
}

TEST(RoutingModes, TheRouterTellsWhetherAnyFlowHadAChoice) {
  const Topology flat = cluster_from_spec("flat:8");
  const Router one_switch(flat);
  for (int dst = 1; dst < 8; ++dst) one_switch.path(0, dst, dst);
  EXPECT_FALSE(one_switch.had_choice());  // GPU -> switch -> GPU: one path each
  const Topology t = two_leaf_fabric();
  const Router fabric(t);
  fabric.path(0, 1, 1);  // under one leaf: one path
  EXPECT_FALSE(fabric.had_choice());
  fabric.path(0, 2, 1);  // across leaves: one of 2 spines
  EXPECT_TRUE(fabric.had_choice());
}

std::vector<Flow> random_flows(const Topology& t, int count, uint64_t seed) {
  CounterRng rng(seed, Purpose::kTraffic);
  uint64_t draw = 0;
  std::vector<Flow> flows;
  for (int i = 0; i < count; ++i) {
    int src = static_cast<int>(rng.below(draw++, t.ranks()));
    int dst = static_cast<int>(rng.below(draw++, t.ranks()));
    flows.push_back({src, dst, (1 + rng.below(draw++, 4)) << 20, rng.draw(draw++)});
  }
  return flows;
}

TEST(RoutingModes, IdealMatchesReferenceAndIsNeverSlowerThanEcmp) {
  for (const char* spec : {"leafspine:servers=16,gpus_per_server=1,radix=8", "fattree:k=4"}) {
    const Topology t = cluster_from_spec(spec);
    AnalyticalBackend ecmp(t), ideal(t);
    ideal.set_routing(RoutingMode::kIdeal);
    const Router router(t);
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const std::vector<Flow> flows = random_flows(t, 24, seed);
      const StepResult want = time_step_reference(t, router, flows, RoutingMode::kIdeal);
      for (int repeat = 0; repeat < 2; ++repeat) {  // second time: served by the caches
        const StepResult got = ideal.time_step(flows);
        for (size_t i = 0; i < flows.size(); ++i)
          EXPECT_NEAR(got.flows[i].finish_s, want.flows[i].finish_s, 1e-9 * want.duration_s)
              << spec << " seed " << seed << " flow " << i;
      }
      // Spraying removes hash collisions: the step (its slowest flow) never takes longer.
      EXPECT_LE(want.duration_s, ecmp.time_step(flows).duration_s * (1 + 1e-9))
          << spec << " seed " << seed;
    }
  }
}

TEST(RoutingModes, LinkAccountingCountsEveryTimedByte) {
  const Topology t = two_leaf_fabric();
  AnalyticalBackend ideal(t);
  ideal.set_routing(RoutingMode::kIdeal);
  ideal.set_link_accounting(true);
  const uint64_t bytes = 1 << 20;
  const std::vector<Flow> flows{{0, 2, bytes, 1}, {1, 3, bytes, 2}};
  ideal.time_step(flows);
  ideal.time_step(flows);  // a cached result still counts
  // Each uplink (leaf 0 -> spine) carries half of both flows twice: 2 x 2 x bytes / 2.
  for (const LinkTier& tier : link_tiers(t)) {
    if (tier.name != "switch t1->switch t2") continue;
    for (int li : tier.links)
      EXPECT_DOUBLE_EQ(ideal.link_bytes()[li], t.links()[li].from == 0 ? 2.0 * bytes : 0.0);
  }
  // The uplink tier (4 links, only leaf 0's carry anything): ideal puts 2 x bytes on each of leaf
  // 0's, mean 4 x bytes / 4 links, ratio 2; ECMP with both flows on one spine: 4 x bytes / 1 x.
  const TierImbalance spread = most_imbalanced_tier(tier_loads(t, ideal.link_bytes()));
  EXPECT_DOUBLE_EQ(spread.ratio(), 2.0) << spread.tier;
  AnalyticalBackend ecmp(t);
  ecmp.set_link_accounting(true);
  const auto [id_a, id_b] = colliding_ids(t, ecmp.router());
  ecmp.time_step(std::vector<Flow>{{0, 2, bytes, id_a}, {1, 3, bytes, id_b}});
  const TierImbalance collided = most_imbalanced_tier(tier_loads(t, ecmp.link_bytes()));
  EXPECT_DOUBLE_EQ(collided.busiest_bytes, 2.0 * bytes);
  EXPECT_DOUBLE_EQ(collided.ratio(), 4.0) << collided.tier;
  EXPECT_THROW(parse_routing_mode("spray"), std::invalid_argument);
  EXPECT_EQ(parse_routing_mode(routing_mode_name(RoutingMode::kIdeal)), RoutingMode::kIdeal);
}

}  // namespace
}  // namespace commlab
