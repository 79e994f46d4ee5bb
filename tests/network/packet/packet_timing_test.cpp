// Timing of the packet backend against closed forms and against the analytical backend.
#include <gtest/gtest.h>

#include "network/analytical.h"
#include "network/packet_backend.h"
#include "topology/builders.h"

namespace commlab {
namespace {

constexpr double kGbps = 100;
constexpr double kHopUs = 1.0;

Topology fat_tree(int k) {
  return make_fat_tree(FatTreeParams{k, kGbps, kHopUs});
}

TEST(PacketTiming, SingleFlowIsTheStoreAndForwardPipeline) {
  PacketConfig cfg;  // NDP, trimming, 4 KB payload + 64 B header
  PacketBackend net(fat_tree(4), cfg);
  // Ranks 0 and 15 sit in different pods: h = 6 links (host-edge-agg-core-agg-edge-host).
  const uint64_t n = 100;
  Flow flow{0, 15, n * cfg.mtu_bytes, 7};
  StepResult r = net.time_step(std::span(&flow, 1));
  // n back-to-back packets of w = 4096 + 64 bytes through h store-and-forward hops of bandwidth
  // B and latency L: the last one arrives at (n + h - 1) * w / B + h * L.
  const double h = 6, w = cfg.mtu_bytes + cfg.header_bytes, B = kGbps * 1e9 / 8, L = kHopUs * 1e-6;
  const double expected = (n + h - 1) * w / B + h * L;
  EXPECT_NEAR(r.flows[0].finish_s, expected, 1e-12);
  EXPECT_NEAR(net.ideal_time_s(flow), expected, 1e-12);
  EXPECT_EQ(r.flows[0].packets, n);
  EXPECT_EQ(r.flows[0].retransmitted, 0u);
}

TEST(PacketTiming, ShortLastPacketAndIntraEdgePath) {
  PacketConfig cfg;
  PacketBackend net(fat_tree(4), cfg);
  // Ranks 0 and 1 share an edge switch: h = 2. 10 full packets (w bytes) then one of
  // w' = 100 + 64: the short one reaches the edge before the edge has finished the last full one
  // (w' < w), so it waits for it: T = 11 w / B (the full train through both hops) + w' / B + 2 L.
  Flow flow{0, 1, 10ull * cfg.mtu_bytes + 100, 3};
  StepResult r = net.time_step(std::span(&flow, 1));
  const double w = cfg.mtu_bytes + cfg.header_bytes, w_last = 100 + cfg.header_bytes;
  const double B = kGbps * 1e9 / 8, L = kHopUs * 1e-6;
  EXPECT_NEAR(r.flows[0].finish_s, 11 * w / B + w_last / B + 2 * L, 1e-12);
  EXPECT_NEAR(net.ideal_time_s(flow), r.flows[0].finish_s, 1e-12);
}

TEST(PacketTiming, LargeFlowAgreesWithAnalyticalWithin5Percent) {
  PacketConfig cfg;
  PacketBackend packet(fat_tree(4), cfg);
  AnalyticalBackend analytical(fat_tree(4));
  Flow flow{2, 13, 64ull << 20, 11};
  double tp = packet.time_step(std::span(&flow, 1)).duration_s;
  double ta = analytical.time_step(std::span(&flow, 1)).duration_s;
  // Analytical: 6 L + S / B. Packet: adds the 64 B header per 4 KB (1.6%) and 5 packet times.
  EXPECT_NEAR(tp / ta, 1.0, 0.05);
  EXPECT_GT(tp, ta);  // headers are real bytes
}

TEST(PacketTiming, RingStepOnFullBisectionFatTreeAgreesWithAnalytical) {
  PacketConfig cfg;
  Topology topo = fat_tree(4);
  PacketBackend packet(topo, cfg);
  AnalyticalBackend analytical(topo);
  // One step of a ring all-reduce of S = 64 MB on 16 ranks: every rank sends S/16 to the next.
  std::vector<Flow> flows;
  for (int r = 0; r < 16; ++r) flows.push_back(Flow{r, (r + 1) % 16, (64ull << 20) / 16, 100u + r});
  StepResult rp = packet.time_step(flows);
  StepResult ra = analytical.time_step(flows);
  EXPECT_NEAR(rp.duration_s / ra.duration_s, 1.0, 0.05);
  for (size_t i = 0; i < flows.size(); ++i) {
    EXPECT_NEAR(rp.flows[i].finish_s / ra.flows[i].finish_s, 1.0, 0.05) << "flow " << i;
    // Uncongested: nothing trimmed, nothing dropped.
    EXPECT_EQ(rp.flows[i].trimmed, 0u);
    EXPECT_EQ(rp.flows[i].dropped, 0u);
  }
}

TEST(PacketTiming, StepsContinueTheClock) {
  PacketBackend net(fat_tree(4));
  Flow flow{0, 5, 1 << 20, 1};
  double t1 = net.time_step(std::span(&flow, 1)).duration_s;
  double after_first = net.now_s();
  double t2 = net.time_step(std::span(&flow, 1)).duration_s;
  EXPECT_GE(after_first, t1 - 1e-12);
  EXPECT_GT(net.now_s(), after_first);
  // An idle network times the same flow the same way again.
  EXPECT_NEAR(t2, t1, 1e-12);
}

TEST(PacketTiming, ZeroByteAndSelfFlows) {
  PacketBackend net(fat_tree(4));
  std::vector<Flow> flows{{0, 0, 1000, 1}, {0, 15, 0, 2}};
  StepResult r = net.time_step(flows);
  EXPECT_EQ(r.flows[0].finish_s, 0.0);
  EXPECT_NEAR(r.flows[1].finish_s, 6 * kHopUs * 1e-6, 1e-12);  // path latency, as analytical
}

}  // namespace
}  // namespace commlab
