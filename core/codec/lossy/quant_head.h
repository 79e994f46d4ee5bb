#pragma once
// Head encodings of the trimmable packet: stochastic quantization (SQ), DRIVE and EDEN. A head is
// `head_bits` bit-planes of a per-coordinate cell index, most significant plane first; a decoder
// holding only the top k planes of a coordinate reconstructs the coarser cell it knows.
// Formulas: docs/formats.md ("Trimmable packets").
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/lossy/trim_format.h"

namespace commlab::trim {

// Reusable buffers so the hot path does not allocate per packet.
struct HeadScratch {
  std::vector<float> y;        // the rotated (padded) block or the decoded head
  std::vector<uint8_t> index;  // cell index per head coordinate
};

// Encodes the head of `x` (the packet's `count` coordinates as the tails carry them) into `planes`
// (layout.planes * layout.plane bytes, zeroed here) and writes the scale fields of `header`.
// Uses header.seed, header.encoding, header.head_bits, header.unbiased.
void encode_head(std::span<const float> x, const PacketLayout& layout, PacketHeader& header,
                 std::span<std::byte> planes, HeadScratch& scratch);

// Decodes from the received prefix of the planes region (any length up to the full planes):
// coordinates covered by k received planes get the level-k reconstruction. Writes `count` values.
void decode_head(const PacketHeader& header, const PacketLayout& layout,
                 std::span<const std::byte> planes, std::span<float> out, HeadScratch& scratch);

// The SQ head's exact expected squared error, E ||x^ - x||^2 over its stochastic rounding, when
// every packet of `packet_coords` consecutive coordinates of x arrives trimmed to `keep_bits` of
// its `head_bits` (the encoder's per-packet grid: lo = min, step = (max - min) / (2^b - 1), both
// rounded to float as the header carries them). A coordinate at t = (x - lo) / step rounds up to
// c = floor(t) + 1 with probability t - floor(t), else to floor(t); the decoder, holding the top k
// bits of c, returns the midpoint v(c) of the 2^(b-k) grid points they leave open, so
//   E (x^ - x)^2 = (t - floor t) (v(floor t + 1) - x)^2 + (1 - t + floor t) (v(floor t) - x)^2;
// with k = b, v(c) = lo + c step and this is (x - lo_i)(hi_i - x) (unbiased rounding's variance).
// Throws std::invalid_argument unless 1 <= keep_bits <= head_bits <= 8; packet_coords 0: one
// packet of all of x.
double sq_expected_error(std::span<const float> x, size_t packet_coords, int head_bits,
                         int keep_bits);

}  // namespace commlab::trim
