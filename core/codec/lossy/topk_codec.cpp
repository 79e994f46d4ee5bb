// topk: the sparsifier SkipReduce compares with. Sends the k = ceil(fraction * n) largest-magnitude
// entries of (gradient + residual) and keeps the rest as the residual for the next call (error
// feedback). Payload: u32 k, k u32 indices (ascending), k f32 values. Stateful: one instance per
// stream; the residual costs 4 bytes per element at the sender.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "codec/codec_factories.h"
#include "codec/framed_codec.h"
#include "codec/lossy/lossy_common.h"

namespace commlab {
namespace {

class TopKCodec final : public FramedCodec {
 public:
  explicit TopKCodec(double fraction)
      : FramedCodec("topk", frame::CodecId::kTopK, false, false), fraction_(fraction) {}
  void reset() override { residual_.clear(); }
  size_t state_bytes(size_t input_bytes) const override { return input_bytes; }

 protected:
  size_t k_for(size_t n) const {
    return n == 0 ? 0 : std::max<size_t>(1, size_t(std::ceil(fraction_ * double(n))));
  }
  size_t payload_bound(size_t n) const override { return 4 + 8 * k_for(n); }

  Result<size_t> encode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    to_float(in, dtype, values_);
    const size_t n = values_.size();
    if (residual_.size() != n) residual_.assign(n, 0.0f);
    for (size_t i = 0; i < n; ++i) values_[i] += residual_[i];
    const size_t k = std::min(k_for(n), n);
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0u);
    // Ties broken by index so the selection is deterministic.
    auto larger = [&](uint32_t a, uint32_t b) {
      float fa = std::fabs(values_[a]), fb = std::fabs(values_[b]);
      return fa != fb ? fa > fb : a < b;
    };
    std::nth_element(order_.begin(), order_.begin() + k, order_.end(), larger);
    std::sort(order_.begin(), order_.begin() + k);
    if (out.size() < 4 + 8 * k) return make_error("topk: does not fit");
    frame::put32(out.data(), uint32_t(k));
    residual_ = values_;
    for (size_t j = 0; j < k; ++j) {
      uint32_t idx = order_[j];
      frame::put32(out.data() + 4 + 4 * j, idx);
      std::memcpy(out.data() + 4 + 4 * k + 4 * j, &values_[idx], 4);
      residual_[idx] = 0.0f;
    }
    return 4 + 8 * k;
  }

  Result<size_t> decode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    const size_t n = out.size() / dtype_size(dtype);
    if (in.size() < 4) return make_error("topk: truncated");
    const size_t k = frame::get32(in.data());
    if (k > n || in.size() != 4 + 8 * k) return make_error("topk: bad size");
    values_.assign(n, 0.0f);
    for (size_t j = 0; j < k; ++j) {
      uint32_t idx = frame::get32(in.data() + 4 + 4 * j);
      if (idx >= n) return make_error("topk: index out of range");
      std::memcpy(&values_[idx], in.data() + 4 + 4 * k + 4 * j, 4);
    }
    from_float(values_, dtype, out);
    return out.size();
  }

 private:
  double fraction_;
  std::vector<float> residual_, values_;
  std::vector<uint32_t> order_;
};

}  // namespace

std::unique_ptr<Codec> make_topk_codec(double fraction) {
  return std::make_unique<TopKCodec>(fraction);
}

}  // namespace commlab
