// powersgd: rank-r PowerSGD (Vogels et al. 2019), the low-rank baseline SkipReduce compares with.
// The n values (+ residual) are laid out row-major as a rows x cols matrix M (cols = ceil(sqrt n),
// zero-padded); one power iteration with the previous Q (warm start): P = orth(M Q), Q = M^T P, and
// M is approximated by P Q^T. Payload: u32 rows, cols, r, then P (rows x r) and Q (cols x r) as
// f32, column-major. Sender state: residual (4 B/element) and Q.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "codec/codec_factories.h"
#include "codec/framed_codec.h"
#include "codec/lossy/lossy_common.h"
#include "numeric/rng.h"

namespace commlab {
namespace {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;

struct Shape {
  size_t rows, cols, rank;
};

Shape shape_for(size_t n, int rank) {
  size_t cols = std::max<size_t>(1, size_t(std::ceil(std::sqrt(double(n)))));
  size_t rows = std::max<size_t>(1, (n + cols - 1) / cols);
  return {rows, cols, std::min<size_t>({size_t(rank), rows, cols})};
}

class PowerSgdCodec final : public FramedCodec {
 public:
  explicit PowerSgdCodec(int rank)
      : FramedCodec("powersgd", frame::CodecId::kPowerSgd, false, false), rank_(rank) {}
  void reset() override {
    residual_.clear();
    q_.resize(0, 0);
  }
  size_t state_bytes(size_t input_bytes) const override {
    size_t n = input_bytes / 2;  // elements, at most
    Shape s = shape_for(n, rank_);
    return 4 * n + 4 * s.cols * s.rank;
  }

 protected:
  size_t payload_bound(size_t bytes) const override {
    Shape s = shape_for(bytes / 2, rank_);
    return 12 + 4 * (s.rows + s.cols) * s.rank + 64;
  }

  Result<size_t> encode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    to_float(in, dtype, values_);
    const size_t n = values_.size();
    if (n == 0) return make_error("powersgd: empty input");
    if (residual_.size() != n) residual_.assign(n, 0.0f), q_.resize(0, 0);
    const Shape s = shape_for(n, rank_);
    Mat m = Mat::Zero(s.rows, s.cols);
    for (size_t i = 0; i < n; ++i) m(i / s.cols, i % s.cols) = values_[i] + residual_[i];
    if (q_.rows() != Eigen::Index(s.cols) || q_.cols() != Eigen::Index(s.rank)) {
      q_.resize(s.cols, s.rank);
      StreamRng rng(CounterRng(0, Purpose::kCodec));
      for (Eigen::Index i = 0; i < q_.size(); ++i) q_.data()[i] = float(rng.normal());
    }
    Mat p = m * q_;
    Eigen::HouseholderQR<Mat> qr(p);
    p = qr.householderQ() * Mat::Identity(s.rows, s.rank);
    q_ = m.transpose() * p;
    Mat approx = p * q_.transpose();
    for (size_t i = 0; i < n; ++i)
      residual_[i] = m(i / s.cols, i % s.cols) - approx(i / s.cols, i % s.cols);
    const size_t size = 12 + 4 * (p.size() + q_.size());
    if (out.size() < size) return make_error("powersgd: does not fit");
    frame::put32(out.data(), uint32_t(s.rows));
    frame::put32(out.data() + 4, uint32_t(s.cols));
    frame::put32(out.data() + 8, uint32_t(s.rank));
    std::memcpy(out.data() + 12, p.data(), 4 * p.size());
    std::memcpy(out.data() + 12 + 4 * p.size(), q_.data(), 4 * q_.size());
    return size;
  }

  Result<size_t> decode_payload(std::span<const std::byte> in, DType dtype,
                                std::span<std::byte> out) override {
    const size_t n = out.size() / dtype_size(dtype);
    if (in.size() < 12) return make_error("powersgd: truncated");
    const Shape s = shape_for(n, rank_);
    const size_t rows = frame::get32(in.data()), cols = frame::get32(in.data() + 4),
                 rank = frame::get32(in.data() + 8);
    if (rows != s.rows || cols != s.cols || rank != s.rank)
      return make_error("powersgd: bad shape");
    if (in.size() != 12 + 4 * (rows + cols) * rank) return make_error("powersgd: bad size");
    Mat p(rows, rank), q(cols, rank);
    std::memcpy(p.data(), in.data() + 12, 4 * p.size());
    std::memcpy(q.data(), in.data() + 12 + 4 * p.size(), 4 * q.size());
    Mat approx = p * q.transpose();
    values_.resize(n);
    for (size_t i = 0; i < n; ++i) values_[i] = approx(i / cols, i % cols);
    from_float(values_, dtype, out);
    return out.size();
  }

 private:
  int rank_;
  std::vector<float> residual_, values_;
  Mat q_;
};

}  // namespace

std::unique_ptr<Codec> make_powersgd_codec(int rank) {
  return std::make_unique<PowerSgdCodec>(rank);
}

}  // namespace commlab
