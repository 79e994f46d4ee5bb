// zstd-L: libzstd on the raw bytes; bytegroup-zstd: on byte-grouped bytes (ZipNN's first step).
// Contexts are kept per instance only to avoid re-allocating them; no data carries over.
#include <zstd.h>

#include <vector>

#include "codec/codec_factories.h"
#include "codec/framed_codec.h"
#include "codec/commlab/grouping.h"

namespace commlab {
namespace {

struct ZstdContexts {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_DCtx* d = ZSTD_createDCtx();
  ZstdContexts() = default;
  ZstdContexts(const ZstdContexts&) = delete;
  ZstdContexts& operator=(const ZstdContexts&) = delete;
  ~ZstdContexts() {
    ZSTD_freeCCtx(c);
    ZSTD_freeDCtx(d);
  }
  Result<size_t> compress(const std::byte* in, size_t n, std::span<std::byte> out, int level) {
    size_t r = ZSTD_compressCCtx(c, out.data(), out.size(), in, n, level);
    if (ZSTD_isError(r)) return make_error(std::string("zstd: ") + ZSTD_getErrorName(r));
    return r;
  }
  Result<size_t> decompress(std::span<const std::byte> in, std::byte* out, size_t n) {
    size_t r = ZSTD_decompressDCtx(d, out, n, in.data(), in.size());
    if (ZSTD_isError(r)) return make_error(std::string("zstd: ") + ZSTD_getErrorName(r));
    return r;
  }
};

class ZstdCodec final : public FramedCodec {
 public:
  explicit ZstdCodec(int level)
      : FramedCodec("zstd-" + std::to_string(level), frame::CodecId::kZstd, true, true),
        level_(level) {}

 protected:
  size_t payload_bound(size_t n) const override { return ZSTD_compressBound(n); }
  Result<size_t> encode_payload(std::span<const std::byte> in, DType,
                                std::span<std::byte> out) override {
    return ctx_.compress(in.data(), in.size(), out, level_);
  }
  Result<size_t> decode_payload(std::span<const std::byte> in, DType,
                                std::span<std::byte> out) override {
    return ctx_.decompress(in, out.data(), out.size());
  }

 private:
  int level_;
  ZstdContexts ctx_;
};

class ByteGroupZstdCodec final : public FramedCodec {
 public:
  ByteGroupZstdCodec(int level, std::string name)
      : FramedCodec(std::move(name), frame::CodecId::kByteGroupZstd, true, true), level_(level) {}

 protected:
  size_t payload_bound(size_t n) const override { return ZSTD_compressBound(n); }
  Result<size_t> encode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    const size_t w = dtype_size(dtype);
    scratch_.resize(in.size());
    byte_group(in.data(), in.size() / w, w, scratch_.data());
    return ctx_.compress(scratch_.data(), in.size(), out, level_);
  }
  Result<size_t> decode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    const size_t w = dtype_size(dtype);
    scratch_.resize(out.size());
    Result<size_t> r = ctx_.decompress(in, scratch_.data(), out.size());
    if (!r.ok()) return r;
    if (*r != out.size()) return make_error("zstd: wrong decoded size");
    byte_ungroup(scratch_.data(), out.size() / w, w, out.data());
    return out.size();
  }

 private:
  int level_;
  ZstdContexts ctx_;
  std::vector<std::byte> scratch_;
};

}  // namespace

std::unique_ptr<Codec> make_zstd_codec(int level) {
  return std::make_unique<ZstdCodec>(level);
}

std::unique_ptr<Codec> make_bytegroup_zstd_codec(int level, std::string name) {
  return std::make_unique<ByteGroupZstdCodec>(level, std::move(name));
}

}  // namespace commlab
