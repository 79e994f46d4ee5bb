#pragma once
// The frame shared by every codec (docs/formats.md, "Frame"): a 24-byte header with magic, codec
// id, version, dtype, flags, original size, payload size and a CRC-32C over header and payload.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "codec/codec.h"
#include "io/status.h"

namespace commlab::frame {

inline constexpr size_t kHeaderSize = 24;
inline constexpr uint8_t kVersion = 1;
inline constexpr uint8_t kFlagStored = 1;

enum class CodecId : uint8_t {
  kRaw = 0,
  kLz4 = 1,
  kZstd = 2,
  kByteGroupZstd = 3,
  kNetzipPaper = 4,
  kNetzipLossless = 5,
  kXorPrev = 6,
  kCastBf16 = 7,
  kCastFp16 = 8,
  kCommLab = 9,
  kTopK = 10,
  kPowerSgd = 11,
  kNetzipLosslessBits = 12,
};

struct Header {
  CodecId codec;
  DType dtype;
  uint8_t flags;
  uint64_t original_size;
  uint32_t payload_size;
};

// CRC-32C of data continued from crc. threads > 1 splits a large buffer (>= 1 MiB) into that many
// parts checked at once by OpenMP threads (the same checksum).
uint32_t crc32c(uint32_t crc, const std::byte* data, size_t size, int threads = 1);

// Writes the header in front of a payload already placed at out[kHeaderSize...] and computes the
// checksum (on up to `threads` threads). `out` must hold kHeaderSize + payload_size bytes.
size_t finish(std::span<std::byte> out, const Header& header, int threads = 1);

// The largest original size a frame may claim: encode() refuses an input of 4 GiB or more (the
// payload size is 32 bits), so a larger claim is a forged or corrupt header.
inline constexpr uint64_t kMaxOriginalSize = UINT32_MAX;

// The most bytes `payload` can decode to under the header's codec: what its format can physically
// encode (lz4 at most 255 bytes per payload byte, zstd its frame's content size, top-k 100 values
// per kept value, PowerSGD rows x cols, ...), never above kMaxOriginalSize. An error when the
// payload cannot be a frame of the codec at all (a zstd payload that is no zstd frame).
Result<uint64_t> max_original_size(const Header& header, std::span<const std::byte> payload);

// Parses and verifies a frame (magic, version, codec id, dtype, flags, sizes, checksum) and
// refuses an original size over max_original_size, so no caller sizes a buffer by a forged header.
Result<Header> parse(std::span<const std::byte> in, CodecId expected, int threads = 1);
// parse() for a frame of whichever codec its header names.
Result<Header> parse_any(std::span<const std::byte> in, int threads = 1);

inline std::span<const std::byte> payload(std::span<const std::byte> in, const Header& h) {
  return in.subspan(kHeaderSize, h.payload_size);
}

// Encodes a stored frame (the input verbatim); out must hold kHeaderSize + in.size().
Result<size_t> store(std::span<const std::byte> in, DType dtype, CodecId codec,
                     std::span<std::byte> out);

// Little-endian helpers (the bytes are the format; no alignment assumed).
inline void put16(std::byte* p, uint16_t v) {
  std::memcpy(p, &v, 2);
}
inline void put32(std::byte* p, uint32_t v) {
  std::memcpy(p, &v, 4);
}
inline void put64(std::byte* p, uint64_t v) {
  std::memcpy(p, &v, 8);
}
inline uint16_t get16(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t get32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t get64(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
// One word of a value stream (uint16_t or uint32_t), from any alignment.
template <class W>
inline W load(const std::byte* p) {
  W w;
  std::memcpy(&w, p, sizeof(W));
  return w;
}

}  // namespace commlab::frame
