// Transports and admission policies under a 16-to-1 incast (k=8 fat-tree, 8-packet queues):
// conservation, trimming, NACK retransmission, accept-trimmed, tail-drop recovery.
#include <gtest/gtest.h>

#include "network/packet_backend.h"
#include "network/traffic_patterns.h"
#include "topology/builders.h"

namespace commlab {
namespace {

struct IncastRun {
  StepResult result;
  std::vector<PacketFlowStats> stats;
  PacketTotals totals;
  std::vector<Flow> flows;
};

IncastRun incast(Transport transport, Admission admission, bool fates = false,
                 uint64_t bytes = 1 << 20) {
  PacketConfig cfg;
  cfg.transport = transport;
  cfg.admission = admission;
  cfg.queue_packets = 8;  // NDP's switch data queue
  cfg.rto_s = 200e-6;
  PacketBackend net(make_fat_tree(FatTreeParams{8, 100, 1.0}), cfg);
  TrafficSpec spec;
  spec.pattern = Pattern::kIncast;
  spec.senders = 16;
  spec.flow_bytes = bytes;
  IncastRun run;
  run.flows = pattern_flows(spec, net.topology().ranks(), 1);
  run.result = net.time_step(run.flows, StepOptions{fates});
  run.stats = net.last_step_stats();
  run.totals = net.totals();
  return run;
}

void expect_conservation(const IncastRun& run) {
  for (size_t i = 0; i < run.flows.size(); ++i) {
    const PacketFlowStats& s = run.stats[i];
    const FlowResult& r = run.result.flows[i];
    // Every transmission ends whole, trimmed or dropped, or was still travelling at completion.
    EXPECT_EQ(s.sent, s.delivered + s.trimmed + s.dropped + s.in_flight) << "flow " << i;
    // Retransmissions are what was sent beyond one copy of each packet.
    EXPECT_EQ(s.retransmitted, s.sent - r.packets) << "flow " << i;
    EXPECT_EQ(r.retransmitted, s.retransmitted);
    EXPECT_EQ(r.trimmed, s.trimmed);
    EXPECT_EQ(r.dropped, s.dropped);
    EXPECT_EQ(r.packets, (run.flows[i].bytes + 4095) / 4096);
  }
}

TEST(PacketTransport, NdpTrimsUnderIncastAndRetransmitsEveryTrimmedPacket) {
  IncastRun run = incast(Transport::kNdp, Admission::kTrim, true);
  expect_conservation(run);
  uint64_t trimmed = 0;
  for (size_t i = 0; i < run.flows.size(); ++i) {
    const PacketFlowStats& s = run.stats[i];
    trimmed += s.trimmed;
    EXPECT_EQ(s.dropped, 0u);
    // NDP: each trimmed header is NACKed and its packet sent again, nothing else is resent.
    EXPECT_EQ(s.retransmitted, s.trimmed) << "flow " << i;
    EXPECT_EQ(s.in_flight, 0u);
    for (const PacketFate& fate : run.result.flows[i].fates) {
      ASSERT_FALSE(fate.lost);
      ASSERT_EQ(fate.kept_bytes, fate.payload_bytes);  // all arrive whole in the end
    }
  }
  EXPECT_GT(trimmed, 0u);  // 16 initial windows into one 8-packet queue must trim
  EXPECT_EQ(run.totals.trimmed, trimmed);
}

TEST(PacketTransport, AcceptTrimmedRetransmitsNothing) {
  IncastRun run = incast(Transport::kAcceptTrimmed, Admission::kTrim, true);
  expect_conservation(run);
  uint64_t trimmed = 0;
  for (size_t i = 0; i < run.flows.size(); ++i) {
    const PacketFlowStats& s = run.stats[i];
    EXPECT_EQ(s.retransmitted, 0u);
    trimmed += s.trimmed;
    uint64_t short_fates = 0;
    for (const PacketFate& fate : run.result.flows[i].fates) {
      ASSERT_FALSE(fate.lost);
      if (fate.kept_bytes < fate.payload_bytes) {
        ++short_fates;
        EXPECT_EQ(fate.kept_bytes, 128u - 64u);  // trim_bytes minus the header
      }
    }
    EXPECT_EQ(short_fates, s.trimmed);  // each trimmed packet is one kept-short fate
  }
  EXPECT_GT(trimmed, 0u);
}

TEST(PacketTransport, ReliableTailDropRecoversEveryLoss) {
  IncastRun run = incast(Transport::kReliable, Admission::kTailDrop, true, 256 << 10);
  expect_conservation(run);
  uint64_t dropped = 0;
  for (size_t i = 0; i < run.flows.size(); ++i) {
    dropped += run.stats[i].dropped;
    EXPECT_EQ(run.stats[i].trimmed, 0u);
    EXPECT_GE(run.stats[i].retransmitted, run.stats[i].dropped - run.stats[i].in_flight);
    for (const PacketFate& fate : run.result.flows[i].fates)
      ASSERT_EQ(fate.kept_bytes, fate.payload_bytes);
  }
  EXPECT_GT(dropped, 0u);
}

TEST(PacketTransport, NdpOverTailDropStillCompletes) {
  IncastRun run = incast(Transport::kNdp, Admission::kTailDrop, false, 256 << 10);
  expect_conservation(run);
  EXPECT_GT(run.totals.dropped, 0u);
}

TEST(PacketTransport, EcnMarksUnderIncast) {
  IncastRun run = incast(Transport::kReliable, Admission::kEcn, false, 256 << 10);
  expect_conservation(run);
  EXPECT_GT(run.totals.ecn_marked, 0u);
  uint64_t marked = 0;
  for (const PacketFlowStats& s : run.stats) marked += s.ecn_marked;
  EXPECT_GT(marked, 0u);
}

TEST(PacketTransport, NoTrimOrDropBelowTheQueueThreshold) {
  // A permutation on a non-blocking fat-tree with packet spraying and the default 512 KB buffers:
  // queues never fill, so nothing may be trimmed or dropped.
  PacketConfig cfg;
  cfg.paths = 16;
  PacketBackend net(make_fat_tree(FatTreeParams{4, 100, 1.0}), cfg);
  TrafficSpec spec;
  spec.flow_bytes = 1 << 20;
  std::vector<Flow> flows = pattern_flows(spec, net.topology().ranks(), 3);
  StepResult r = net.time_step(flows);
  for (const FlowResult& f : r.flows) {
    EXPECT_EQ(f.trimmed, 0u);
    EXPECT_EQ(f.dropped, 0u);
    EXPECT_EQ(f.retransmitted, 0u);
  }
  EXPECT_EQ(net.totals().trimmed, 0u);
  EXPECT_EQ(net.totals().dropped, 0u);
}

TEST(PacketTransport, BernoulliTrimmingHitsTheChosenFraction) {
  PacketConfig cfg;
  cfg.transport = Transport::kAcceptTrimmed;
  cfg.random_trim_fraction = 0.2;
  PacketBackend net(make_fat_tree(FatTreeParams{4, 100, 1.0}), cfg);
  Flow flow{0, 9, 4096ull * 4000, 5};
  net.time_step(std::span(&flow, 1));
  const PacketFlowStats& s = net.last_step_stats()[0];
  // Binomial(4000, 0.2): mean 800, sd sqrt(4000 * 0.2 * 0.8) = 25.3; allow 4 sd.
  EXPECT_NEAR(static_cast<double>(s.trimmed), 800.0, 4 * 25.3);
  EXPECT_EQ(s.retransmitted, 0u);
}

TEST(PacketTransport, NdpWithSprayingConservesAndResendsOnlyTrimmed) {
  PacketConfig cfg;
  cfg.queue_packets = 8;
  cfg.paths = 16;
  PacketBackend net(make_fat_tree(FatTreeParams{8, 100, 1.0}), cfg);
  TrafficSpec spec;
  spec.pattern = Pattern::kIncast;
  spec.flow_bytes = 512 << 10;
  std::vector<Flow> flows = pattern_flows(spec, net.topology().ranks(), 2);
  StepResult r = net.time_step(flows);
  uint64_t trimmed = 0;
  for (size_t i = 0; i < flows.size(); ++i) {
    const PacketFlowStats& s = net.last_step_stats()[i];
    EXPECT_EQ(s.sent, s.delivered + s.trimmed + s.dropped + s.in_flight);
    EXPECT_EQ(s.retransmitted, s.trimmed);
    EXPECT_EQ(s.in_flight, 0u);
    trimmed += s.trimmed;
  }
  EXPECT_GT(trimmed, 0u);
  // 16 x 512 KB through the receiver's one 100 Gb/s link: at least 8 MiB * (4160 / 4096) / B.
  EXPECT_GT(r.duration_s, 16.0 * (512 << 10) * 4160 / 4096 / 12.5e9);
}

TEST(PacketTransport, TimeoutRecoversTailLosses) {
  // Four senders of 8 packets each into a 2-packet queue: the last packets of some flows are
  // dropped with nothing behind them to reveal the gap, so only the timeout can resend them.
  PacketConfig cfg;
  cfg.transport = Transport::kReliable;
  cfg.admission = Admission::kTailDrop;
  cfg.queue_packets = 2;
  cfg.rto_s = 100e-6;
  PacketBackend net(make_fat_tree(FatTreeParams{4, 100, 1.0}), cfg);
  std::vector<Flow> flows;
  for (int s = 1; s <= 4; ++s) flows.push_back(Flow{4 * s - 1, 0, 8 * 4096, uint64_t(s)});
  StepResult r = net.time_step(flows, StepOptions{true});
  uint64_t dropped = 0;
  for (size_t i = 0; i < flows.size(); ++i) {
    dropped += net.last_step_stats()[i].dropped;
    for (const PacketFate& f : r.flows[i].fates) ASSERT_EQ(f.kept_bytes, f.payload_bytes);
  }
  EXPECT_GT(dropped, 0u);
  // Recovered by a timeout: later than rto_s, sooner than 1.25 rto_s (timer granularity) plus
  // a few round trips of retransmission.
  EXPECT_GT(r.duration_s, cfg.rto_s);
  EXPECT_LT(r.duration_s, 3 * cfg.rto_s);
}

TEST(PacketTransport, HeaderQueueOverflowIsRecovered) {
  PacketConfig cfg;
  cfg.queue_packets = 8;
  cfg.header_queue_packets = 1;
  cfg.rto_s = 100e-6;
  PacketBackend net(make_fat_tree(FatTreeParams{8, 100, 1.0}), cfg);
  TrafficSpec spec;
  spec.pattern = Pattern::kIncast;
  spec.flow_bytes = 128 << 10;
  std::vector<Flow> flows = pattern_flows(spec, net.topology().ranks(), 4);
  StepResult r = net.time_step(flows, StepOptions{true});
  EXPECT_GT(net.totals().dropped, 0u);
  for (size_t i = 0; i < flows.size(); ++i) {
    const PacketFlowStats& s = net.last_step_stats()[i];
    EXPECT_EQ(s.sent, s.delivered + s.trimmed + s.dropped + s.in_flight);
    for (const PacketFate& f : r.flows[i].fates) ASSERT_EQ(f.kept_bytes, f.payload_bytes);
  }
}

TEST(PacketTransport, SameSeedSameResults) {
  IncastRun a = incast(Transport::kNdp, Admission::kTrim, true, 512 << 10);
  IncastRun b = incast(Transport::kNdp, Admission::kTrim, true, 512 << 10);
  ASSERT_EQ(a.result.flows.size(), b.result.flows.size());
  for (size_t i = 0; i < a.result.flows.size(); ++i) {
    EXPECT_EQ(a.result.flows[i].finish_s, b.result.flows[i].finish_s);
    EXPECT_EQ(a.stats[i].trimmed, b.stats[i].trimmed);
    EXPECT_EQ(a.stats[i].sent, b.stats[i].sent);
  }
  EXPECT_EQ(a.totals.events, b.totals.events);
}

}  // namespace
}  // namespace commlab
