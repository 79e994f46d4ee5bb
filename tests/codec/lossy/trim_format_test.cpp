// Trimmable packet format: layout, bit-exact untrimmed decode, every-prefix decode, bad headers.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "codec/lossy/quant_tables.h"
#include "numeric/float16.h"
#include "numeric/wht.h"
#include "trim_test_util.h"

namespace commlab::trim {
namespace {

using testing::gaussian;
using testing::sq_dist;
using testing::sq_norm;

TrimConfig config(TrimEncoding e, int bits, DType wire = DType::kFp32) {
  TrimConfig c;
  c.encoding = e;
  c.head_bits = bits;
  c.wire = wire;
  c.seed = 17;
  return c;
}

TEST(TrimLayout, PacketsFillThePayloadAndTrimSizesAreHeaderPlusPlanes) {
  TrimConfig c = config(TrimEncoding::kEden, 1);
  const size_t n = coords_per_packet(c);
  // 36-byte header + 1024/8 bytes of heads (RHT block padded to 1024) + 4 n bytes of tails.
  EXPECT_EQ(n, (4096u - 36 - 128) / 4);
  EXPECT_LE(packet_layout(c.encoding, 1, c.wire, n).total(), 4096u);
  EXPECT_GT(packet_layout(c.encoding, 1, c.wire, n + 1).total(), 4096u);
  EXPECT_EQ(trim_size_for_bits(c, n, 1), 36u + 128u);
  EXPECT_EQ(trim_size_for_bits(c, n, 0), 36u);
  // SQ heads are not padded: 40-byte header + ceil(n/8) bytes per plane.
  TrimConfig s = config(TrimEncoding::kSq, 2, DType::kBf16);
  const size_t m = coords_per_packet(s);
  EXPECT_EQ(trim_size_for_bits(s, m, 2), 40u + 2 * ((m + 7) / 8));
  EXPECT_LE(packet_layout(s.encoding, 2, s.wire, m).total(), 4096u);
}

TEST(TrimLayout, InvalidConfigurationsThrow) {
  EXPECT_THROW(validate(config(TrimEncoding::kDrive, 2)), std::invalid_argument);
  EXPECT_THROW(validate(config(TrimEncoding::kEden, 5)), std::invalid_argument);
  EXPECT_THROW(validate(config(TrimEncoding::kSq, 9)), std::invalid_argument);
  TrimConfig tiny = config(TrimEncoding::kEden, 1);
  tiny.payload_bytes = 30;
  EXPECT_THROW(validate(tiny), std::invalid_argument);
  // Every packet must fit the payload (transports lay packets out in payload-sized slots).
  TrimConfig fixed = config(TrimEncoding::kEden, 1);
  fixed.coords_per_packet = 2048;
  EXPECT_THROW(validate(fixed), std::invalid_argument);
  set_coords_per_packet(fixed, 2048);
  EXPECT_NO_THROW(validate(fixed));
  EXPECT_EQ(fixed.payload_bytes, 36u + 256u + 4u * 2048u);
  std::vector<float> x(10);
  EXPECT_THROW(encode_packets(x, config(TrimEncoding::kEden, 1), 70000, 0), std::invalid_argument);
}

template <typename T>
T read_at(const std::vector<std::byte>& p, size_t at) {
  T v;
  std::memcpy(&v, p.data() + at, sizeof(T));
  return v;
}

TEST(TrimLayout, HeaderFieldsSitAtTheDocumentedOffsets) {
  // docs/formats.md ("Trimmable packets"), "Header": byte offsets of every field, little-endian.
  std::vector<float> x(5000);  // packet 1 is a full one
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.001f * static_cast<float>(i % 17) - 0.008f;
  TrimConfig c = config(TrimEncoding::kEden, 3, DType::kBf16);
  c.unbiased = false;
  auto packets = encode_packets(x, c, 258, 0x1234567890ull);
  ASSERT_GE(packets.size(), 2u);
  const auto& p = packets[1];
  const size_t n = coords_per_packet(c);
  EXPECT_EQ(read_at<uint8_t>(p, 0), 0x54);
  EXPECT_EQ(read_at<uint8_t>(p, 1), 2);             // EDEN
  EXPECT_EQ(read_at<uint8_t>(p, 2), 3);             // head bits
  EXPECT_EQ(read_at<uint8_t>(p, 3), 0);             // bf16 wire (DType 0), min-MSE scale
  EXPECT_EQ(read_at<uint16_t>(p, 4), 258);          // sender
  EXPECT_EQ(read_at<uint32_t>(p, 8), 0x34567890u);  // low 32 bits of the stream id
  EXPECT_EQ(read_at<uint32_t>(p, 12), n);           // count
  EXPECT_EQ(read_at<uint64_t>(p, 16), n);           // offset of packet 1
  EXPECT_EQ(read_at<uint64_t>(p, 24), packet_seed(c.seed, 258, 0x1234567890ull, 1));
  EXPECT_GT(read_at<float>(p, 32), 0.0f);  // S_1 .. S_3
  EXPECT_GT(read_at<float>(p, 40), 0.0f);
  // Tails start after header (32 + 12) and 3 planes of next_pow2(n) / 8 bytes; bf16 of x.
  const size_t tails = 44 + 3 * next_pow2(n) / 8;
  EXPECT_EQ(read_at<uint16_t>(p, tails), float_to_bf16(x[n]));
  EXPECT_EQ(p.size(), tails + 2 * n);
}

TEST(TrimLayout, GoldenPacketBytesAreStable) {
  // A format change must be deliberate: update docs/formats.md ("Trimmable packets") and this value
  // together.
  std::vector<float> x(700);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(static_cast<int>(i * 37 % 101) - 50) / 25.0f;  // no libm
  uint64_t digest = 0;
  for (auto [e, b] : {std::pair{TrimEncoding::kSq, 3}, std::pair{TrimEncoding::kDrive, 1},
                      std::pair{TrimEncoding::kEden, 2}}) {
    for (const auto& p : encode_packets(x, config(e, b), 1, 2)) {
      for (std::byte v : p) digest = hash_combine(digest, static_cast<uint64_t>(v));
    }
  }
  EXPECT_EQ(digest, 0x3ee641c78ed88ccfull) << std::hex << digest;
}

TEST(LloydMax, CentroidsAndDistortionsMatchMaxsTables) {
  // J. Max, "Quantizing for minimum distortion", 1960: 1 bit +-0.7979 (D 0.3634), 2 bits +-0.4528,
  // +-1.510 (D 0.1175), 3 bits outer 2.152 (D 0.03454), 4 bits outer 2.733 (D 0.009497).
  EXPECT_NEAR(lloyd_max_quantizer(1).level[1][1], std::sqrt(2 / M_PI), 1e-9);
  EXPECT_NEAR(lloyd_max_quantizer(2).level[2][2], 0.4528, 1e-3);
  EXPECT_NEAR(lloyd_max_quantizer(2).level[2][3], 1.5104, 1e-3);
  EXPECT_NEAR(lloyd_max_quantizer(3).level[3][7], 2.1520, 1e-3);
  EXPECT_NEAR(lloyd_max_quantizer(4).level[4][15], 2.7326, 1e-3);
  EXPECT_NEAR(lloyd_max_quantizer(1).distortion[1], 1 - 2 / M_PI, 1e-9);
  EXPECT_NEAR(lloyd_max_quantizer(2).distortion[2], 0.1175, 1e-4);
  EXPECT_NEAR(lloyd_max_quantizer(3).distortion[3], 0.03454, 1e-4);
  EXPECT_NEAR(lloyd_max_quantizer(4).distortion[4], 0.009497, 1e-5);
  // The top plane of any b-bit index is the sign, so one kept plane is EDEN's 1-bit alphabet.
  for (int b = 2; b <= 4; ++b)
    EXPECT_NEAR(lloyd_max_quantizer(b).level[1][1], std::sqrt(2 / M_PI), 1e-9);
}

TEST(TrimPacket, UntrimmedPacketsDecodeBitExactly) {
  auto x = gaussian(5000, 1);
  x[3] = std::numeric_limits<float>::infinity();
  x[7] = -0.0f;
  x[9] = 1e-40f;  // subnormal
  for (DType wire : {DType::kFp32, DType::kBf16, DType::kFp16}) {
    for (auto [e, b] : {std::pair{TrimEncoding::kSq, 4}, std::pair{TrimEncoding::kDrive, 1},
                        std::pair{TrimEncoding::kEden, 2}}) {
      TrimConfig c = config(e, b, wire);
      auto packets = encode_packets(x, c, 3, 99);
      std::vector<float> out(x.size());
      DecodeStats stats;
      auto r = decode_packets(testing::whole(packets), c, out, &stats);
      ASSERT_TRUE(r.ok()) << r.error();
      EXPECT_EQ(*r, x.size());
      EXPECT_EQ(stats.packets_trimmed, 0u);
      EXPECT_EQ(stats.exact_coordinates, x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        float want = wire == DType::kFp32   ? x[i]
                     : wire == DType::kBf16 ? bf16_to_float(float_to_bf16(x[i]))
                                            : fp16_to_float(float_to_fp16(x[i]));
        ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(want)) << i;
      }
    }
  }
}

// NMSE of one packet of x cut to every length from the header to the whole packet.
std::vector<double> nmse_by_length(const TrimConfig& c, const std::vector<float>& x) {
  auto packets = encode_packets(x, c, 0, 5);
  EXPECT_EQ(packets.size(), 1u);
  const auto& p = packets[0];
  const size_t header = header_bytes(c.encoding, c.head_bits);
  std::vector<double> nmse;
  std::vector<float> out(x.size());
  HeadScratch scratch;
  for (size_t len = header; len <= p.size(); ++len) {
    auto r = decode_packet(std::span(p).first(len), out, nullptr, scratch);
    EXPECT_TRUE(r.ok()) << len << ": " << (r.ok() ? "" : r.error());
    nmse.push_back(sq_dist(out, x) / sq_norm(x));
  }
  return nmse;
}

TEST(TrimPacket, EveryPrefixDecodesAndMoreBytesNeverHurt) {
  const size_t d = 256;
  for (auto [e, b] : {std::pair{TrimEncoding::kSq, 4}, std::pair{TrimEncoding::kDrive, 1},
                      std::pair{TrimEncoding::kEden, 4}, std::pair{TrimEncoding::kEden, 2}}) {
    TrimConfig c = config(e, b);
    set_coords_per_packet(c, d);
    // Mean NMSE over seeds: each extra byte refines 8 coordinates, which lowers the expected error
    // (a single draw may move one coordinate's error either way inside the head planes).
    const int seeds = 24;
    std::vector<double> mean;
    for (int s = 0; s < seeds; ++s) {
      c.seed = 1000 + s;
      auto x = gaussian(d, 50 + s);
      auto nmse = nmse_by_length(c, x);
      if (mean.empty()) mean.assign(nmse.size(), 0.0);
      for (size_t i = 0; i < nmse.size(); ++i) mean[i] += nmse[i] / seeds;
      // Within the tails, every kept tail replaces an estimate by the exact value: monotone per
      // draw.
      const size_t tails_from = trim_size_for_bits(c, d, b) - header_bytes(e, b);
      for (size_t i = tails_from + 1; i < nmse.size(); ++i) ASSERT_LE(nmse[i], nmse[i - 1] + 1e-12);
      EXPECT_EQ(nmse.back(), 0.0);
    }
    for (size_t i = 1; i < mean.size(); ++i) {
      ASSERT_LE(mean[i], mean[i - 1] + 1e-9) << encoding_name(e) << b << " at byte " << i;
    }
  }
}

TEST(TrimPacket, CorruptOrTruncatedHeadersAreErrors) {
  auto x = gaussian(300, 2);
  TrimConfig c = config(TrimEncoding::kEden, 3);
  auto packets = encode_packets(x, c, 1, 1);
  std::vector<float> out(x.size());
  HeadScratch scratch;
  const auto& p = packets[0];
  const size_t header = header_bytes(c.encoding, c.head_bits);
  for (size_t len = 0; len < header; ++len) {
    EXPECT_FALSE(decode_packet(std::span(p).first(len), out, nullptr, scratch).ok()) << len;
  }
  for (size_t byte = 0; byte < header; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto bad = p;
      bad[byte] ^= std::byte(1 << bit);
      EXPECT_FALSE(decode_packet(bad, out, nullptr, scratch).ok()) << byte << ":" << bit;
    }
  }
  // A valid packet whose coordinates lie outside the receiver's tensor.
  std::vector<float> small(100);
  EXPECT_FALSE(decode_packet(p, small, nullptr, scratch).ok());
  // A packet longer than its layout, and random garbage.
  auto longer = p;
  longer.push_back(std::byte{0});
  EXPECT_FALSE(decode_packet(longer, out, nullptr, scratch).ok());
  CounterRng rng(8, Purpose::kGenerator);
  for (int t = 0; t < 200; ++t) {
    std::vector<std::byte> junk(rng.below(2 * t, 600));
    for (size_t i = 0; i < junk.size(); ++i) junk[i] = std::byte(rng.draw(1000 * t + i));
    EXPECT_FALSE(decode_packet(junk, out, nullptr, scratch).ok());
  }
  // A packet of another configuration is refused by decode_packets.
  auto other = config(TrimEncoding::kEden, 2);
  EXPECT_FALSE(decode_packets(testing::whole(packets), other, out).ok());
}

TEST(TrimPacket, GarbledPayloadsAndRandomPrefixesDecodeWithoutFault) {
  // Heads and tails are not checksummed (a switch only cuts them): any bytes there must decode to
  // finite-or-not values without a fault, for every encoding and random cut points.
  CounterRng rng(21, Purpose::kGenerator);
  auto x = gaussian(3000, 6);
  std::vector<float> out(x.size());
  HeadScratch scratch;
  int case_id = 0;
  for (auto [e, b] : {std::pair{TrimEncoding::kSq, 8}, std::pair{TrimEncoding::kDrive, 1},
                      std::pair{TrimEncoding::kEden, 4}, std::pair{TrimEncoding::kEden, 3}}) {
    for (DType wire : {DType::kFp32, DType::kFp16}) {
      TrimConfig c = config(e, b, wire);
      auto packets = encode_packets(x, c, 4, 2);
      for (auto& p : packets) {
        const size_t header = header_bytes(e, b);
        for (int t = 0; t < 20; ++t, ++case_id) {
          auto bad = p;
          for (size_t i = header; i < bad.size(); ++i) {
            if (rng.uniform(case_id * 100000 + i) < 0.05) bad[i] = std::byte(rng.draw(i + case_id));
          }
          size_t len = header + rng.below(case_id, bad.size() - header + 1);
          ASSERT_TRUE(decode_packet(std::span(bad).first(len), out, nullptr, scratch).ok());
        }
      }
    }
  }
}

TEST(TrimPacket, StatsCountTrimmedPacketsAndBits) {
  auto x = gaussian(10000, 3);
  TrimConfig c = config(TrimEncoding::kEden, 1);
  auto packets = encode_packets(x, c, 0, 0);
  const size_t n = coords_per_packet(c);
  ASSERT_EQ(packets.size(), (x.size() + n - 1) / n);
  std::vector<float> out(x.size());
  DecodeStats stats;
  ASSERT_TRUE(decode_packets(testing::trim_all(packets, 1), c, out, &stats).ok());
  EXPECT_EQ(stats.packets, packets.size());
  EXPECT_EQ(stats.packets_trimmed, packets.size());
  EXPECT_EQ(stats.exact_coordinates, 0u);
  // One head bit per RHT-block coordinate, spread over the packet's coordinates (1024 / 983).
  EXPECT_NEAR(stats.effective_bits_per_coordinate(), 1.0, 0.06);
  EXPECT_GT(stats.bits_per_coordinate(), 1.0);
  EXPECT_LT(stats.bits_per_coordinate(), 1.4);
}

TEST(TrimEmulation, BernoulliTrimsTheRequestedFractionDeterministically) {
  auto x = gaussian(200000, 4);
  TrimConfig c = config(TrimEncoding::kSq, 1);
  auto packets = encode_packets(x, c, 0, 0);
  const size_t n = packets.size();
  size_t none = 1, all = 0, some = 0, again = 0;
  emulate_bernoulli_trim(packets, 0.0, 1, 9, 0, 0, &none);
  emulate_bernoulli_trim(packets, 1.0, 1, 9, 0, 0, &all);
  auto a = emulate_bernoulli_trim(packets, 0.3, 1, 9, 0, 0, &some);
  auto b = emulate_bernoulli_trim(packets, 0.3, 1, 9, 0, 0, &again);
  EXPECT_EQ(none, 0u);
  EXPECT_EQ(all, n);
  // Binomial(n, 0.3): within 5 standard deviations.
  EXPECT_NEAR(static_cast<double>(some), 0.3 * n, 5 * std::sqrt(0.21 * n));
  EXPECT_EQ(some, again);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(a[i].size(), b[i].size());
    EXPECT_TRUE(a[i].size() == packets[i].size() ||
                a[i].size() == *packet_trim_size(packets[i], 1));
  }
}

}  // namespace
}  // namespace commlab::trim
