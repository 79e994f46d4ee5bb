#pragma once
// How far a decoded buffer is from the original: what a lossy codec (netzip-paper, casts, top-k,
// PowerSGD) costs, reported next to its ratio so the loss is never hidden.
#include <cstddef>
#include <span>

#include "codec/codec.h"

namespace commlab {

struct ErrorStats {
  size_t count = 0;
  size_t changed = 0;           // values whose bit pattern differs
  double changed_fraction = 0;  // changed / count
  // Values got infinitely wrong: one side NaN and the other not, or an infinity turned into
  // another value (or a finite value into an infinity); two NaNs are the same non-number. When
  // there is one, both maxima below are infinite: an error is never hidden by being non-finite.
  size_t nonfinite_mismatches = 0;
  double max_abs_error = 0;  // max |decoded - original| (infinite with nonfinite mismatches)
  double max_rel_error = 0;  // max |decoded - original| / |original| over nonzero originals
  bool bit_exact = true;     // the buffers are byte-for-byte equal
};

// Both buffers hold values of `dtype` (same size).
ErrorStats compare_values(std::span<const std::byte> original, std::span<const std::byte> decoded,
                          DType dtype);

// Element i of a buffer of `dtype` as a double.
double value_at(std::span<const std::byte> buffer, DType dtype, size_t i);

}  // namespace commlab
