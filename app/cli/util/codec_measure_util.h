#pragma once
// What `commlab-cli codec` measures on one buffer of values (ratio, loss, single-core speed and
// the order-0 entropy bounds), and how measurements of several tensors add up to a total: bytes
// and seconds add, so a total ratio is total wire bytes / total input bytes and a total speed is
// total bytes / total seconds; error statistics merge (maxima of the maxima, summed counts).
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/error_stats.h"

namespace commlab::cli {

struct Measured {
  bool ok = false;
  std::string error;
  bool lossless = false;  // the codec says it is lossless; err.bit_exact says what happened
  uint64_t in_bytes = 0, out_bytes = 0;
  double encode_seconds = 0, decode_seconds = 0;  // best of the repetitions
  ErrorStats err;  // NaN and Inf count (ErrorStats::nonfinite_mismatches)

  double ratio() const;
  double encode_gbps() const;
  double decode_gbps() const;
  // Adds another tensor's measurement of the same codec (a failure on either is a failure).
  void add(const Measured& other);
};

// Best of three encode/decode pairs on fresh instances (stateful codecs see a first iteration).
Measured measure_codec(const std::string& name, std::span<const std::byte> in, DType dtype);

// One row of the --json "codecs" arrays.
nlohmann::json measured_json(const std::string& name, const Measured& m);

// Order-0 bounds of the input, in ratio units (bits / bits of the dtype): with one code table per
// byte plane, sum_p H(plane p) / (8 * width), what a byte-grouping entropy coder reaches at best
// without context; with one table over whole 16-bit values, H(value) / 16 (none for FP32).
struct EntropyBounds {
  std::vector<double> plane_bits;  // per byte plane, most significant first; empty: mixed widths
  double byte_plane_bound = 0;
  std::optional<double> value_bound;
  uint64_t bytes = 0;
};
EntropyBounds entropy_bounds(std::span<const std::byte> in, DType dtype);

// The bounds of tensors coded one after the other, each with its own tables: every figure is the
// byte-weighted mean of the tensors' figures (planes only when all have the same width, the value
// bound only when all have one).
EntropyBounds combined_bounds(const std::vector<EntropyBounds>& parts);

nlohmann::json entropy_json(const EntropyBounds& b);

}  // namespace commlab::cli
