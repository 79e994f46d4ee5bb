// Fuzzes the trimmable packet decoder (codec/lossy/trim_packet.h). Input: [mode][...].
// Mode bit 0 clear: the rest is a packet as received, decoded into a tensor whose size comes from
// the next 3 bytes. Mode bit 0 set: the next 40 bytes are header fields written with
// write_header (so the header check is valid and mutations reach the head/tail decoders), the
// rest is the body; the packet is then decoded alone, through decode_packets with a matching
// config, and trimmed by packet_trim_size.
#include <cstring>
#include <vector>

#include "codec/lossy/trim_packet.h"

using namespace commlab;
using namespace commlab::trim;

namespace {

struct Reader {
  const uint8_t* p;
  size_t n;
  template <typename T>
  T take() {
    T v{};
    const size_t k = std::min(sizeof(T), n);
    std::memcpy(&v, p, k);
    p += k;
    n -= k;
    return v;
  }
};

// Coordinates per fuzzed packet stay small so an execution stays fast (the format allows 2^20).
constexpr uint32_t kMaxFuzzCoords = 4096;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  Reader in{data, size};
  const uint8_t mode = in.take<uint8_t>();
  HeadScratch scratch;
  DecodeStats stats;
  if (!(mode & 1)) {
    const uint32_t tensor = in.take<uint32_t>() & 0xffffff;
    std::vector<float> out(tensor);
    std::span<const std::byte> packet(reinterpret_cast<const std::byte*>(in.p), in.n);
    (void)decode_packet(packet, out, &stats, scratch);
    (void)packet_trim_size(packet, mode >> 4);
    return 0;
  }
  PacketHeader h;
  const uint8_t enc = in.take<uint8_t>();
  h.encoding = static_cast<TrimEncoding>(enc % 3);
  // write_header is an encoder: it takes only head bits the encoding has (SQ 8, DRIVE 1, EDEN 4)
  // and its scale slots; out-of-range values are the raw mode's job.
  constexpr int kMaxBits[] = {8, 1, 4};
  h.head_bits = 1 + in.take<uint8_t>() % kMaxBits[enc % 3];
  const uint8_t flags = in.take<uint8_t>();
  h.wire = static_cast<DType>(flags % 3);
  h.unbiased = flags & 0x10;
  h.sender = in.take<uint16_t>();
  h.stream = in.take<uint32_t>();
  h.count = 1 + in.take<uint32_t>() % kMaxFuzzCoords;
  h.offset = in.take<uint16_t>();
  h.seed = in.take<uint64_t>();
  for (float& s : h.scales) s = in.take<float>();
  const size_t hb = header_bytes(h.encoding, h.head_bits);
  std::vector<std::byte> packet(hb + in.n);
  write_header(h, packet);
  if (in.n) std::memcpy(packet.data() + hb, in.p, in.n);

  std::vector<float> out(h.offset + h.count + (mode >> 4));
  (void)decode_packet(packet, out, &stats, scratch);
  TrimConfig config;
  config.encoding = h.encoding;
  config.head_bits = h.head_bits;
  config.wire = h.wire;
  std::vector<std::span<const std::byte>> received{packet};
  for (int bits = 0; bits <= h.head_bits; ++bits) {
    if (auto keep = packet_trim_size(packet, bits); keep && *keep <= packet.size())
      received.push_back(std::span<const std::byte>(packet).first(*keep));
  }
  (void)decode_packets(received, config, out, &stats);
  (void)stats.bits_per_coordinate();
  (void)stats.effective_bits_per_coordinate();
  return 0;
}
