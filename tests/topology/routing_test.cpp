// Routing: every pair routable over shortest paths, ECMP deterministic per flow and spreading.
#include "topology/routing.h"

#include <gtest/gtest.h>

#include <set>

#include "topology/builders.h"
#include "topology/presets.h"

namespace commlab {
namespace {

// A path is a chain of links from src's GPU to dst's GPU.
void expect_chain(const Topology& t, const std::vector<int>& path, int src, int dst) {
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(t.links()[path.front()].from, t.gpus()[src]);
  EXPECT_EQ(t.links()[path.back()].to, t.gpus()[dst]);
  for (size_t i = 1; i < path.size(); ++i)
    EXPECT_EQ(t.links()[path[i - 1]].to, t.links()[path[i]].from);
}

TEST(Routing, FatTreeEveryPairRoutableWithUpDownHopCounts) {
  Topology t = make_fat_tree({.k = 4});
  Router router(t);
  const int half = 2;
  for (int s = 0; s < t.ranks(); ++s)
    for (int d = 0; d < t.ranks(); ++d) {
      std::vector<int> p = router.path(s, d, 7);
      if (s == d) {
        EXPECT_TRUE(p.empty());
        continue;
      }
      expect_chain(t, p, s, d);
      // same edge switch: 2 hops; same pod: 4 (up to aggregation); other pod: 6 (via core)
      int expected = s / half == d / half ? 2 : s / (half * half) == d / (half * half) ? 4 : 6;
      EXPECT_EQ(static_cast<int>(p.size()), expected) << s << "->" << d;
    }
}

TEST(Routing, EcmpIsDeterministicAndSpreads) {
  Topology t = make_fat_tree({.k = 8});
  Router a(t), b(t);
  std::set<int> cores;
  for (uint64_t id = 0; id < 256; ++id) {
    std::vector<int> p = a.path(0, 127, id);  // different pods: 6 hops through a core switch
    EXPECT_EQ(p, b.path(0, 127, id)) << "a second router must pick the same path";
    EXPECT_EQ(p, a.path(0, 127, id));
    cores.insert(t.links()[p[2]].to);
  }
  // 16 core switches; 256 hashed flows should use nearly all of them
  EXPECT_GE(cores.size(), 14u);
}

// The walk caches each (destination, node) step's next hops: a router that has routed
// every pair before (cache warm) must pick exactly the path a fresh router picks.
TEST(Routing, CachedWalkPicksTheFreshRoutersPath) {
  for (const char* spec : {"rail:servers=4,gpus_per_server=8", "fattree:k=4"}) {
    Topology t = cluster_from_spec(spec);
    Router warm(t);
    for (int round = 0; round < 2; ++round)
      for (int s = 0; s < t.ranks(); ++s)
        for (int d = 0; d < t.ranks(); ++d)
          for (uint64_t id = 0; id < 3; ++id) warm.path(s, d, id * 977 + round);
    for (int s = 0; s < t.ranks(); s += 3)
      for (int d = 0; d < t.ranks(); ++d) {
        const uint64_t id = static_cast<uint64_t>(s) * 131 + d;
        EXPECT_EQ(warm.path(s, d, id), Router(t).path(s, d, id)) << spec << " " << s << "->" << d;
      }
  }
}

// k=4 fat tree: one path under the same edge switch, k/2 = 2 through the pod's aggregation
// switches, (k/2)^2 = 4 through the core; hashing many flow ids finds exactly that many.
TEST(Routing, EqualCostPathsCountsTheFatTreesPaths) {
  Topology t = make_fat_tree({.k = 4});
  Router router(t);
  for (int s = 0; s < t.ranks(); ++s)
    for (int d = 0; d < t.ranks(); ++d) {
      const uint32_t expected = s == d ? 1 : s / 2 == d / 2 ? 1 : s / 4 == d / 4 ? 2 : 4;
      EXPECT_EQ(router.equal_cost_paths(s, d), expected) << s << "->" << d;
      std::set<std::vector<int>> seen;
      for (uint64_t id = 0; id < 64; ++id) seen.insert(router.path(s, d, id));
      EXPECT_EQ(seen.size(), expected) << s << "->" << d;
    }
}

TEST(Routing, BoxesAreNotTransitAndLocalTrafficStaysInside) {
  Topology t = cluster_from_spec("rail:servers=4,gpus_per_server=8");
  Router router(t);
  // same server: GPU -> NVSwitch -> GPU
  EXPECT_EQ(router.path(0, 5, 1).size(), 2u);
  // same rail, other server: GPU -> NIC -> leaf -> NIC -> GPU
  EXPECT_EQ(router.path(0, 8, 1).size(), 4u);
  for (int s = 0; s < t.ranks(); ++s)
    for (int d = 0; d < t.ranks(); ++d)
      if (s != d) expect_chain(t, router.path(s, d, s * 131 + d), s, d);
}

TEST(Routing, DistanceMatchesBreadthFirstSearch) {
  Topology t = cluster_from_spec("leafspine:servers=8,gpus_per_server=2,radix=8");
  Router router(t);
  // GPU -> NIC -> leaf -> spine -> leaf -> NIC -> GPU when servers sit on different leaves
  EXPECT_EQ(router.distance(t.gpus()[0], t.gpus()[15]), 6);
  EXPECT_EQ(router.distance(t.gpus()[0], t.gpus()[1]), 2);  // through the NVSwitch
}

// Plain BFS over the whole graph: the router's box/switch decomposition must agree with it on
// every GPU pair of topologies where no shortest path would cross a third server anyway.
TEST(Routing, DistancesAgreeWithPlainBreadthFirstSearch) {
  for (const char* spec : {"fattree:k=4", "leafspine:servers=6,gpus_per_server=4,radix=8,oversub=2",
                           "rail:servers=5,gpus_per_server=4,radix=8", "flat:9",
                           "node:gpus=6,fabric=pcie", "torus:dims=3x4"}) {
    Topology t = cluster_from_spec(spec);
    Router router(t);
    for (int s = 0; s < t.ranks(); ++s) {
      std::vector<int> hops(t.nodes().size(), -1);
      std::vector<int> queue{t.gpus()[s]};
      hops[t.gpus()[s]] = 0;
      for (size_t head = 0; head < queue.size(); ++head)
        for (int li : t.out_links(queue[head]))
          if (int w = t.links()[li].to; hops[w] < 0) {
            hops[w] = hops[queue[head]] + 1;
            queue.push_back(w);
          }
      for (int d = 0; d < t.ranks(); ++d) {
        ASSERT_EQ(router.distance(t.gpus()[s], t.gpus()[d]), hops[t.gpus()[d]])
            << spec << " " << s << "->" << d;
        if (s != d)
          EXPECT_EQ(router.path(s, d, s * 7 + d).size(), static_cast<size_t>(hops[t.gpus()[d]]));
      }
    }
  }
}

TEST(Routing, ServersAreNotTransit) {
  // a -- s1 -- [b's server: nic1, gpu b, nic2] -- s2 -- c: the graph is connected, but only
  // through server b, which does not forward a's traffic to c.
  Topology t("bridged");
  int a = t.add_node(NodeKind::kGpu, "a"), b = t.add_node(NodeKind::kGpu, "b");
  int c = t.add_node(NodeKind::kGpu, "c");
  int nic1 = t.add_node(NodeKind::kNic, "nic1"), nic2 = t.add_node(NodeKind::kNic, "nic2");
  int s1 = t.add_node(NodeKind::kSwitch, "s1"), s2 = t.add_node(NodeKind::kSwitch, "s2");
  for (auto [x, y] : {std::pair{a, s1}, {nic1, s1}, {b, nic1}, {b, nic2}, {nic2, s2}, {c, s2}})
    t.add_duplex(x, y, 1e9, 0);
  ASSERT_NO_THROW(t.check());
  Router router(t);
  EXPECT_EQ(router.path(0, 1, 0).size(), 3u);  // a -> s1 -> nic1 -> b
  try {
    router.path(0, 2, 0);
    FAIL() << "routed through a server";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "no route from rank 0 to rank 2 (servers do not forward others' traffic: every "
                 "path between them crosses a third server)");
  }
}

}  // namespace
}  // namespace commlab
