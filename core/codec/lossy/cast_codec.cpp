// cast-bf16 / cast-fp16: the lossy baseline every mixed-precision system already uses, FP32 values
// rounded to nearest-even 16-bit floats (numeric/float16.h) and widened back on decode.
#include <cstring>

#include "codec/codec_factories.h"
#include "codec/framed_codec.h"
#include "numeric/float16.h"

namespace commlab {
namespace {

class CastCodec final : public FramedCodec {
 public:
  explicit CastCodec(DType target)
      : FramedCodec(target == DType::kBf16 ? "cast-bf16" : "cast-fp16",
                    target == DType::kBf16 ? frame::CodecId::kCastBf16 : frame::CodecId::kCastFp16,
                    false, false),
        bf16_(target == DType::kBf16) {}

 protected:
  bool supports(DType d) const override { return d == DType::kFp32; }
  size_t payload_bound(size_t n) const override { return n / 2; }
  Result<size_t> encode_payload(std::span<const std::byte> in, DType,
                                std::span<std::byte> out) override {
    const size_t n = in.size() / 4;
    if (out.size() < 2 * n) return make_error("cast: does not fit");
    for (size_t i = 0; i < n; ++i) {
      float f;
      std::memcpy(&f, in.data() + 4 * i, 4);
      uint16_t h = bf16_ ? float_to_bf16(f) : float_to_fp16(f);
      std::memcpy(out.data() + 2 * i, &h, 2);
    }
    return 2 * n;
  }
  Result<size_t> decode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    if (dtype != DType::kFp32) return make_error("cast: frame dtype must be fp32");
    const size_t n = out.size() / 4;
    if (in.size() != 2 * n) return make_error("cast: payload size mismatch");
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, in.data() + 2 * i, 2);
      float f = bf16_ ? bf16_to_float(h) : fp16_to_float(h);
      std::memcpy(out.data() + 4 * i, &f, 4);
    }
    return out.size();
  }

 private:
  bool bf16_;
};

}  // namespace

std::unique_ptr<Codec> make_cast_codec(DType target) {
  return std::make_unique<CastCodec>(target);
}

}  // namespace commlab
