// commlab: lossless codec for BF16/FP16/FP32 training traffic (docs/formats.md, "CommLab entropy
// blocks"). Each nonzero element is split into its exponent byte and its sign/mantissa bytes, each
// stream with its own per-block Huffman table (or raw/constant mode). Exact zeros are removed and
// their positions coded as gaps, optionally relative to the zero mask one period P earlier: a
// layer's dead ReLU units zero the same column of every row of its weight gradient, so with P = row
// length the mask is almost free. 128 KiB blocks (commlab_block.cpp): one covers a 4 KiB packet,
// large buffers amortise the tables.
//
// Threads: the blocks are coded in chunks of kChunkBlocks, and the encoder's carried choices
// restart at every chunk (Coder::start), so chunks are independent and the bytes do not depend on
// how many threads coded them. Each OpenMP thread codes a contiguous range of chunks with its own
// Coder; the decoder first finds the chunks' starts from the block headers and stream sizes.
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <vector>

#include "codec/codec_factories.h"
#include "codec/commlab/commlab_block.h"
#include "codec/framed_codec.h"

namespace commlab {
namespace {

static_assert(std::endian::native == std::endian::little, "the frame format is little-endian");

using cblock::kBlockBytes;

// Payload byte 0. Version 2 added this byte and the bitmap zero-mask mode (period word bit 31);
// version 3 the exponent prediction distance (the fifth block header word, codec/commlab/exponent_delta.h).
constexpr uint8_t kFormatVersion = 3;
// 4 MiB of input per chunk: a chunk's first block finds its period and exponent code afresh
// (0.06% more bytes on 64 MiB of MLP gradients than carrying them through the whole buffer).
constexpr size_t kChunkBlocks = 32;
constexpr size_t kChunkBytes = kChunkBlocks * kBlockBytes;

size_t chunks_of(size_t bytes) {
  return (bytes + kChunkBytes - 1) / kChunkBytes;
}

class CommLabCodec final : public FramedCodec {
 public:
  explicit CommLabCodec(int threads)
      : FramedCodec("commlab", frame::CodecId::kCommLab, true, true), threads_(threads) {}

 protected:
  size_t payload_bound(size_t n) const override { return 1 + n + (n / kBlockBytes + 1) * 64; }

  int threads_for(size_t bytes) const override {
    int t = threads_ > 0 ? threads_ : (omp_in_parallel() ? 1 : omp_get_max_threads());
    return int(std::min<size_t>(size_t(std::max(t, 1)), std::max<size_t>(chunks_of(bytes), 1)));
  }

  Result<size_t> encode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    if (out.empty()) return make_error("commlab: does not fit");
    out[0] = std::byte{kFormatVersion};
    const int threads = threads_for(in.size());
    grow(threads);
    const size_t chunks = chunks_of(in.size());
    if (threads == 1) {
      Result<size_t> r = code_chunks<true>(*coders_[0], in, out.subspan(1), dtype, 0, chunks);
      return r.ok() ? Result<size_t>(1 + *r) : r;
    }
    // Thread 0 writes its chunks in place, the others into their own scratch, moved after by all.
    std::vector<Result<size_t>> part(size_t(threads), Result<size_t>(size_t(0)));
    std::vector<size_t> at(size_t(threads) + 1, 1);
    bool fits = true;
    int used = threads;  // OpenMP may give fewer
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const size_t c0 = chunks * size_t(t) / size_t(nt), c1 = chunks * size_t(t + 1) / size_t(nt);
      std::span<std::byte> dst = out.subspan(1);
      if (t > 0) {
        const size_t bytes = std::min(in.size(), c1 * kChunkBytes) - c0 * kChunkBytes;
        scratch_[size_t(t)].resize(payload_bound(bytes));
        dst = scratch_[size_t(t)];
      }
      part[size_t(t)] = code_chunks<true>(*coders_[size_t(t)], in, dst, dtype, c0, c1);
#pragma omp barrier
#pragma omp single
      {
        used = nt;
        for (int k = 0; k < nt; ++k) {
          fits = fits && part[size_t(k)].ok();
          at[size_t(k) + 1] = at[size_t(k)] + (fits ? *part[size_t(k)] : 0);
          fits = fits && at[size_t(k) + 1] <= out.size();
        }
      }
      // Every thread moves a share of each scratch part (one thread alone took ~2 ms at 64 MiB).
      for (int k = 1; fits && k < nt; ++k) {
        const size_t size = *part[size_t(k)];
        const size_t a = size * size_t(t) / size_t(nt), b = size * size_t(t + 1) / size_t(nt);
        if (b > a)
          std::memcpy(out.data() + at[size_t(k)] + a, scratch_[size_t(k)].data() + a, b - a);
      }
    }
    for (const Result<size_t>& r : part) {
      if (!r.ok()) return r;
    }
    if (!fits) return make_error("commlab: does not fit");
    return at[size_t(used)];
  }

  Result<size_t> decode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    if (in.empty() || uint8_t(in[0]) != kFormatVersion) {
      return make_error("commlab: unknown block format version");
    }
    const int threads = threads_for(out.size());
    grow(threads);
    const size_t chunks = chunks_of(out.size());
    if (chunks == 0) {
      if (in.size() != 1) return make_error("commlab: trailing bytes after the last block");
      return out.size();
    }
    std::vector<size_t> start(chunks + 1, 1);  // payload offset of every chunk
    if (threads > 1) {
      const size_t w = dtype_size(dtype);
      size_t pos = 1;
      for (size_t b = 0; b * kBlockBytes < out.size(); ++b) {
        if (b % kChunkBlocks == 0) start[b / kChunkBlocks] = pos;
        const size_t n = std::min(kBlockBytes, out.size() - b * kBlockBytes) / w;
        Result<size_t> r = cblock::block_size(in.subspan(pos), n, int(w) - 1);
        if (!r.ok()) return r;
        pos += *r;
      }
    }
    start[chunks] = in.size();
    std::vector<Result<size_t>> part(size_t(threads), Result<size_t>(size_t(0)));
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const size_t c0 = chunks * size_t(t) / size_t(nt), c1 = chunks * size_t(t + 1) / size_t(nt);
      const size_t p0 = start[c0];
      part[size_t(t)] = code_chunks<false>(*coders_[size_t(t)], in.subspan(p0, start[c1] - p0), out,
                                           dtype, c0, c1);
    }
    for (const Result<size_t>& r : part) {
      if (!r.ok()) return r;
    }
    return out.size();
  }

 private:
  void grow(int threads) {
    while (coders_.size() < size_t(threads)) coders_.push_back(std::make_unique<cblock::Coder>());
    if (scratch_.size() < size_t(threads)) scratch_.resize(size_t(threads));
  }

  // The blocks of chunks [c0, c1), each chunk from a fresh start. Encode: values src to dst,
  // returns the bytes written. Decode: src holds exactly those chunks' blocks, the values go to
  // dst; returns the bytes read.
  template <bool kEncode>
  static Result<size_t> code_chunks(cblock::Coder& coder, std::span<const std::byte> src,
                                    std::span<std::byte> dst, DType dtype, size_t c0, size_t c1) {
    const size_t values = kEncode ? src.size() : dst.size();
    const bool fp32 = dtype == DType::kFp32;
    size_t pos = 0;
    for (size_t at = c0 * kChunkBytes; at < std::min(values, c1 * kChunkBytes); at += kBlockBytes) {
      if (at % kChunkBytes == 0) coder.start();
      const size_t len = std::min(kBlockBytes, values - at);
      Result<size_t> r = size_t(0);
      if constexpr (kEncode) {
        auto block = src.subspan(at, len);
        r = fp32 ? coder.encode<uint32_t>(block, dst.subspan(pos))
                 : coder.encode<uint16_t>(block, dst.subspan(pos));
      } else {
        auto block = dst.subspan(at, len);
        r = fp32 ? coder.decode<uint32_t>(src.subspan(pos), block)
                 : coder.decode<uint16_t>(src.subspan(pos), block);
      }
      if (!r.ok()) return r;
      pos += *r;
    }
    if (!kEncode && pos != src.size()) {
      return make_error("commlab: trailing bytes after the last block");
    }
    return pos;
  }

  int threads_;                                         // 0: OpenMP's (1 inside a parallel region)
  std::vector<std::unique_ptr<cblock::Coder>> coders_;  // one per thread
  std::vector<std::vector<std::byte>> scratch_;         // encoder: output of threads 1...
};

}  // namespace

std::unique_ptr<Codec> make_commlab_codec(int threads) {
  return std::make_unique<CommLabCodec>(threads);
}

}  // namespace commlab
