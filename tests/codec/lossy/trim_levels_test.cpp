// Multi-level heads in training: a packet encoded with B head bits that keeps K <= B of
// them decodes at K bits through the training path (TrimWire), the Bernoulli and queue rules map
// draws and queue depths to the documented levels, and the information bits count what arrived.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "codec/lossy/quant_tables.h"
#include "collective/codec_wire.h"
#include "network/packet_backend.h"
#include "network/traffic_patterns.h"
#include "topology/builders.h"
#include "trim_test_util.h"

namespace commlab {
namespace {

using trim::testing::gaussian;
using trim::testing::sq_dist;
using trim::testing::sq_norm;

constexpr size_t kPerPacket = 1024;  // a power of two: the RHT block has no padding

trim::TrimConfig eden(int head_bits) {
  trim::TrimConfig c;
  c.encoding = trim::TrimEncoding::kEden;
  c.head_bits = head_bits;
  c.seed = 11;
  trim::set_coords_per_packet(c, kPerPacket);
  return c;
}

// Fates that keep `bits[i]` head bits of packet i (-1: whole), as the packet backend reports them.
FlowResult fates_keeping(const trim::TrimConfig& c, const std::vector<int>& bits) {
  FlowResult f;
  const size_t size = trim::packet_layout(c.encoding, c.head_bits, c.wire, kPerPacket).total();
  for (int b : bits) {
    PacketFate fate;
    fate.payload_bytes = static_cast<uint32_t>(size);
    fate.kept_bytes =
        static_cast<uint32_t>(b < 0 ? size : trim::trim_size_for_bits(c, kPerPacket, b));
    f.fates.push_back(fate);
  }
  return f;
}

// Encodes x from rank 0 to rank 1 through `wire` and decodes it with `fate` (nullptr: Bernoulli).
std::vector<float> through(TrimWire& wire, const std::vector<float>& x, const FlowResult* fate,
                           uint64_t iteration = 0) {
  Transfer t{0, 1, 0, x.size(), false};
  WireContext ctx{&t, 0, iteration, 0};
  std::vector<std::byte> bytes;
  wire.encode(ctx, x, bytes);
  std::vector<float> out(x.size());
  wire.decode(ctx, bytes, fate, out);
  return out;
}

TEST(TrimLevels, PacketKeptAtKOfBBitsDecodesLikeTheQuantizeCommandsKeepBits) {
  // The training path (TrimWire, kept bytes from the network's fates) and the quantize command's
  // path (encode_packets, a K-bit prefix of every packet, decode_packets) decode the same bytes:
  // bit-identical values at every K.
  const trim::TrimConfig c = eden(4);
  const std::vector<float> x = gaussian(4 * kPerPacket, 3);
  for (int k = 1; k <= 4; ++k) {
    TrimWire wire(c, 0.0, 1, {4, 2, 1});
    const FlowResult fate = fates_keeping(c, std::vector<int>(4, k));
    const std::vector<float> got = through(wire, x, &fate);
    Transfer t{0, 1, 0, x.size(), false};
    WireContext ctx{&t, 0, 0, 0};
    std::vector<std::byte> bytes;
    wire.encode(ctx, x, bytes);  // the same packets (the seeds follow the context)
    std::vector<std::vector<std::byte>> packets;
    const size_t slot = c.payload_bytes;
    for (size_t p = 0; p < 4; ++p)
      packets.emplace_back(bytes.begin() + p * slot, bytes.begin() + p * slot + slot);
    std::vector<float> want(x.size());
    ASSERT_TRUE(trim::decode_packets(trim::testing::trim_all(packets, k), c, want).ok());
    EXPECT_EQ(got, want) << "k = " << k;
  }
}

TEST(TrimLevels, OneBitOfAFourBitHeadIsTheOneBitEncoding) {
  // The top plane of a B-bit EDEN index is the sign of the rotated coordinate (the middle
  // threshold is 0) and its reconstruction E[Z | sign] = sqrt(2/pi) is the 1-bit centroid, with the
  // same unbiased scale ||x||^2 / <R(x), Q>: the same values as a 1-bit encoding, up to rounding.
  const std::vector<float> x = gaussian(4 * kPerPacket, 5);
  TrimWire four(eden(4), 0.0, 1, {1});
  TrimWire one(eden(1), 0.0, 1);
  const FlowResult keep1 = fates_keeping(eden(4), {1, 1, 1, 1});
  const FlowResult keep1_of_1 = fates_keeping(eden(1), {1, 1, 1, 1});
  const std::vector<float> a = through(four, x, &keep1);
  const std::vector<float> b = through(one, x, &keep1_of_1);
  EXPECT_LT(sq_dist(a, b) / sq_norm(b), 1e-10);
}

TEST(TrimLevels, VnmseAtKOfFourBitsMatchesTheNestedLloydMaxTheory) {
  // Unbiased EDEN at large d: vNMSE = D / (1 - D) with D the distortion of what the receiver
  // knows. K of B = 4 planes: the nested cells of the 4-bit Lloyd-Max quantizer, D =
  // lloyd_max_quantizer(4).distortion[K]; K = 1 is the sign, D = 1 - 2/pi, vNMSE = pi/2 - 1 = 0.5708.
  // d = 2^14 in packets of 2^10, every packet trimmed (Bernoulli rate 1, one level K).
  constexpr size_t kD = size_t{1} << 14;
  constexpr int kTrials = 16;
  const std::vector<float> x = gaussian(kD, 7);
  for (int k : {1, 2}) {
    TrimWire wire(eden(4), 1.0, 1, {k});
    double sum = 0;
    for (int t = 0; t < kTrials; ++t) sum += sq_dist(through(wire, x, nullptr, t), x) / sq_norm(x);
    const double d = trim::lloyd_max_quantizer(4).distortion[k];
    const double want = d / (1 - d);
    EXPECT_NEAR(sum / kTrials, want, 0.03 * want) << "k = " << k;
    if (k == 1) EXPECT_NEAR(want, M_PI / 2 - 1, 1e-6);
    TrimWireStats s = wire.take_stats();
    EXPECT_EQ(s.trimmed, s.packets);
    EXPECT_DOUBLE_EQ(s.bits / static_cast<double>(s.coordinates), k);  // k bits each
  }
}

TEST(TrimLevels, BernoulliRuleTrimsFurtherWithProbabilityRatePerLevel) {
  // rate 0.5, levels {4, 2, 1}: trimmed to at least levels[i] when u < 0.5^(i+1).
  TrimWire wire(eden(4), 0.5, 1, {4, 2, 1});
  EXPECT_EQ(wire.bernoulli_bits(0.75), TrimWire::kKeepAll);
  EXPECT_EQ(wire.bernoulli_bits(0.5), TrimWire::kKeepAll);
  EXPECT_EQ(wire.bernoulli_bits(0.4999), 4);
  EXPECT_EQ(wire.bernoulli_bits(0.25), 4);
  EXPECT_EQ(wire.bernoulli_bits(0.2499), 2);
  EXPECT_EQ(wire.bernoulli_bits(0.125), 2);
  EXPECT_EQ(wire.bernoulli_bits(0.1249), 1);
  EXPECT_EQ(wire.bernoulli_bits(0.0), 1);
  // One level is the single-level rule: head_bits below the rate.
  TrimWire single(eden(2), 0.3, 1);
  EXPECT_EQ(single.bernoulli_bits(0.2999), 2);
  EXPECT_EQ(single.bernoulli_bits(0.3), TrimWire::kKeepAll);
  EXPECT_THROW(TrimWire(eden(2), 0.3, 1, {4}), std::invalid_argument);     // above head_bits
  EXPECT_THROW(TrimWire(eden(4), 0.3, 1, {2, 2}), std::invalid_argument);  // not decreasing
}

TEST(TrimLevels, InfoBitsAreKeptBitsTimesCoordinatesSummedOverPackets) {
  // FP32 tails: an untrimmed packet brings 32 bits per coordinate, one kept at K bits brings K.
  const trim::TrimConfig c = eden(4);
  const std::vector<int> kept = {-1, 4, 2, 1, 2, -1};
  const std::vector<float> x = gaussian(kept.size() * kPerPacket, 9);
  TrimWire wire(c, 0.0, 1, {4, 2, 1});
  const FlowResult fate = fates_keeping(c, kept);
  through(wire, x, &fate);
  double want = 0;
  for (int k : kept) want += (k < 0 ? 32.0 : k) * kPerPacket;
  TrimWireStats s = wire.take_stats();
  EXPECT_DOUBLE_EQ(s.bits, want);
  EXPECT_EQ(s.trimmed, 4u);
  EXPECT_EQ(s.packets, kept.size());
  EXPECT_EQ(s.coordinates, x.size());
}

TEST(TrimLevels, QueueRuleKeepsLevelIAboveIPlusOneThresholds) {
  // T = 8 full packets of 4096 + 64 B; levels 2164, 1164, 228 B (4-, 2-, 1-bit EDEN heads).
  const uint32_t wire = 4160;
  const uint64_t t = 8 * wire;
  const std::vector<uint32_t> levels = {2164, 1164, 228};
  EXPECT_EQ(trim_level_for_queue(0, wire, t, levels), kTrimNone);
  EXPECT_EQ(trim_level_for_queue(t - wire, wire, t, levels), kTrimNone);  // exactly fits
  EXPECT_EQ(trim_level_for_queue(t - wire + 1, wire, t, levels), 0);
  EXPECT_EQ(trim_level_for_queue(2 * t - 2164, wire, t, levels), 0);
  EXPECT_EQ(trim_level_for_queue(2 * t - 2163, wire, t, levels), 1);
  EXPECT_EQ(trim_level_for_queue(3 * t - 1164, wire, t, levels), 1);
  EXPECT_EQ(trim_level_for_queue(3 * t - 1163, wire, t, levels), 2);  // the last level
  EXPECT_EQ(trim_level_for_queue(100 * t, wire, t, levels), 2);
  // A short packet is cut to min(wire, level): a 1000 B packet at level 0 keeps all 1000 B.
  EXPECT_EQ(trim_level_for_queue(2 * t - 1000, 1000, t, levels), 0);
  // One level: whole up to T, the level above (plain trimming).
  const std::vector<uint32_t> one = {228};
  EXPECT_EQ(trim_level_for_queue(t - wire, wire, t, one), kTrimNone);
  EXPECT_EQ(trim_level_for_queue(t - wire + 1, wire, t, one), 0);
}

TEST(TrimLevels, IncastTrimsToSeveralLevelsAndFatesCarryTheirSizes) {
  // 16-to-1 incast, accept-trimmed: deeper queues cut packets shorter, and every trimmed fate
  // keeps exactly one level's bytes (its wire size minus the 64 B header).
  PacketConfig cfg;
  cfg.transport = Transport::kAcceptTrimmed;
  cfg.queue_packets = 8;
  cfg.trim_level_bytes = {2164, 1164, 228};
  PacketBackend net(make_fat_tree(FatTreeParams{8, 100, 1.0}), cfg);
  TrafficSpec spec;
  spec.pattern = Pattern::kIncast;
  spec.senders = 16;
  spec.flow_bytes = 1 << 20;
  const std::vector<Flow> flows = pattern_flows(spec, net.topology().ranks(), 1);
  const StepResult r = net.time_step(flows, StepOptions{true});
  std::map<uint32_t, uint64_t> by_kept;
  uint64_t trimmed = 0;
  for (const FlowResult& f : r.flows) {
    trimmed += f.trimmed;
    EXPECT_EQ(f.retransmitted, 0u);
    for (const PacketFate& fate : f.fates) {
      ASSERT_FALSE(fate.lost);
      if (fate.kept_bytes < fate.payload_bytes) ++by_kept[fate.kept_bytes];
    }
  }
  uint64_t short_fates = 0;
  for (auto [kept, n] : by_kept) {
    EXPECT_TRUE(kept == 2100 || kept == 1100 || kept == 164) << kept << " B";
    short_fates += n;
  }
  EXPECT_EQ(short_fates, trimmed);
  EXPECT_GE(by_kept.size(), 2u);  // more than one level in use
}

}  // namespace
}  // namespace commlab
