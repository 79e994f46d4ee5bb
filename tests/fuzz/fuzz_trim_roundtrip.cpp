// Round trip of trimmable packets (codec/lossy/trim_packet.h; docs/formats.md "Trimmable
// packets"): the fuzzer's bytes are BF16 values, cut into packets by encode_packets under a
// fuzzer-chosen configuration, each packet trimmed at a fuzzer-chosen byte and decoded alone.
// Input: [encoding][head bits][wire][payload][cut bytes...: one per packet][values...].
// The documented invariants checked:
//   - a packet shorter than its header is refused; any longer prefix decodes, into exactly the
//     packet's coordinates [offset, offset + count) (nothing outside them is written);
//   - an untrimmed packet decodes bit-exactly (BF16 values are exact on an FP32 or BF16 wire);
//   - in a prefix of L bytes, the first floor((L - tails_begin) / wire size) coordinates take
//     their exact tails, bit for bit; every other coordinate decodes to a finite value;
//   - decode_packets of the whole, untrimmed packets gives back the whole tensor bit-exactly.
// Values are finite and at most 2^50 in magnitude (others are replaced by 0): the head encodings
// scale by the values' range or sums of squares, which a NaN, an infinity or a value near FP32's
// largest (squared: infinite) has none of.
#include <cmath>
#include <cstring>
#include <vector>

#include "codec/lossy/trim_packet.h"
#include "numeric/float16.h"

using namespace commlab;
using namespace commlab::trim;

namespace {

constexpr size_t kMaxValues = 4096;  // a few packets; DRIVE/EDEN transforms cost d log d each
// Magnitudes whose squares, summed over a packet, stay finite in FP32 (DRIVE and EDEN scale by
// sums of squares: values near 2^125 overflow them and the heads decode to NaN).
constexpr float kMaxMagnitude = 0x1p50f;

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  TrimConfig config;
  config.encoding = static_cast<TrimEncoding>(data[0] % 3);
  config.head_bits = 1 + data[1] % max_head_bits(config.encoding);
  config.wire = (data[2] & 1) ? DType::kBf16 : DType::kFp32;
  config.unbiased = data[2] & 2;
  config.seed = data[2] >> 2;
  config.payload_bytes = 256 + 64 * size_t(data[3] % 61);  // 256 .. 4096
  const uint8_t* cuts = data + 4;
  const size_t n_cuts = std::min<size_t>(16, size - 4);
  const uint8_t* raw = cuts + n_cuts;
  const size_t n = std::min((size - 4 - n_cuts) / 2, kMaxValues);
  if (n == 0) return 0;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, raw + 2 * i, 2);
    x[i] = bf16_to_float(h);
    if (!std::isfinite(x[i]) || std::fabs(x[i]) > kMaxMagnitude) x[i] = 0.0f;
  }
  std::vector<std::vector<std::byte>> packets;
  try {
    packets = encode_packets(x, config, /*sender=*/3, /*stream_id=*/7);
  } catch (const std::invalid_argument&) {
    return 0;  // a configuration whose header and one coordinate do not fit the payload
  }
  HeadScratch scratch;
  std::vector<std::span<const std::byte>> whole;
  for (size_t p = 0; p < packets.size(); ++p) {
    const std::vector<std::byte>& packet = packets[p];
    whole.emplace_back(packet);
    const size_t header = packet_trim_size(packet, 0).value();
    const size_t cut = header + (cuts[p % n_cuts] * (packet.size() - header + 1)) / 256;
    if (cut > packet.size()) __builtin_trap();
    // Shorter than the header: refused.
    if (header > 0 && decode_packet(std::span(packet).first(header - 1), x, nullptr, scratch).ok())
      __builtin_trap();
    for (const size_t length : {cut, packet.size()}) {
      std::vector<float> out(n, -7.0f);  // a sentinel: coordinates outside the packet stay it
      const Result<PacketHeader> h =
          decode_packet(std::span(packet).first(length), out, nullptr, scratch);
      if (!h.ok()) __builtin_trap();
      const PacketLayout layout = packet_layout(*h);
      const size_t begin = h->offset, end = begin + h->count;
      if (end > n) __builtin_trap();
      const size_t exact = length <= layout.tails_begin()
                               ? 0
                               : std::min<size_t>(h->count, (length - layout.tails_begin()) /
                                                                dtype_size(config.wire));
      for (size_t i = 0; i < n; ++i) {
        if (i < begin || i >= end) {
          if (!same_bits(out[i], -7.0f)) __builtin_trap();  // written outside the packet
        } else if (i - begin < exact || length == packet.size()) {
          if (!same_bits(out[i], x[i])) __builtin_trap();  // an exact tail changed
        } else if (!std::isfinite(out[i])) {
          __builtin_trap();
        }
      }
    }
  }
  std::vector<float> all(n);
  const Result<size_t> d = decode_packets(whole, config, all);
  if (!d.ok() || *d != n || std::memcmp(all.data(), x.data(), n * sizeof(float)) != 0)
    __builtin_trap();
  return 0;
}
