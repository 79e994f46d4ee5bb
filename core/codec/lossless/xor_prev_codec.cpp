// xor-prev: XOR with the previous tensor of the same stream ("true delta", which NetZIP rejects for
// NIC memory), byte grouping, LZ4. Both ends keep one copy of the previous tensor: state_bytes()
// reports it. Frames must be decoded in encoding order; a size change restarts from zeros.
#include <lz4.h>

#include <cstring>
#include <vector>

#include "codec/codec_factories.h"
#include "codec/framed_codec.h"
#include "codec/commlab/grouping.h"

namespace commlab {
namespace {

void xor_into(std::span<const std::byte> a, const std::vector<std::byte>& prev, std::byte* out) {
  if (prev.size() != a.size()) {
    if (!a.empty()) std::memcpy(out, a.data(), a.size());
    return;
  }
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] ^ prev[i];
}

class XorPrevCodec final : public FramedCodec {
 public:
  XorPrevCodec() : FramedCodec("xor-prev", frame::CodecId::kXorPrev, true, true) {}
  void reset() override {
    enc_prev_.clear();
    dec_prev_.clear();
  }
  size_t state_bytes(size_t input_bytes) const override { return input_bytes; }

 protected:
  size_t payload_bound(size_t n) const override { return LZ4_compressBound(int(n)); }
  Result<size_t> encode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    const size_t w = dtype_size(dtype);
    delta_.resize(in.size());
    grouped_.resize(in.size());
    xor_into(in, enc_prev_, delta_.data());
    byte_group(delta_.data(), in.size() / w, w, grouped_.data());
    int r = LZ4_compress_default(reinterpret_cast<const char*>(grouped_.data()),
                                 reinterpret_cast<char*>(out.data()), int(in.size()),
                                 int(std::min<size_t>(out.size(), INT32_MAX)));
    if (r <= 0) return make_error("xor-prev: does not fit");
    return size_t(r);
  }
  Result<size_t> decode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    const size_t w = dtype_size(dtype);
    grouped_.resize(out.size());
    delta_.resize(out.size());
    int r = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                reinterpret_cast<char*>(grouped_.data()), int(in.size()),
                                int(out.size()));
    if (r != int(out.size())) return make_error("xor-prev: corrupt LZ4 block");
    byte_ungroup(grouped_.data(), out.size() / w, w, delta_.data());
    xor_into(delta_, dec_prev_, out.data());
    return out.size();
  }
  void observe_encoded(std::span<const std::byte> in, DType) override {
    enc_prev_.assign(in.begin(), in.end());
  }
  void observe_decoded(std::span<const std::byte> out, DType) override {
    dec_prev_.assign(out.begin(), out.end());
  }

 private:
  std::vector<std::byte> enc_prev_, dec_prev_, delta_, grouped_;
};

}  // namespace

std::unique_ptr<Codec> make_xor_prev_codec() {
  return std::make_unique<XorPrevCodec>();
}

}  // namespace commlab
