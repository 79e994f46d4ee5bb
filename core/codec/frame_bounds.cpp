// How many bytes a frame's payload can decode to, per codec (frame.h, max_original_size): the
// bound every decoder and frame_original_size apply before anything is sized by the header's
// original size, so a short frame with a valid checksum cannot claim a terabyte.
#include <zstd.h>

#include <algorithm>
#include <string>

#include "codec/commlab/commlab_block.h"
#include "codec/frame.h"

namespace commlab::frame {
namespace {

// LZ4's format: a match length grows by 255 per extra length byte, so no block decodes to more
// than 255 bytes per input byte.
constexpr uint64_t kLz4MaxRatio = 255;
// A zstd block holds at most 128 KiB and takes at least 4 bytes (an RLE block: a 3-byte header
// and its byte), the bound for a frame that does not record its content size.
constexpr uint64_t kZstdBlockBytes = 128 * 1024, kZstdMinBlock = 4;
// NetZIP blocks (docs/formats.md): a 2-byte base, then per block of at most 2048 words a record
// of at least its 2-byte header.
constexpr uint64_t kNetzipBlockWords = 2048, kNetzipRecordMin = 2;
// top-k sends k = ceil(1% of n) values (the registry's fraction, docs/formats.md), so n <= 100 k.
constexpr uint64_t kTopKValuesPerKept = 100;

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

Result<uint64_t> zstd_bound(std::span<const std::byte> payload) {
  const unsigned long long size = ZSTD_getFrameContentSize(payload.data(), payload.size());
  if (size == ZSTD_CONTENTSIZE_ERROR) return make_error("zstd: the payload is not a zstd frame");
  if (size != ZSTD_CONTENTSIZE_UNKNOWN) return uint64_t(size);
  return saturating_mul(payload.size() / kZstdMinBlock + 1, kZstdBlockBytes);
}

// PowerSGD's payload: u32 rows, cols, rank, then (rows + cols) x rank floats; n <= rows x cols.
uint64_t powersgd_bound(std::span<const std::byte> payload, uint64_t width) {
  if (payload.size() < 12) return 0;
  const uint64_t rows = get32(payload.data()), cols = get32(payload.data() + 4),
                 rank = get32(payload.data() + 8);
  const unsigned __int128 floats = (unsigned __int128)(rows + cols) * rank;
  if (rank == 0 || 12 + 4 * floats != payload.size()) return 0;
  return saturating_mul(rows * cols, width);
}

uint64_t payload_bound(const Header& h, std::span<const std::byte> payload) {
  const uint64_t p = payload.size(), width = dtype_size(h.dtype);
  switch (h.codec) {
    case CodecId::kRaw: return p;  // raw frames are stored
    case CodecId::kLz4:
    case CodecId::kXorPrev: return saturating_mul(p, kLz4MaxRatio);
    case CodecId::kNetzipPaper:
    case CodecId::kNetzipLossless:
    case CodecId::kNetzipLosslessBits: {
      const uint64_t blocks = p < 2 ? 0 : (p - 2) / kNetzipRecordMin;
      return saturating_mul(saturating_mul(blocks, kNetzipBlockWords), width);
    }
    case CodecId::kCastBf16:
    case CodecId::kCastFp16: return saturating_mul(p / 2, 4);  // 2-byte values widened to FP32
    case CodecId::kCommLab: {
      const uint64_t blocks = p < 1 ? 0 : (p - 1) / cblock::kBlockHeader;
      return saturating_mul(blocks, cblock::kBlockBytes);
    }
    case CodecId::kTopK: {
      if (p < 4) return 0;
      const uint64_t k = get32(payload.data());
      return saturating_mul(saturating_mul(k + 1, kTopKValuesPerKept), width);
    }
    case CodecId::kPowerSgd: return powersgd_bound(payload, width);
    case CodecId::kZstd:
    case CodecId::kByteGroupZstd: break;  // zstd_bound
  }
  return 0;
}

}  // namespace

Result<uint64_t> max_original_size(const Header& h, std::span<const std::byte> payload) {
  uint64_t most = payload.size();
  if (!(h.flags & kFlagStored)) {
    if (h.codec == CodecId::kZstd || h.codec == CodecId::kByteGroupZstd) {
      Result<uint64_t> z = zstd_bound(payload);
      if (!z) return z;
      most = *z;
    } else {
      most = payload_bound(h, payload);
    }
  }
  return std::min(most, kMaxOriginalSize);
}

}  // namespace commlab::frame
