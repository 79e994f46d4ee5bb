#include "codec/lossy/trim_packet.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "numeric/float16.h"
#include "numeric/rng.h"

namespace commlab::trim {
namespace {

// The value the wire carries for v (what an untrimmed packet decodes to).
float wire_round(float v, DType wire) {
  switch (wire) {
    case DType::kBf16: return bf16_to_float(float_to_bf16(v));
    case DType::kFp16: return fp16_to_float(float_to_fp16(v));
    case DType::kFp32: return v;
  }
  return v;
}

void write_tails(std::span<const float> x, DType wire, std::byte* out) {
  if (wire == DType::kFp32) {
    std::memcpy(out, x.data(), x.size() * 4);
    return;
  }
  for (size_t i = 0; i < x.size(); ++i) {
    uint16_t h = wire == DType::kBf16 ? float_to_bf16(x[i]) : float_to_fp16(x[i]);
    std::memcpy(out + 2 * i, &h, 2);
  }
}

void read_tails(const std::byte* in, size_t n, DType wire, float* out) {
  if (wire == DType::kFp32) {
    std::memcpy(out, in, n * 4);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, in + 2 * i, 2);
    out[i] = wire == DType::kBf16 ? bf16_to_float(h) : fp16_to_float(h);
  }
}

}  // namespace

double DecodeStats::bits_per_coordinate() const {
  return coordinates ? 8.0 * static_cast<double>(received_bytes) / coordinates : 0.0;
}

double DecodeStats::effective_bits_per_coordinate() const {
  return coordinates ? precision_bits / static_cast<double>(coordinates) : 0.0;
}

void DecodeStats::merge(const DecodeStats& o) {
  packets += o.packets;
  packets_trimmed += o.packets_trimmed;
  coordinates += o.coordinates;
  exact_coordinates += o.exact_coordinates;
  received_bytes += o.received_bytes;
  full_bytes += o.full_bytes;
  precision_bits += o.precision_bits;
}

uint64_t packet_seed(uint64_t seed, int sender, uint64_t stream_id, uint64_t index) {
  return hash_combine(hash_combine(hash_combine(seed, stream_id), static_cast<uint64_t>(sender)),
                      index);
}

size_t encode_packet(std::span<const float> coords, uint64_t offset, const TrimConfig& c,
                     int sender, uint64_t stream_id, uint64_t index, std::span<std::byte> out,
                     HeadScratch& scratch) {
  PacketHeader h;
  h.encoding = c.encoding;
  h.head_bits = c.head_bits;
  h.wire = c.wire;
  h.unbiased = c.unbiased;
  h.sender = static_cast<uint16_t>(sender);
  h.stream = static_cast<uint32_t>(stream_id);
  h.count = static_cast<uint32_t>(coords.size());
  h.offset = offset;
  h.seed = packet_seed(c.seed, sender, stream_id, index);
  const PacketLayout l = packet_layout(h);
  std::span<std::byte> planes = out.subspan(l.header, l.planes * l.plane);
  if (c.wire == DType::kFp32) {
    encode_head(coords, l, h, planes, scratch);
  } else {
    // The heads describe the values the tails carry, so a partly trimmed packet mixes consistent
    // estimates of one vector.
    std::vector<float> rounded(coords.size());
    for (size_t i = 0; i < coords.size(); ++i) rounded[i] = wire_round(coords[i], c.wire);
    encode_head(rounded, l, h, planes, scratch);
  }
  write_header(h, out);
  write_tails(coords, c.wire, out.data() + l.tails_begin());
  return l.total();
}

std::vector<std::vector<std::byte>> encode_packets(std::span<const float> x, const TrimConfig& c,
                                                   int sender, uint64_t stream_id) {
  validate(c);
  if (sender < 0 || sender > 0xffff) {
    throw bad_input("trim: sender must be 0..65535, got " + std::to_string(sender));
  }
  const size_t per = coords_per_packet(c);
  std::vector<std::vector<std::byte>> packets;
  packets.reserve((x.size() + per - 1) / per);
  HeadScratch scratch;
  for (size_t off = 0, index = 0; off < x.size(); off += per, ++index) {
    const size_t n = std::min(per, x.size() - off);
    std::vector<std::byte> p(packet_layout(c.encoding, c.head_bits, c.wire, n).total());
    encode_packet(x.subspan(off, n), off, c, sender, stream_id, index, p, scratch);
    packets.push_back(std::move(p));
  }
  return packets;
}

Result<PacketHeader> decode_packet(std::span<const std::byte> packet, std::span<float> out,
                                   DecodeStats* stats, HeadScratch& scratch) {
  Result<PacketHeader> parsed = parse_header(packet);
  if (!parsed) return parsed;
  const PacketHeader& h = *parsed;
  if (h.offset > out.size() || h.count > out.size() - h.offset) {
    return make_error("trim packet: coordinates [" + std::to_string(h.offset) + ", " +
                      std::to_string(h.offset + h.count) + ") outside the tensor of " +
                      std::to_string(out.size()));
  }
  const PacketLayout l = packet_layout(h);
  std::span<float> dst = out.subspan(h.offset, h.count);
  const size_t got = packet.size();
  size_t exact = 0;
  if (got == l.total()) {
    read_tails(packet.data() + l.tails_begin(), h.count, h.wire, dst.data());
    exact = h.count;
  } else {
    const size_t head_end = std::min(got, l.tails_begin());
    decode_head(h, l, packet.subspan(l.header, head_end - l.header), dst, scratch);
    // A partly received tail region: the coordinates whose tails arrived are exact.
    if (got > l.tails_begin()) {
      exact = std::min<size_t>(h.count, (got - l.tails_begin()) / l.tail);
      read_tails(packet.data() + l.tails_begin(), exact, h.wire, dst.data());
    }
  }
  if (stats) {
    stats->packets += 1;
    stats->packets_trimmed += got < l.total() ? 1 : 0;
    stats->coordinates += h.count;
    stats->exact_coordinates += exact;
    stats->received_bytes += got;
    stats->full_bytes += l.total();
    const double head_bits = 8.0 * static_cast<double>(std::min(got, l.tails_begin()) - l.header);
    const double per_head = head_bits / static_cast<double>(l.head_coords);
    stats->precision_bits +=
        static_cast<double>(exact) * 8.0 * l.tail + static_cast<double>(h.count - exact) * per_head;
  }
  return parsed;
}

Result<size_t> decode_packets(const std::vector<std::span<const std::byte>>& received,
                              const TrimConfig& c, std::span<float> out, DecodeStats* stats) {
  std::fill(out.begin(), out.end(), 0.0f);
  HeadScratch scratch;
  size_t decoded = 0;
  for (size_t i = 0; i < received.size(); ++i) {
    Result<PacketHeader> parsed = parse_header(received[i]);
    if (!parsed) return make_error("packet " + std::to_string(i) + ": " + parsed.error());
    const PacketHeader& h = *parsed;
    if (h.encoding != c.encoding || h.head_bits != c.head_bits || h.wire != c.wire) {
      return make_error("packet " + std::to_string(i) +
                        ": encoding, head bits or wire type differ from the configuration");
    }
    Result<PacketHeader> r = decode_packet(received[i], out, stats, scratch);
    if (!r) return make_error("packet " + std::to_string(i) + ": " + r.error());
    decoded += h.count;
  }
  return decoded;
}

Result<size_t> packet_trim_size(std::span<const std::byte> packet, int bits) {
  Result<PacketHeader> h = parse_header(packet);
  if (!h) return make_error(h.error());
  return packet_layout(*h).trim_size(bits);
}

std::vector<std::span<const std::byte>> emulate_bernoulli_trim(
    const std::vector<std::vector<std::byte>>& packets, double fraction, int bits, uint64_t seed,
    uint64_t rank, uint64_t iteration, size_t* trimmed) {
  const CounterRng rng(seed, Purpose::kTrim, rank, iteration);
  std::vector<std::span<const std::byte>> out;
  out.reserve(packets.size());
  size_t n = 0;
  for (size_t i = 0; i < packets.size(); ++i) {
    std::span<const std::byte> p(packets[i]);
    if (rng.uniform(i) < fraction) {
      Result<size_t> keep = packet_trim_size(p, bits);
      if (keep && *keep < p.size()) {
        p = p.first(*keep);
        ++n;
      }
    }
    out.push_back(p);
  }
  if (trimmed) *trimmed = n;
  return out;
}

}  // namespace commlab::trim
