#pragma once
// Packetizer of the just-in-time compression scheme (the trimming paper, docs/papers.md): a sender's tensor is
// cut into self-contained trimmable packets; a switch may cut any packet after any byte; the
// receiver decodes whatever prefix arrived. Format and formulas: docs/formats.md ("Trimmable
// packets").
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/lossy/quant_head.h"
#include "codec/lossy/trim_format.h"
#include "io/status.h"

namespace commlab::trim {

struct DecodeStats {
  size_t packets = 0;
  size_t packets_trimmed = 0;    // arrived shorter than sent
  size_t coordinates = 0;        // decoded coordinates
  size_t exact_coordinates = 0;  // decoded from their exact tails
  size_t received_bytes = 0;
  size_t full_bytes = 0;        // what the packets weighed when sent
  double precision_bits = 0.0;  // sum over coordinates of the bits that describe it

  // Wire bits received per coordinate (headers included).
  double bits_per_coordinate() const;
  // Information bits per coordinate: wire width for exact ones, head bits for the others.
  double effective_bits_per_coordinate() const;
  void merge(const DecodeStats& other);
};

// Key of packet `index` of (sender, stream): the header's seed field.
uint64_t packet_seed(uint64_t seed, int sender, uint64_t stream_id, uint64_t index);

// Encodes one packet of `coords` (coordinate `offset` of the sender's tensor) into `out` (at least
// packet_layout(...).total() bytes); returns the packet size.
size_t encode_packet(std::span<const float> coords, uint64_t offset, const TrimConfig& config,
                     int sender, uint64_t stream_id, uint64_t index, std::span<std::byte> out,
                     HeadScratch& scratch);

// Cuts x into coords_per_packet(config)-sized packets. Throws std::invalid_argument for a bad
// config or a sender outside 0..65535.
std::vector<std::vector<std::byte>> encode_packets(std::span<const float> x,
                                                   const TrimConfig& config, int sender,
                                                   uint64_t stream_id);

// Decodes one (possibly trimmed) packet into out[offset, offset + count) of the sender's tensor.
// Untrimmed: the exact wire values. Errors: bad or truncated header, packet outside `out`.
Result<PacketHeader> decode_packet(std::span<const std::byte> packet, std::span<float> out,
                                   DecodeStats* stats, HeadScratch& scratch);

// Decodes a sender's packets (any order, any prefixes) into `out`, zero-filled first so lost
// packets read as zeros. Each header must match config's encoding, head bits and wire type.
// Returns the number of coordinates decoded.
Result<size_t> decode_packets(const std::vector<std::span<const std::byte>>& received,
                              const TrimConfig& config, std::span<float> out,
                              DecodeStats* stats = nullptr);

// Bytes to keep of this packet for `bits` head bits per coordinate (read from its header).
Result<size_t> packet_trim_size(std::span<const std::byte> packet, int bits);

// The paper's emulation: each packet is trimmed to `bits` head bits with probability `fraction`,
// independently, decided by CounterRng(seed, Purpose::kTrim, rank, iteration).uniform(index).
// Returns the received prefixes; *trimmed counts the trimmed packets.
std::vector<std::span<const std::byte>> emulate_bernoulli_trim(
    const std::vector<std::vector<std::byte>>& packets, double fraction, int bits, uint64_t seed,
    uint64_t rank, uint64_t iteration, size_t* trimmed = nullptr);

}  // namespace commlab::trim
