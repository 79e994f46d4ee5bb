// One rank's receive path (exec/rank_step.h) takes bytes a peer chose (an MPI rank, a Python
// hook): every byte count the transfer's wire cannot have sent is refused as bad input
// (std::invalid_argument) before anything is read, never a read past the end or garbage decoded.
#include "exec/rank_step.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "collective/algorithms.h"
#include "collective/codec_wire.h"
#include "collective/wire.h"

namespace commlab {
namespace {

// A 4-rank ring all-reduce of `count` values per rank; its first transfer received by rank 1.
struct Received {
  Plan plan;
  const Transfer* t = nullptr;
  WireContext ctx;
  explicit Received(uint64_t count) {
    PlanRequest r;
    r.ranks = 4;
    r.count = count;
    plan = build_plan("ring", r);
    const exec::RankTransfers io = exec::rank_transfers(plan.steps[0], 1);
    t = &plan.steps[0].transfers[io.recvs.at(0)];
    ctx = WireContext{t, 0, 0, 0};
  }
};

// The bytes `codec` sends for transfer `t` of a buffer of ones.
std::vector<std::byte> sent(TransferCodec& codec, const Received& r) {
  std::vector<float> values(r.t->count, 1.0f);
  std::vector<std::byte> wire;
  codec.encode(r.ctx, values, wire);
  return wire;
}

std::string refusal(TransferCodec& codec, const Received& r, std::span<const std::byte> wire) {
  std::vector<float> buffer(r.plan.count, 0.0f), scratch;
  try {
    exec::decode_into(codec, r.ctx, wire, nullptr, buffer, scratch);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(RankStepReceive, Fp32WireRefusesAOneByteReceiveOfA16MiBTransfer) {
  // 4 << 22 values per rank: the ring's chunks are 4 MiB values (16 MiB of FP32).
  const Received r(uint64_t{4} << 22);
  Fp32Wire wire;
  const std::vector<std::byte> one(1);
  const std::string e = refusal(wire, r, one);
  EXPECT_NE(e.find("1 bytes, the wire sends " + std::to_string(r.t->count * 4)), std::string::npos)
      << e;
}

TEST(RankStepReceive, Fp32AndBf16WiresRefuseEmptyAndLongReceives) {
  const Received r(16);  // transfers of 4 values: 16 bytes of FP32, 8 of BF16
  Fp32Wire fp32;
  Bf16Wire bf16;
  for (TransferCodec* codec :
       {static_cast<TransferCodec*>(&fp32), static_cast<TransferCodec*>(&bf16)}) {
    const std::vector<std::byte> good = sent(*codec, r);
    EXPECT_EQ(refusal(*codec, r, good), "") << codec->name();
    std::vector<std::byte> longer = good;
    longer.push_back(std::byte{0});
    EXPECT_NE(refusal(*codec, r, {}), "") << codec->name();
    EXPECT_NE(refusal(*codec, r, longer), "") << codec->name();
  }
}

TEST(RankStepReceive, CodecWireRefusesTruncatedPaddedAndWrongSizeFrames) {
  const Received r(4096);
  CodecWire lz4("lz4", DType::kBf16);
  const std::vector<std::byte> good = sent(lz4, r);
  EXPECT_EQ(refusal(lz4, r, good), "");
  const std::vector<std::byte> cut(good.begin(), good.end() - 1);
  EXPECT_NE(refusal(lz4, r, cut).find("bad frame"), std::string::npos);
  std::vector<std::byte> padded = good;
  padded.push_back(std::byte{0});
  EXPECT_NE(refusal(lz4, r, padded).find("the frame holds"), std::string::npos);
  // A valid frame of another transfer's size (twice as many values).
  const Received other(8192);
  const std::vector<std::byte> bigger = sent(lz4, other);
  EXPECT_NE(refusal(lz4, r, bigger).find("the frame decodes to"), std::string::npos);
  EXPECT_NE(refusal(lz4, r, {}).find("bad frame"), std::string::npos);
}

TEST(RankStepReceive, TrimWireRefusesAReceiveShorterOrLongerThanItsPackets) {
  const Received r(40000);  // 10,000 values per transfer: several 4 KiB packets
  TrimWire trim(trim::TrimConfig{}, 0.0, 1);
  const std::vector<std::byte> good = sent(trim, r);
  EXPECT_EQ(refusal(trim, r, good), "");
  EXPECT_NE(refusal(trim, r, std::span(good).first(good.size() / 2)), "");
  EXPECT_NE(refusal(trim, r, std::span(good).first(1)), "");
}

TEST(RankStepReceive, ReslotRefusesBytesOtherThanTheCutsKeep) {
  const Received r(40000);
  TrimWire trim(trim::TrimConfig{}, 0.5, 7);
  const std::vector<exec::PacketCut> cuts = exec::trim_cuts(trim, r.ctx, 0.5, 7);
  size_t kept = 0;
  for (const exec::PacketCut& c : cuts) kept += c.keep;
  std::vector<std::byte> slotted;
  const std::vector<std::byte> exact(kept), longer(kept + 1), shorter(kept - 1);
  EXPECT_NO_THROW(exec::reslot_packets(exact, cuts, trim.config().payload_bytes, slotted));
  EXPECT_THROW(exec::reslot_packets(longer, cuts, trim.config().payload_bytes, slotted),
               std::invalid_argument);
  EXPECT_THROW(exec::reslot_packets(shorter, cuts, trim.config().payload_bytes, slotted),
               std::invalid_argument);
}

}  // namespace
}  // namespace commlab
