// raw: the input verbatim in a frame (the baseline every ratio is read against).
#include <cstring>

#include "codec/codec_factories.h"
#include "codec/framed_codec.h"

namespace commlab {
namespace {

class RawCodec final : public FramedCodec {
 public:
  RawCodec() : FramedCodec("raw", frame::CodecId::kRaw, true, true) {}

 protected:
  size_t payload_bound(size_t n) const override { return n; }
  // Always falls back to the stored frame, which is exactly "raw".
  Result<size_t> encode_payload(std::span<const std::byte>, DType, std::span<std::byte>) override {
    return make_error("raw is always stored");
  }
  Result<size_t> decode_payload(std::span<const std::byte>, DType, std::span<std::byte>) override {
    return make_error("raw frames are always stored");
  }
};

}  // namespace

std::unique_ptr<Codec> make_raw_codec() {
  return std::make_unique<RawCodec>();
}

}  // namespace commlab
