// lz4: liblz4's block compressor on the raw bytes (the compressor NetZIP puts in the NIC).
#include <lz4.h>

#include "codec/codec_factories.h"
#include "codec/framed_codec.h"

namespace commlab {
namespace {

class Lz4Codec final : public FramedCodec {
 public:
  Lz4Codec() : FramedCodec("lz4", frame::CodecId::kLz4, true, true) {}

 protected:
  size_t payload_bound(size_t n) const override { return LZ4_compressBound(int(n)); }
  Result<size_t> encode_payload(std::span<const std::byte> in, DType,
                                std::span<std::byte> out) override {
    int r = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                                 reinterpret_cast<char*>(out.data()), int(in.size()),
                                 int(std::min<size_t>(out.size(), INT32_MAX)));
    if (r <= 0) return make_error("lz4: does not fit");
    return size_t(r);
  }
  Result<size_t> decode_payload(std::span<const std::byte> in, DType,
                                std::span<std::byte> out) override {
    int r =
        LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                            reinterpret_cast<char*>(out.data()), int(in.size()), int(out.size()));
    if (r < 0) return make_error("lz4: corrupt block");
    return size_t(r);
  }
};

}  // namespace

std::unique_ptr<Codec> make_lz4_codec() {
  return std::make_unique<Lz4Codec>();
}

}  // namespace commlab
