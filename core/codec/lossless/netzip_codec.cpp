// NetZIP (MICRO 2025) in two forms, side by side (docs/formats.md, "NetZIP blocks"):
// - netzip-paper: exactly the published pipeline. The per-layer base D_min is subtracted in FP32
// and
//   the difference rounded back to BF16, which loses low bits: it is LOSSY, and the error it
//   introduces is what the CLI and bench report next to its ratio.
// - netzip-lossless: the int16 delta modulo 2^16, exactly invertible, with byte or bit grouping.
// Both: per 4 KiB block grouping, LZ4, raw block when LZ4 does not make it smaller.
#include <lz4.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "codec/codec_factories.h"
#include "codec/framed_codec.h"
#include "codec/commlab/grouping.h"
#include "numeric/float16.h"

namespace commlab {
namespace {

constexpr size_t kBlockWords = 2048;  // 4 KiB of 16-bit words: one NIC packet payload
constexpr uint16_t kCompressedFlag = 0x8000;

class NetzipCodec final : public FramedCodec {
 public:
  NetzipCodec(std::string name, frame::CodecId id, bool paper, bool bit_planes)
      : FramedCodec(std::move(name), id, !paper, !paper), paper_(paper), bit_planes_(bit_planes) {}

 protected:
  bool supports(DType d) const override { return paper_ ? d != DType::kFp16 : d != DType::kFp32; }
  size_t payload_bound(size_t n) const override {
    size_t words = n / 2;  // FP32 input becomes BF16 first, so this over-counts it: still a bound
    size_t blocks = (words + kBlockWords - 1) / kBlockWords;
    return 2 + blocks * (2 + 2 * kBlockWords);
  }

  Result<size_t> encode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    const size_t n = in.size() / dtype_size(dtype);
    words_.resize(n);
    if (dtype == DType::kFp32) {
      for (size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, in.data() + 4 * i, 4);
        words_[i] = float_to_bf16(f);
      }
    } else if (n) {
      std::memcpy(words_.data(), in.data(), 2 * n);
    }
    uint16_t base = paper_ ? subtract_float_min() : subtract_int_min();
    return write_blocks(base, out);
  }

  Result<size_t> decode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    const size_t n = out.size() / dtype_size(dtype);
    if (in.size() < 2) return make_error("netzip: truncated base");
    uint16_t base = frame::get16(in.data());
    words_.resize(n);
    size_t pos = 2;
    for (size_t start = 0; start < n; start += kBlockWords) {
      const size_t nb = std::min(kBlockWords, n - start);
      if (in.size() - pos < 2) return make_error("netzip: truncated block header");
      uint16_t hdr = frame::get16(in.data() + pos);
      pos += 2;
      size_t len = hdr & 0x7fff;
      if (in.size() - pos < len) return make_error("netzip: truncated block");
      const std::byte* body = in.data() + pos;
      pos += len;
      if (!(hdr & kCompressedFlag)) {
        if (len != 2 * nb) return make_error("netzip: bad raw block length");
        std::memcpy(words_.data() + start, body, len);
        continue;
      }
      const size_t grouped = bit_planes_ ? bit_planes_size(nb) : 2 * nb;
      grouped_.resize(grouped);
      int r = LZ4_decompress_safe(reinterpret_cast<const char*>(body),
                                  reinterpret_cast<char*>(grouped_.data()), int(len), int(grouped));
      if (r != int(grouped)) return make_error("netzip: corrupt LZ4 block");
      ungroup(nb, words_.data() + start);
    }
    if (pos != in.size()) return make_error("netzip: trailing bytes after the last block");
    add_base(base, dtype, out);
    return out.size();
  }

 private:
  // Published step: G - D_min in FP32, rounded to BF16 (lossy).
  uint16_t subtract_float_min() {
    float dmin = std::numeric_limits<float>::infinity();
    for (uint16_t w : words_) {
      float f = bf16_to_float(w);
      if (f < dmin) dmin = f;  // NaN compares false and is skipped
    }
    if (!std::isfinite(dmin)) dmin = 0.0f;
    uint16_t base = float_to_bf16(dmin);  // the min of BF16 values is itself a BF16 value
    float b = bf16_to_float(base);
    for (uint16_t& w : words_) w = float_to_bf16(bf16_to_float(w) - b);
    return base;
  }
  // Lossless step: int16 patterns minus the smallest one, modulo 2^16.
  uint16_t subtract_int_min() {
    int16_t m = std::numeric_limits<int16_t>::max();
    for (uint16_t w : words_) m = std::min(m, static_cast<int16_t>(w));
    uint16_t base = words_.empty() ? 0 : static_cast<uint16_t>(m);
    for (uint16_t& w : words_) w = static_cast<uint16_t>(w - base);
    return base;
  }
  void add_base(uint16_t base, DType dtype, std::span<std::byte> out) {
    const size_t n = words_.size();
    if (!paper_) {
      for (size_t i = 0; i < n; ++i) {
        uint16_t w = static_cast<uint16_t>(words_[i] + base);
        std::memcpy(out.data() + 2 * i, &w, 2);
      }
      return;
    }
    float b = bf16_to_float(base);
    for (size_t i = 0; i < n; ++i) {
      float f = bf16_to_float(words_[i]) + b;
      if (dtype == DType::kFp32) {
        f = bf16_to_float(float_to_bf16(f));  // the wire carried BF16
        std::memcpy(out.data() + 4 * i, &f, 4);
      } else {
        uint16_t w = float_to_bf16(f);
        std::memcpy(out.data() + 2 * i, &w, 2);
      }
    }
  }
  void group(const uint16_t* w, size_t nb) {
    grouped_.resize(bit_planes_ ? bit_planes_size(nb) : 2 * nb);
    if (bit_planes_) {
      bit_planes(w, nb, grouped_.data());
    } else {  // high bytes first, then low bytes
      byte_group(reinterpret_cast<const std::byte*>(w), nb, 2, grouped_.data());
      std::rotate(grouped_.begin(), grouped_.begin() + nb, grouped_.end());
    }
  }
  void ungroup(size_t nb, uint16_t* w) {
    if (bit_planes_) {
      bit_unplanes(grouped_.data(), nb, w);
    } else {
      std::rotate(grouped_.begin(), grouped_.begin() + nb, grouped_.end());
      byte_ungroup(grouped_.data(), nb, 2, reinterpret_cast<std::byte*>(w));
    }
  }
  Result<size_t> write_blocks(uint16_t base, std::span<std::byte> out) {
    const size_t n = words_.size();
    if (out.size() < 2) return make_error("netzip: does not fit");
    frame::put16(out.data(), base);
    size_t pos = 2;
    std::vector<char> lz(LZ4_compressBound(int(bit_planes_size(kBlockWords))));
    for (size_t start = 0; start < n; start += kBlockWords) {
      const size_t nb = std::min(kBlockWords, n - start);
      group(words_.data() + start, nb);
      int c = LZ4_compress_default(reinterpret_cast<const char*>(grouped_.data()), lz.data(),
                                   int(grouped_.size()), int(lz.size()));
      const bool use_lz = c > 0 && size_t(c) < 2 * nb;  // raw fallback when not smaller
      const size_t len = use_lz ? size_t(c) : 2 * nb;
      if (out.size() - pos < 2 + len) return make_error("netzip: does not fit");
      frame::put16(out.data() + pos, uint16_t(len | (use_lz ? kCompressedFlag : 0)));
      std::memcpy(out.data() + pos + 2,
                  use_lz ? static_cast<const void*>(lz.data())
                         : static_cast<const void*>(words_.data() + start),
                  len);
      pos += 2 + len;
    }
    return pos;
  }

  bool paper_;
  bool bit_planes_;
  std::vector<uint16_t> words_;
  std::vector<std::byte> grouped_;
};

}  // namespace

std::unique_ptr<Codec> make_netzip_paper_codec() {
  return std::make_unique<NetzipCodec>("netzip-paper", frame::CodecId::kNetzipPaper, true, true);
}

std::unique_ptr<Codec> make_netzip_lossless_codec(bool bit_planes) {
  return std::make_unique<NetzipCodec>(
      bit_planes ? "netzip-lossless-bits" : "netzip-lossless",
      bit_planes ? frame::CodecId::kNetzipLosslessBits : frame::CodecId::kNetzipLossless, false,
      bit_planes);
}

}  // namespace commlab
