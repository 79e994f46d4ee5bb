#pragma once
// Shared by the fuzz targets: the input layout helpers and the fix-ups that let mutated inputs get
// past checksums to the code behind them.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/codec.h"
#include "codec/frame.h"

namespace commlab::fuzz {

// Output capacity of a decode: the frame's own size, capped so a lying header cannot make the
// harness (rather than the decoder) allocate without bound.
inline constexpr size_t kMaxDecodeBytes = 4u << 20;

// Rewrites the CRC-32C of a frame in place (same formula as frame::finish), so a mutated payload
// reaches the codec's decoder instead of stopping at the checksum.
inline void fix_frame_crc(std::span<std::byte> f) {
  if (f.size() < frame::kHeaderSize) return;
  const uint32_t payload = frame::get32(f.data() + 16);
  if (payload > f.size() - frame::kHeaderSize) return;
  uint32_t crc = frame::crc32c(0, f.data(), 20);
  crc = frame::crc32c(crc, f.data() + frame::kHeaderSize, payload);
  frame::put32(f.data() + 20, crc);
}

}  // namespace commlab::fuzz
