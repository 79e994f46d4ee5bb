#include "codec/lossy/trim_format.h"

#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "numeric/rng.h"
#include "numeric/wht.h"

namespace commlab::trim {
namespace {

static_assert(std::endian::native == std::endian::little, "the packet format is little-endian");

size_t wire_size(DType wire) {
  switch (wire) {
    case DType::kFp32: return 4;
    case DType::kBf16: return 2;
    case DType::kFp16: return 2;
  }
  return 0;
}

template <typename T>
void put(std::span<std::byte> out, size_t at, T v) {
  std::memcpy(out.data() + at, &v, sizeof(T));
}
template <typename T>
T get(std::span<const std::byte> in, size_t at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  return v;
}

// 16-bit check over the header with the check field (bytes 6-7) read as zero.
uint16_t header_check(std::span<const std::byte> h) {
  uint64_t acc = 0x7472696dull;  // "trim"
  for (size_t i = 0; i < h.size(); i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, h.data() + i, std::min<size_t>(8, h.size() - i));
    if (i == 0) word &= ~(uint64_t{0xffff} << 48);
    acc = hash_combine(acc, word);
  }
  return static_cast<uint16_t>(acc ^ (acc >> 16) ^ (acc >> 32) ^ (acc >> 48));
}

}  // namespace

int max_head_bits(TrimEncoding encoding) {
  switch (encoding) {
    case TrimEncoding::kSq: return 8;
    case TrimEncoding::kDrive: return 1;
    case TrimEncoding::kEden: return 4;
  }
  return 0;
}

std::string_view encoding_name(TrimEncoding encoding) {
  switch (encoding) {
    case TrimEncoding::kSq: return "sq";
    case TrimEncoding::kDrive: return "drive";
    case TrimEncoding::kEden: return "eden";
  }
  return "?";
}

TrimEncoding parse_encoding(std::string_view name) {
  if (name == "sq") return TrimEncoding::kSq;
  if (name == "drive") return TrimEncoding::kDrive;
  if (name == "eden") return TrimEncoding::kEden;
  throw bad_input("unknown trim encoding '" + std::string(name) + "' (expected sq, drive or eden)");
}

std::optional<Status> config_problem(const TrimConfig& c) {
  const int max_bits = max_head_bits(c.encoding);
  if (max_bits == 0) throw std::logic_error("trim config: unknown encoding");
  if (wire_size(c.wire) == 0) throw std::logic_error("trim config: unknown wire dtype");
  if (c.head_bits < 1 || c.head_bits > max_bits)
    return invalid_input("head_bits", "encoding " + std::string(encoding_name(c.encoding)) +
                                          " supports 1 to " + std::to_string(max_bits) +
                                          " bits, got " + std::to_string(c.head_bits));
  if (c.coords_per_packet > kMaxPacketCoords)
    return invalid_input("coords_per_packet", "at most 2^20 coordinates per packet, got " +
                                                  std::to_string(c.coords_per_packet));
  const size_t n = c.coords_per_packet > 0 ? c.coords_per_packet : 1;
  const size_t need = packet_layout(c.encoding, c.head_bits, c.wire, n).total();
  if (need > c.payload_bytes)
    return invalid_input("payload_bytes", "a packet of " + std::to_string(n) +
                                              " coordinates needs " + std::to_string(need) +
                                              " bytes, more than the payload of " +
                                              std::to_string(c.payload_bytes));
  return std::nullopt;
}

void validate(const TrimConfig& c) {
  if (std::optional<Status> bad = config_problem(c)) throw StatusError(*std::move(bad));
}

void set_coords_per_packet(TrimConfig& c, size_t n) {
  c.coords_per_packet = n;
  c.payload_bytes = packet_layout(c.encoding, c.head_bits, c.wire, n).total();
}

size_t scale_count(TrimEncoding encoding, int head_bits) {
  switch (encoding) {
    case TrimEncoding::kSq: return 2;
    case TrimEncoding::kDrive: return 1;
    case TrimEncoding::kEden: return static_cast<size_t>(head_bits);
  }
  return 0;
}

size_t header_bytes(TrimEncoding encoding, int head_bits) {
  return kFixedHeaderBytes + 4 * scale_count(encoding, head_bits);
}

size_t head_coords(TrimEncoding encoding, size_t count) {
  return encoding == TrimEncoding::kSq ? count : next_pow2(count);
}

size_t plane_bytes(TrimEncoding encoding, size_t count) {
  return (head_coords(encoding, count) + 7) / 8;
}

size_t PacketLayout::trim_size(int bits) const {
  size_t b = bits < 0 ? 0 : static_cast<size_t>(bits);
  if (b >= planes) return b > planes ? total() : tails_begin();
  return header + b * plane;
}

PacketLayout packet_layout(TrimEncoding encoding, int head_bits, DType wire, size_t count) {
  PacketLayout l;
  l.header = header_bytes(encoding, head_bits);
  l.plane = plane_bytes(encoding, count);
  l.planes = static_cast<size_t>(head_bits);
  l.head_coords = head_coords(encoding, count);
  l.tail = wire_size(wire);
  l.count = count;
  return l;
}

size_t coords_per_packet(const TrimConfig& c) {
  if (c.coords_per_packet > 0) return c.coords_per_packet;
  // total() is monotone in count: binary search the largest count that fits.
  size_t lo = 1, hi = kMaxPacketCoords;
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (packet_layout(c.encoding, c.head_bits, c.wire, mid).total() <= c.payload_bytes) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

size_t trim_size_for_bits(const TrimConfig& c, size_t count, int bits) {
  return packet_layout(c.encoding, c.head_bits, c.wire, count).trim_size(bits);
}

void write_header(const PacketHeader& h, std::span<std::byte> out) {
  const size_t n = header_bytes(h.encoding, h.head_bits);
  std::memset(out.data(), 0, n);
  put<uint8_t>(out, 0, kTrimMagic);
  put<uint8_t>(out, 1, static_cast<uint8_t>(h.encoding));
  put<uint8_t>(out, 2, static_cast<uint8_t>(h.head_bits));
  put<uint8_t>(out, 3,
               static_cast<uint8_t>(static_cast<uint8_t>(h.wire) | (h.unbiased ? 0x10 : 0)));
  put<uint16_t>(out, 4, h.sender);
  put<uint32_t>(out, 8, h.stream);
  put<uint32_t>(out, 12, h.count);
  put<uint64_t>(out, 16, h.offset);
  put<uint64_t>(out, 24, h.seed);
  for (size_t i = 0; i < scale_count(h.encoding, h.head_bits); ++i) {
    put<float>(out, kFixedHeaderBytes + 4 * i, h.scales[i]);
  }
  put<uint16_t>(out, 6, header_check(out.first(n)));
}

Result<PacketHeader> parse_header(std::span<const std::byte> p) {
  if (p.size() < kFixedHeaderBytes) {
    return make_error("trim packet: " + std::to_string(p.size()) +
                      " bytes, shorter than the fixed header");
  }
  if (get<uint8_t>(p, 0) != kTrimMagic) return make_error("trim packet: bad magic");
  PacketHeader h;
  uint8_t enc = get<uint8_t>(p, 1);
  if (enc > 2) return make_error("trim packet: unknown encoding " + std::to_string(enc));
  h.encoding = static_cast<TrimEncoding>(enc);
  h.head_bits = get<uint8_t>(p, 2);
  if (h.head_bits < 1 || h.head_bits > max_head_bits(h.encoding)) {
    return make_error("trim packet: invalid head bits " + std::to_string(h.head_bits));
  }
  uint8_t flags = get<uint8_t>(p, 3);
  uint8_t wire = flags & 0x0f;
  if (wire > 2 || (flags & 0xe0) != 0) return make_error("trim packet: invalid flags");
  h.wire = static_cast<DType>(wire);
  h.unbiased = (flags & 0x10) != 0;
  h.sender = get<uint16_t>(p, 4);
  h.stream = get<uint32_t>(p, 8);
  h.count = get<uint32_t>(p, 12);
  h.offset = get<uint64_t>(p, 16);
  h.seed = get<uint64_t>(p, 24);
  if (h.count == 0 || h.count > kMaxPacketCoords) {
    return make_error("trim packet: invalid coordinate count " + std::to_string(h.count));
  }
  const size_t n = header_bytes(h.encoding, h.head_bits);
  if (p.size() < n) return make_error("trim packet: truncated header");
  if (get<uint16_t>(p, 6) != header_check(p.first(n))) {
    return make_error("trim packet: header check mismatch (corrupt header)");
  }
  for (size_t i = 0; i < scale_count(h.encoding, h.head_bits); ++i) {
    h.scales[i] = get<float>(p, kFixedHeaderBytes + 4 * i);
  }
  if (p.size() > packet_layout(h).total()) return make_error("trim packet: longer than its layout");
  return h;
}

}  // namespace commlab::trim
