// Traffic patterns, background generators, per-port time series and configuration errors.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "network/packet_backend.h"
#include "network/traffic_patterns.h"
#include "packet_test_util.h"
#include "topology/builders.h"

namespace commlab {
namespace {

using testing::k4;

TEST(PacketTraffic, PatternsHaveTheRightShape) {
  TrafficSpec perm = parse_pattern("perm");
  auto pairs = pattern_pairs(perm, 16, 9);
  ASSERT_EQ(pairs.size(), 16u);
  std::set<int> dsts;
  for (auto [s, d] : pairs) {
    EXPECT_NE(s, d);  // a derangement
    dsts.insert(d);
  }
  EXPECT_EQ(dsts.size(), 16u);  // a permutation

  TrafficSpec in = parse_pattern("incast:5");
  EXPECT_EQ(in.senders, 5);
  auto ip = pattern_pairs(in, 16, 9);
  std::set<int> srcs;
  for (auto [s, d] : ip) {
    EXPECT_EQ(d, 0);
    EXPECT_NE(s, 0);
    srcs.insert(s);
  }
  EXPECT_EQ(srcs.size(), 5u);
  EXPECT_EQ(pattern_pairs(parse_pattern("alltoall"), 16, 9).size(), 16u * 15u);
  EXPECT_EQ(parse_pattern("onoff:0.3").load, 0.3);
  // Same seed, same pairs; another seed, (almost surely) other pairs.
  EXPECT_EQ(pattern_pairs(perm, 16, 9), pairs);
  EXPECT_NE(pattern_pairs(perm, 16, 10), pairs);
}

TEST(PacketTraffic, BadPatternsAreRejected) {
  EXPECT_THROW(parse_pattern("incast"), std::invalid_argument);
  EXPECT_THROW(parse_pattern("incast:0"), std::invalid_argument);
  EXPECT_THROW(parse_pattern("onoff:2"), std::invalid_argument);
  EXPECT_THROW(parse_pattern("ring"), std::invalid_argument);
  EXPECT_THROW(pattern_pairs(parse_pattern("incast:16"), 16, 1), std::invalid_argument);
  EXPECT_THROW(parse_transport("tcp"), std::invalid_argument);
  EXPECT_EQ(parse_transport("accept-trimmed"), Transport::kAcceptTrimmed);
  EXPECT_EQ(parse_admission("tail-drop"), Admission::kTailDrop);
}

TEST(PacketTraffic, BadConfigurationIsRejected) {
  PacketConfig cfg;
  cfg.trim_bytes = 10;  // below the header
  EXPECT_THROW(PacketBackend(k4(), cfg), std::invalid_argument);
  cfg = PacketConfig{};
  cfg.mtu_bytes = 70000;
  EXPECT_THROW(PacketBackend(k4(), cfg), std::invalid_argument);
  cfg = PacketConfig{};
  cfg.random_trim_fraction = 1.5;
  EXPECT_THROW(PacketBackend(k4(), cfg), std::invalid_argument);
  PacketBackend net(k4());
  std::vector<Flow> bad{{0, 99, 1000, 1}};
  EXPECT_THROW(net.time_step(bad), std::logic_error);  // the engine built a flow off the cluster
}

TEST(PacketTraffic, BackgroundIncastSlowsAFlowIntoTheSameHost) {
  PacketConfig cfg;
  cfg.queue_packets = 8;
  Flow flow{5, 0, 2 << 20, 77};
  PacketBackend quiet(k4(), cfg);
  double alone = quiet.time_step(std::span(&flow, 1)).duration_s;

  PacketBackend busy(k4(), cfg);
  TrafficSpec bg;
  bg.pattern = Pattern::kIncast;
  bg.senders = 4;
  bg.target = 0;
  bg.flow_bytes = 1 << 20;
  busy.add_background(bg);
  busy.advance(50e-6);  // let the background fill the queues first
  double shared = busy.time_step(std::span(&flow, 1)).duration_s;
  // Five senders share host 0's 100 Gb/s link: the step flow gets about a fifth of it.
  EXPECT_GT(shared, 3 * alone);
  EXPECT_GT(busy.totals().background_flows_done, 0u);
  EXPECT_GT(busy.totals().trimmed, 0u);
}

TEST(PacketTraffic, OnOffBackgroundOffersItsLoad) {
  PacketBackend net(k4());
  TrafficSpec bg;
  bg.pattern = Pattern::kOnOff;
  bg.load = 0.3;
  bg.flow_bytes = 64 << 10;
  net.add_background(bg);
  const double seconds = 2e-3;
  net.advance(seconds);
  // 16 hosts offering 30% of 12.5 GB/s each for 2 ms, counted on the wire: a 64 KiB flow is 16
  // packets of 4096 B payload + 64 B header, so the payload offered is 65536 / 66560 of it.
  // Poisson, so within 25%; flows still under way at the end are not counted, hence the lower
  // bound is looser.
  const double offered = 16 * 0.3 * 12.5e9 * seconds * 65536.0 / 66560.0;
  const double done = static_cast<double>(net.totals().background_bytes_done);
  EXPECT_GT(done, 0.6 * offered);
  EXPECT_LT(done, 1.25 * offered);
  net.clear_background();
  const uint64_t before = net.totals().background_flows_done;
  net.advance(1e-3);  // flows under way finish, no new ones start
  net.advance(1e-3);
  const uint64_t settled = net.totals().background_flows_done;
  net.advance(1e-3);
  EXPECT_EQ(net.totals().background_flows_done, settled);
  EXPECT_GE(settled, before);
}

TEST(PacketTraffic, ClosedLoopBackgroundIgnoresLoadAndOffersLineRate) {
  // perm, incast and alltoall restart a pair's flow when it completes: they offer line rate
  // whatever TrafficSpec::load says (packet.background_load is documented as onoff-only; the
  // trimming sweeps set 0.9 with perm). Same seed, loads 0.3 and 0.9: the same bytes, bit for bit.
  auto run = [](double load) {
    PacketBackend net(k4());
    TrafficSpec bg;  // kPermutation, 1 MiB flows
    bg.load = load;
    net.add_background(bg);
    net.advance(2e-3);
    return net.totals().background_bytes_done;
  };
  const uint64_t low = run(0.3), high = run(0.9);
  EXPECT_EQ(low, high);
  // 16 senders at 12.5 GB/s for 2 ms, payload 65536 / 66560 of the wire (4096 B + 64 B header):
  // 393.8 MB at line rate. ECMP collisions of a permutation on a k=4 fat-tree cost part of it,
  // but more than half gets through: above anything a load of 0.3 (118 MB offered) could reach.
  const double line_rate = 16 * 12.5e9 * 2e-3 * 65536.0 / 66560.0;
  EXPECT_GT(static_cast<double>(low), 0.5 * line_rate);
  EXPECT_LE(static_cast<double>(low), line_rate);
}

TEST(PacketTraffic, PortSeriesShowsTheBusyLink) {
  PacketConfig cfg;
  cfg.sample_interval_s = 10e-6;
  cfg.max_samples = 16;
  PacketBackend net(k4(), cfg);
  Flow flow{0, 15, 8 << 20, 1};  // ~680 us at 100 Gb/s
  net.time_step(std::span(&flow, 1));
  const PortSeries& s = net.port_series();
  ASSERT_EQ(s.ports, static_cast<int>(net.topology().links().size()));
  // Bounded: never more than max_samples; the interval doubled as samples merged.
  EXPECT_LE(s.count(), 16u);
  EXPECT_GT(s.count(), 4u);
  EXPECT_GT(s.interval_s, 10e-6);
  // The host's own uplink (the first link out of GPU 0) is saturated in the middle of the flow.
  const int uplink = net.topology().out_links(net.topology().gpus()[0])[0];
  EXPECT_GT(s.at(s.count() / 2, uplink).utilisation, 0.95f);
  EXPECT_EQ(s.at(s.count() / 2, uplink).drops, 0u);
}

}  // namespace
}  // namespace commlab
