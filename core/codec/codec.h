#pragma once
// The codec interface: every codec turns a buffer of BF16/FP16/FP32 values into one self-describing
// frame (docs/formats.md) and back. Buffers are caller-owned; bound() says how large the output of
// encode() may get. A corrupt or truncated frame is an error value, never a crash or an
// out-of-bounds read. Codecs are stateless except xor-prev, top-k and PowerSGD (one instance per
// stream; reset() forgets the state).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/status.h"

namespace commlab {

enum class DType : uint8_t { kBf16 = 0, kFp16 = 1, kFp32 = 2 };

size_t dtype_size(DType dtype);
std::string_view dtype_name(DType dtype);
// "bf16", "fp16", "fp32"; throws std::invalid_argument otherwise.
DType parse_dtype(std::string_view name);

class Codec {
 public:
  virtual ~Codec() = default;
  virtual std::string name() const = 0;
  virtual bool lossless() const = 0;
  // Largest frame encode() can produce for `input_bytes` of input.
  virtual size_t bound(size_t input_bytes) const = 0;
  // Encodes `in` (values of `dtype`) into `out`; returns the frame size.
  virtual Result<size_t> encode(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) = 0;
  // Decodes a frame into `out`; returns the decoded size (the original size).
  virtual Result<size_t> decode(std::span<const std::byte> in, std::span<std::byte> out) = 0;
  // Forgets per-stream state (previous tensor, residuals). No-op for stateless codecs.
  virtual void reset() {}
  // Bytes of state the codec keeps per stream and per end after encoding `input_bytes`.
  virtual size_t state_bytes(size_t /*input_bytes*/) const { return 0; }
};

// Creates a codec by name (see codec_names()); throws std::invalid_argument listing the names.
std::unique_ptr<Codec> make_codec(std::string_view name);
std::vector<std::string> codec_names();

// Reads the original (decoded) size from a frame header, or an error if the header is invalid.
Result<size_t> frame_original_size(std::span<const std::byte> frame);

}  // namespace commlab
