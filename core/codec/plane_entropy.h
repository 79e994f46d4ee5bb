#pragma once
// Byte-plane entropy: the order-0 Shannon entropy (bits per byte, 0..8) of each byte position of
// the values in a wire dtype. Byte-grouping codecs (NetZIP, commlab) code each plane with its own
// table, so a plane's entropy is what such a coder can reach on it; the GUI's codec page shows it
// next to the measured ratio. For BF16 the high byte holds the sign and 7 exponent bits (few
// distinct values on gradients), the low byte the last exponent bit and the 7 mantissa bits
// (close to 8 bits: nearly random).
#include <span>
#include <vector>

#include "codec/codec.h"

namespace commlab {

// One entry per byte of the dtype, most significant byte first; empty input gives zeros.
std::vector<double> byte_plane_entropy(std::span<const float> values, DType dtype);

}  // namespace commlab
