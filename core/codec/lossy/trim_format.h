#pragma once
// The trimmable packet: a header, then the head bit-planes (most significant first), then the exact
// tails, so that every byte prefix that keeps the header decodes, at the best precision that fits.
// Byte layout and formulas: docs/formats.md ("Trimmable packets").
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "codec/codec.h"
#include "io/status.h"

namespace commlab::trim {

enum class TrimEncoding : uint8_t { kSq = 0, kDrive = 1, kEden = 2 };

std::string_view encoding_name(TrimEncoding encoding);
// "sq", "drive", "eden"; throws std::invalid_argument otherwise.
TrimEncoding parse_encoding(std::string_view name);

struct TrimConfig {
  TrimEncoding encoding = TrimEncoding::kEden;
  int head_bits = 1;             // SQ 1..8, DRIVE 1, EDEN 1..4
  size_t payload_bytes = 4096;   // whole packet (header + heads + tails) fits in this
  DType wire = DType::kFp32;     // the exact tails: fp32, bf16 or fp16
  uint64_t seed = 0;             // shared by both ends: RHT signs and stochastic rounding
  bool unbiased = true;          // DRIVE/EDEN scale: unbiased, else min-MSE
  size_t coords_per_packet = 0;  // 0: as many as fit in payload_bytes; else exactly this many
};
// Invariant checked by validate(): every packet of `config` fits in payload_bytes, so transports
// may lay packets out in payload_bytes slots.

// The most head bits `encoding` encodes (SQ 8, EDEN 4, DRIVE 1).
int max_head_bits(TrimEncoding encoding);
// The first reason `config` is unusable, naming the TrimConfig field at fault ("head_bits",
// "coords_per_packet", "payload_bytes"; each door names it its own way: Python's TrimConfig
// argument, quantize's flag, the scenario's path); nothing when every packet fits.
std::optional<Status> config_problem(const TrimConfig& config);
// Throws the StatusError of config_problem(config), if any.
void validate(const TrimConfig& config);

inline constexpr uint8_t kTrimMagic = 0x54;  // 'T'
inline constexpr size_t kFixedHeaderBytes = 32;
inline constexpr size_t kMaxScales = 4;
inline constexpr uint32_t kMaxPacketCoords = 1u << 20;  // one WHT block at most

struct PacketHeader {
  TrimEncoding encoding = TrimEncoding::kEden;
  int head_bits = 1;
  DType wire = DType::kFp32;
  bool unbiased = true;
  uint16_t sender = 0;
  uint32_t stream = 0;  // low 32 bits of the stream id
  uint32_t count = 0;   // coordinates carried
  uint64_t offset = 0;  // index of the first coordinate in the sender's tensor
  uint64_t seed = 0;    // per-packet key: RHT signs and stochastic rounding derive from it
  std::array<float, kMaxScales> scales{};  // SQ: min, step; DRIVE: S; EDEN: S_1..S_b
};

// Scale fields of an encoding (SQ 2, DRIVE 1, EDEN head_bits).
size_t scale_count(TrimEncoding encoding, int head_bits);
size_t header_bytes(TrimEncoding encoding, int head_bits);
// Coordinates that carry a head: the RHT block (next power of two) for DRIVE/EDEN, count for SQ.
size_t head_coords(TrimEncoding encoding, size_t count);
// Bytes of one bit-plane (each plane starts on a byte boundary).
size_t plane_bytes(TrimEncoding encoding, size_t count);

// Layout of one packet of `count` coordinates.
struct PacketLayout {
  size_t header = 0;       // header bytes
  size_t plane = 0;        // bytes per bit-plane
  size_t planes = 0;       // head_bits
  size_t head_coords = 0;  // coordinates with a head (padded RHT block for DRIVE/EDEN)
  size_t tail = 0;         // bytes per exact tail (wire dtype size)
  size_t count = 0;
  size_t tails_begin() const { return header + planes * plane; }
  size_t total() const { return tails_begin() + count * tail; }
  // Bytes to keep so every coordinate keeps `bits` head planes (0: header only).
  size_t trim_size(int bits) const;
};

PacketLayout packet_layout(TrimEncoding encoding, int head_bits, DType wire, size_t count);
inline PacketLayout packet_layout(const PacketHeader& h) {
  return packet_layout(h.encoding, h.head_bits, h.wire, h.count);
}
// Sets coords_per_packet = n and payload_bytes to the size of such a packet (n > 0).
void set_coords_per_packet(TrimConfig& config, size_t n);
// Coordinates per packet under `config` (coords_per_packet, or the most that fit payload_bytes).
size_t coords_per_packet(const TrimConfig& config);
// Bytes to keep of a packet of `count` coordinates for `bits` bits per coordinate of head.
size_t trim_size_for_bits(const TrimConfig& config, size_t count, int bits);

// Writes the header (with its check field) into out[0, header_bytes).
void write_header(const PacketHeader& header, std::span<std::byte> out);
// Parses and checks magic, fields, check value and length; never reads past `packet`.
Result<PacketHeader> parse_header(std::span<const std::byte> packet);

}  // namespace commlab::trim
