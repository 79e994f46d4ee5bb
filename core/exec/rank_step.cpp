#include "exec/rank_step.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "codec/codec.h"
#include "codec/frame.h"
#include "io/status.h"
#include "numeric/rng.h"

namespace commlab::exec {

size_t packet_count(const TrimWire& wire, uint64_t count) {
  const size_t per_packet = trim::coords_per_packet(wire.config());
  return static_cast<size_t>((count + per_packet - 1) / per_packet);
}

namespace {

// Cuts with packet i kept whole unless trim(i) says so.
template <typename Trimmed>
std::vector<PacketCut> cuts_where(const TrimWire& wire, uint64_t coords, Trimmed trimmed) {
  const trim::TrimConfig& c = wire.config();
  const size_t per_packet = trim::coords_per_packet(c);
  std::vector<PacketCut> cuts;
  for (size_t index = 0, left = coords; left > 0; ++index) {
    size_t count = std::min(per_packet, left);
    left -= count;
    PacketCut cut;
    cut.size = trim::packet_layout(c.encoding, c.head_bits, c.wire, count).total();
    cut.keep = trimmed(index) ? trim::trim_size_for_bits(c, count, c.head_bits) : cut.size;
    cuts.push_back(cut);
  }
  return cuts;
}

}  // namespace

std::vector<PacketCut> trim_cuts(const TrimWire& wire, const WireContext& ctx, double rate,
                                 uint64_t seed) {
  // The receiver's TrimWire::decode draws the same values (codec_wire.h).
  const CounterRng rng = trim_draws(seed, ctx);
  return cuts_where(wire, ctx.transfer->count,
                    [&](size_t index) { return rng.uniform(index) < rate; });
}

std::vector<PacketCut> mask_cuts(const TrimWire& wire, const WireContext& ctx,
                                 std::span<const uint8_t> mask) {
  const size_t packets = packet_count(wire, ctx.transfer->count);
  if (mask.size() != packets)
    throw bad_input("trim mask: the transfer of " + std::to_string(ctx.transfer->count) +
                    " values from rank " + std::to_string(ctx.transfer->src) + " has " +
                    std::to_string(packets) + " packets, the mask has " +
                    std::to_string(mask.size()) + " entries");
  return cuts_where(wire, ctx.transfer->count, [&](size_t index) { return mask[index] != 0; });
}

uint64_t cut_packets(std::vector<std::byte>& wire, std::span<const PacketCut> cuts, size_t slot) {
  size_t out = 0;
  uint64_t trimmed = 0;
  for (size_t p = 0; p < cuts.size(); ++p) {
    std::memmove(wire.data() + out, wire.data() + p * slot, cuts[p].keep);
    out += cuts[p].keep;
    trimmed += cuts[p].keep < cuts[p].size;
  }
  wire.resize(out);
  return trimmed;
}

void reslot_packets(std::span<const std::byte> received, std::span<const PacketCut> cuts,
                    size_t slot, std::vector<std::byte>& slotted) {
  size_t kept = 0;
  for (const PacketCut& c : cuts) kept += c.keep;
  if (received.size() != kept)
    throw bad_input("trimmed transfer: received " + std::to_string(received.size()) +
                    " bytes, its " + std::to_string(cuts.size()) + " packets as cut keep " +
                    std::to_string(kept));
  slotted.assign(cuts.empty() ? 0 : (cuts.size() - 1) * slot + cuts.back().size, std::byte{0});
  size_t in = 0;
  for (size_t p = 0; p < cuts.size(); ++p) {
    std::copy_n(received.data() + in, cuts[p].keep, slotted.data() + p * slot);
    in += cuts[p].keep;
  }
}

FlowResult fates_of(std::span<const PacketCut> cuts) {
  FlowResult flow;
  for (const PacketCut& c : cuts) {
    flow.fates.push_back(
        PacketFate{static_cast<uint32_t>(c.size), static_cast<uint32_t>(c.keep), false});
    flow.trimmed += c.keep < c.size;
  }
  flow.packets = cuts.size();
  return flow;
}

void apply_chunk_scale(const Plan& plan, int rank, std::span<float> buffer) {
  for (size_t c = 0; c < plan.chunk_scale.size(); ++c) {
    if (plan.op == CollectiveOp::kReduceScatter && plan.chunk_owner[c] != rank) continue;
    const float scale = static_cast<float>(plan.chunk_scale[c]);
    for (uint64_t i = plan.chunk_begin[c]; i < plan.chunk_begin[c + 1]; ++i) buffer[i] *= scale;
  }
}

RankTransfers rank_transfers(const PlanStep& step, int rank) {
  RankTransfers io;
  for (size_t i = 0; i < step.transfers.size(); ++i) {
    if (step.transfers[i].src == rank) io.sends.push_back(i);
    if (step.transfers[i].dst == rank) io.recvs.push_back(i);
  }
  return io;
}

namespace {

std::string transfer_name(const WireContext& ctx) {
  const Transfer& t = *ctx.transfer;
  return "transfer of " + std::to_string(t.count) + " values from rank " + std::to_string(t.src) +
         " to rank " + std::to_string(t.dst) + " (step " + std::to_string(ctx.step) + ")";
}

[[noreturn]] void refuse_bytes(const TransferCodec& codec, const WireContext& ctx,
                               const std::string& why) {
  throw bad_input("received " + transfer_name(ctx) + " on the " + codec.name() + " wire: " + why);
}

// Bytes a fixed-size wire sends for the transfer; nullopt for a codec (its frame says).
std::optional<uint64_t> fixed_wire_bytes(const TransferCodec& codec, const WireContext& ctx) {
  const uint64_t count = ctx.transfer->count;
  if (dynamic_cast<const Fp32Wire*>(&codec)) return count * sizeof(float);
  if (dynamic_cast<const Bf16Wire*>(&codec)) return count * 2;
  if (const auto* trim = dynamic_cast<const TrimWire*>(&codec)) {
    const std::vector<PacketCut> cuts = cuts_where(*trim, count, [](size_t) { return false; });
    return cuts.empty() ? 0 : (cuts.size() - 1) * trim->config().payload_bytes + cuts.back().size;
  }
  return std::nullopt;
}

}  // namespace

void check_received(const TransferCodec& codec, const WireContext& ctx,
                    std::span<const std::byte> wire) {
  if (std::optional<uint64_t> expected = fixed_wire_bytes(codec, ctx)) {
    if (wire.size() != *expected)
      refuse_bytes(
          codec, ctx,
          std::to_string(wire.size()) + " bytes, the wire sends " + std::to_string(*expected));
    return;
  }
  const auto* framed = dynamic_cast<const CodecWire*>(&codec);
  if (!framed) return;  // a transfer codec without a known wire size checks its own bytes
  Result<frame::Header> header = frame::parse_any(wire);
  if (!header) refuse_bytes(codec, ctx, "bad frame: " + header.error());
  // A frame followed by other bytes is not what a sender's encode produced.
  if (const size_t framed_bytes = frame::kHeaderSize + header->payload_size;
      framed_bytes != wire.size())
    refuse_bytes(
        codec, ctx,
        std::to_string(wire.size()) + " bytes, the frame holds " + std::to_string(framed_bytes));
  const uint64_t expected = ctx.transfer->count * dtype_size(framed->dtype());
  if (header->original_size != expected)
    refuse_bytes(codec, ctx,
                 "the frame decodes to " + std::to_string(header->original_size) +
                     " bytes, the transfer has " + std::to_string(expected) + " (" +
                     std::string(dtype_name(framed->dtype())) + ")");
}

void decode_into(TransferCodec& codec, const WireContext& ctx, std::span<const std::byte> wire,
                 const FlowResult* fate, std::span<float> buffer, std::vector<float>& scratch) {
  check_received(codec, ctx, wire);
  const Transfer& t = *ctx.transfer;
  if (!t.reduce) {
    codec.decode(ctx, wire, fate, buffer.subspan(t.offset, t.count));
    return;
  }
  scratch.resize(t.count);
  codec.decode(ctx, wire, fate, scratch);
  float* dst = buffer.data() + t.offset;
  for (uint64_t e = 0; e < t.count; ++e) dst[e] += scratch[e];
}

}  // namespace commlab::exec
