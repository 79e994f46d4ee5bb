#pragma once
// One rank's share of a collective Plan, independent of the transport that carries the bytes:
// which transfers of a step it sends and receives, the wire bytes it sends (encoded, and cut where
// a switch would trim), and the decode-and-reduce of what it received, in plan order. The MPI
// executor (exec/mpi_executor.h) and the PyTorch hooks (python/) move the bytes; both produce the
// buffer execute_plan (collective/simulated_executor.h) produces for the same plan, codec and seed.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "collective/codec_wire.h"
#include "collective/plan.h"
#include "collective/wire.h"

namespace commlab::exec {

// Per packet of a trimmable transfer: its full size in the slotted wire and the bytes that travel.
struct PacketCut {
  size_t size = 0;
  size_t keep = 0;
};

// The cuts of a Bernoulli-trimmed transfer: packet i is cut to the head bits when draw i of
// trim_draws(seed, ctx) is below `rate`, the draws TrimWire::decode makes at the receiver.
std::vector<PacketCut> trim_cuts(const TrimWire& wire, const WireContext& ctx, double rate,
                                 uint64_t seed);
// The cuts of a transfer whose packets are trimmed where `mask` is non-zero (one entry per
// packet; std::invalid_argument when the count differs).
std::vector<PacketCut> mask_cuts(const TrimWire& wire, const WireContext& ctx,
                                 std::span<const uint8_t> mask);
// Packets of a transfer of `count` coordinates under the wire's config.
size_t packet_count(const TrimWire& wire, uint64_t count);
// Compacts a slotted wire (TrimWire::encode) to the kept bytes of each packet; returns how many
// packets were cut.
uint64_t cut_packets(std::vector<std::byte>& wire, std::span<const PacketCut> cuts, size_t slot);
// Puts received kept bytes back in their slots (zero-filled); std::invalid_argument when the
// received byte count differs from the sum of the cuts' kept bytes.
void reslot_packets(std::span<const std::byte> received, std::span<const PacketCut> cuts,
                    size_t slot, std::vector<std::byte>& slotted);
// What the receiver's TrimWire::decode reads as the network's verdict for cuts (kept bytes).
FlowResult fates_of(std::span<const PacketCut> cuts);

// Unbiased SkipReduce: the rescaling execute_plan applies, on rank `rank`'s copy.
void apply_chunk_scale(const Plan& plan, int rank, std::span<float> buffer);

struct RankTransfers {
  std::vector<size_t> sends;  // indices into step.transfers, plan order
  std::vector<size_t> recvs;
};
RankTransfers rank_transfers(const PlanStep& step, int rank);

// Refuses (std::invalid_argument, naming the transfer) received bytes the transfer's wire cannot
// have sent: for the fixed-size wires a byte count other than theirs (fp32: 4 bytes per value,
// bf16: 2, trimmable packets: the slotted size of every packet), for a codec a frame that fails
// the frame checks (header, sizes, checksum) or holds another number of bytes than the transfer.
// The bytes come from a peer (an MPI rank, a Python hook), so their length is never trusted.
void check_received(const TransferCodec& codec, const WireContext& ctx,
                    std::span<const std::byte> wire);

// Decodes one received transfer and reduces (adds) or copies it into `buffer`, as execute_plan
// does; `scratch` holds decoded values between calls. Checks the bytes first (check_received).
void decode_into(TransferCodec& codec, const WireContext& ctx, std::span<const std::byte> wire,
                 const FlowResult* fate, std::span<float> buffer, std::vector<float>& scratch);

}  // namespace commlab::exec
