// packet.trim_bytes keeps the whole head (issue 22): the default derives from the encoding, the
// head bits, the wire and the MTU; an explicit value that cuts into the head is refused.
#include <gtest/gtest.h>

#include "scenario/scenario.h"

namespace commlab {
namespace {

RunConfig trimmed(const std::string& encoding, int bits, const std::string& wire, uint32_t mtu) {
  RunConfig c;
  c.cluster.backend = "packet";
  c.packet.admission = "trim";
  c.packet.mtu = mtu;
  c.collective.wire = wire;
  c.techniques.trimming.enabled = true;
  c.techniques.trimming.mode = "queue";
  c.techniques.trimming.encoding = encoding;
  c.techniques.trimming.head_bits = bits;
  return c;
}

TEST(TrimBytes, DefaultKeepsTheHeaderAndTheWholeHead) {
  // 64 B packet header + trim header (32 + 4 per scale) + head_bits planes of the RHT block.
  // EDEN 1-bit FP32, MTU 4096: 36 + 128 + 4n <= 4096 gives n = 983 (block 1024, 128 B plane).
  EXPECT_EQ(head_trim_bytes(trimmed("eden", 1, "fp32", 4096)), 64u + 36u + 128u);
  EXPECT_EQ(effective_trim_bytes(trimmed("eden", 1, "fp32", 4096)), 228u);
  // EDEN 2-bit: 40 + 256 + 4n <= 4096: n = 950, two 128 B planes.
  EXPECT_EQ(head_trim_bytes(trimmed("eden", 2, "fp32", 4096)), 64u + 40u + 256u);
  // BF16 tails: 36 + 256 + 2n <= 4096: n = 1902 needs the 2048 block, a 256 B plane.
  EXPECT_EQ(head_trim_bytes(trimmed("eden", 1, "bf16", 4096)), 64u + 36u + 256u);
  // SQ has no RHT block: 40 + ceil(n/8) + 4n <= 4096: n = 983, a 123 B plane.
  EXPECT_EQ(head_trim_bytes(trimmed("sq", 1, "fp32", 4096)), 64u + 40u + 123u);
  // MTU 1500: 36 + 64 + 4n <= 1500: n = 350 (block 512, 64 B plane).
  EXPECT_EQ(head_trim_bytes(trimmed("eden", 1, "fp32", 1500)), 64u + 36u + 64u);
  // Without trimming the field keeps the packet backend's default.
  RunConfig plain;
  EXPECT_EQ(head_trim_bytes(plain), 0u);
  EXPECT_EQ(effective_trim_bytes(plain), kDefaultTrimBytes);
  // An explicit value is used as given.
  RunConfig c = trimmed("eden", 1, "fp32", 4096);
  c.packet.trim_bytes = 300;
  EXPECT_EQ(effective_trim_bytes(c), 300u);
}

TEST(TrimBytes, AValueThatCutsIntoTheHeadIsRefused) {
  RunConfig c = trimmed("eden", 1, "fp32", 4096);
  c.cluster.spec = "flat:8";
  c.packet.trim_bytes = 128;
  bool found = false;
  for (const std::string& p : check_run_config(c))
    if (p.rfind("packet.trim_bytes:", 0) == 0) {
      found = true;
      EXPECT_EQ(p,
                "packet.trim_bytes: 128 B cuts into the 1-bit eden head: a full packet of 983 "
                "fp32 coordinates keeps its head in 228 B (64 B packet header + 36 B trim header "
                "+ 1 x 128 B head plane); set 0 (auto) or at least 228");
    }
  EXPECT_TRUE(found);
  for (uint32_t ok : {0u, 228u, 1000u}) {
    c.packet.trim_bytes = ok;
    for (const std::string& p : check_run_config(c))
      EXPECT_NE(p.rfind("packet.trim_bytes:", 0), 0u) << ok << ": " << p;
  }
  // Bernoulli trimming on the analytical backend never uses trim_bytes: no complaint.
  c.packet.trim_bytes = 128;
  c.cluster.backend = "analytical";
  c.techniques.trimming.mode = "bernoulli";
  for (const std::string& p : check_run_config(c))
    EXPECT_NE(p.rfind("packet.trim_bytes:", 0), 0u) << p;
}

}  // namespace
}  // namespace commlab
