#include "train/layers/transformer.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "io/status.h"

namespace commlab {

void layer_norm_forward(const Matrix& x, const float* gamma, const float* beta, Matrix& y,
                        Matrix& xhat, Eigen::VectorXf& inv_std) {
  const Eigen::Index n = x.rows(), d = x.cols();
  xhat.resize(n, d);
  y.resize(n, d);
  inv_std.resize(n);
  auto g = Eigen::Map<const RowVector>(gamma, d);
  auto b = Eigen::Map<const RowVector>(beta, d);
  for (Eigen::Index i = 0; i < n; ++i) {
    const float mean = x.row(i).mean();
    const float var = (x.row(i).array() - mean).square().mean();
    inv_std[i] = 1.0f / std::sqrt(var + 1e-5f);
    xhat.row(i) = (x.row(i).array() - mean) * inv_std[i];
    y.row(i) = xhat.row(i).cwiseProduct(g) + b;
  }
}

void layer_norm_backward(const Matrix& dy, const float* gamma, const Matrix& xhat,
                         const Eigen::VectorXf& inv_std, float* dgamma, float* dbeta, Matrix& dx) {
  const Eigen::Index n = dy.rows(), d = dy.cols();
  auto g = Eigen::Map<const RowVector>(gamma, d);
  auto dg = RowVectorMap(dgamma, d);
  auto db = RowVectorMap(dbeta, d);
  dg += dy.cwiseProduct(xhat).colwise().sum();
  db += dy.colwise().sum();
  dx.resize(n, d);
  for (Eigen::Index i = 0; i < n; ++i) {
    // dx = inv_std * (dxhat - mean(dxhat) - xhat * mean(dxhat . xhat))
    const RowVector dxhat = dy.row(i).cwiseProduct(g);
    const float m1 = dxhat.mean();
    const float m2 = dxhat.cwiseProduct(xhat.row(i)).mean();
    dx.row(i) = inv_std[i] * (dxhat.array() - m1 - xhat.row(i).array() * m2);
  }
}

Embedding::Embedding(int vocab, int seq, int dim, std::string name)
    : vocab_(vocab), seq_(seq), dim_(dim), name_(std::move(name)) {
  allocate(static_cast<size_t>(vocab + seq) * dim);
}

void Embedding::forward(const Matrix& x, Matrix& y) {
  if (x.cols() != seq_) throw bad_input(name_ + ": rows must hold seq token ids");
  const Eigen::Index batch = x.rows();
  ids_.resize(batch * seq_);
  y.resize(batch * seq_, dim_);
  auto tok = ConstMatrixMap(params_.data(), vocab_, dim_);
  auto pos = ConstMatrixMap(params_.data() + static_cast<size_t>(vocab_) * dim_, seq_, dim_);
  for (Eigen::Index b = 0; b < batch; ++b) {
    for (int t = 0; t < seq_; ++t) {
      const int id = std::clamp(static_cast<int>(x(b, t)), 0, vocab_ - 1);
      ids_[b * seq_ + t] = id;
      y.row(b * seq_ + t) = tok.row(id) + pos.row(t);
    }
  }
}

void Embedding::backward(const Matrix& dy, Matrix*) {
  std::fill(grads_.begin(), grads_.end(), 0.0f);
  auto dtok = MatrixMap(grads_.data(), vocab_, dim_);
  auto dpos = MatrixMap(grads_.data() + static_cast<size_t>(vocab_) * dim_, seq_, dim_);
  for (Eigen::Index r = 0; r < dy.rows(); ++r) {
    dtok.row(ids_[r]) += dy.row(r);
    dpos.row(r % seq_) += dy.row(r);
  }
}

void Embedding::init(const CounterRng& rng) {
  StreamRng s(rng);
  for (float& p : params_) p = static_cast<float>(0.02 * s.normal());
}

LayerNorm::LayerNorm(int dim, std::string name) : dim_(dim), name_(std::move(name)) {
  allocate(2 * static_cast<size_t>(dim));
}

void LayerNorm::forward(const Matrix& x, Matrix& y) {
  layer_norm_forward(x, params_.data(), params_.data() + dim_, y, xhat_, inv_std_);
}

void LayerNorm::backward(const Matrix& dy, Matrix* dx) {
  std::fill(grads_.begin(), grads_.end(), 0.0f);
  Matrix tmp;
  layer_norm_backward(dy, params_.data(), xhat_, inv_std_, grads_.data(), grads_.data() + dim_,
                      dx ? *dx : tmp);
}

void LayerNorm::init(const CounterRng&) {
  std::fill(params_.begin(), params_.begin() + dim_, 1.0f);
  std::fill(params_.begin() + dim_, params_.end(), 0.0f);
}

TransformerBlock::TransformerBlock(int dim, int heads, int seq, int ffn, std::string name)
    : dim_(dim), heads_(heads), seq_(seq), ffn_(ffn), name_(std::move(name)) {
  if (dim % heads != 0) throw bad_input(name_ + ": dim must be a multiple of heads");
  const size_t d = dim, f = ffn;
  size_t at = 0;
  auto take = [&at](size_t n) { return std::exchange(at, at + n); };
  off_.ln1 = take(2 * d);
  off_.wqkv = take(d * 3 * d);
  off_.bqkv = take(3 * d);
  off_.wo = take(d * d);
  off_.bo = take(d);
  off_.ln2 = take(2 * d);
  off_.w1 = take(d * f);
  off_.b1 = take(f);
  off_.w2 = take(f * d);
  off_.b2 = take(d);
  off_.total = at;
  allocate(at);
}

std::vector<Layer::ParamSegment> TransformerBlock::param_segments() const {
  return {{"norm", off_.ln1, off_.wqkv - off_.ln1},
          {"attention", off_.wqkv, off_.ln2 - off_.wqkv},
          {"norm", off_.ln2, off_.w1 - off_.ln2},
          {"mlp", off_.w1, off_.total - off_.w1}};
}

double TransformerBlock::forward_flops(int rows) const {
  const double d = dim_, n = rows;
  // QKV, output projection, MLP; scores and weighted values over the full T x T (mask included).
  return 2 * n * (3 * d * d + d * d + 2 * d * ffn_) + 4 * n * seq_ * d;
}

void TransformerBlock::init(const CounterRng& rng) {
  StreamRng s(rng);
  std::fill(params_.begin(), params_.end(), 0.0f);
  auto fill = [&](size_t off, size_t n, double fan_in) {
    const double scale = 1.0 / std::sqrt(fan_in);
    for (size_t i = 0; i < n; ++i) params_[off + i] = static_cast<float>(scale * s.normal());
  };
  const size_t d = dim_, f = ffn_;
  std::fill(params_.begin() + off_.ln1, params_.begin() + off_.ln1 + d, 1.0f);
  std::fill(params_.begin() + off_.ln2, params_.begin() + off_.ln2 + d, 1.0f);
  fill(off_.wqkv, d * 3 * d, d);
  fill(off_.wo, d * d, d);
  fill(off_.w1, d * f, d);
  fill(off_.w2, f * d, f);
}

void TransformerBlock::forward(const Matrix& x, Matrix& y) {
  const int d = dim_, T = seq_, dh = dim_ / heads_;
  const Eigen::Index n = x.rows(), batch = n / T;
  const float* p = params_.data();
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  layer_norm_forward(x, p + off_.ln1, p + off_.ln1 + d, a_, xhat1_, inv1_);
  qkv_.noalias() = a_ * ConstMatrixMap(p + off_.wqkv, d, 3 * d);
  qkv_.rowwise() += Eigen::Map<const RowVector>(p + off_.bqkv, 3 * d);
  att_.resize(batch * heads_ * T, T);
  o_.resize(n, d);
  for (Eigen::Index b = 0; b < batch; ++b) {
    for (int h = 0; h < heads_; ++h) {
      auto q = qkv_.block(b * T, h * dh, T, dh);
      auto k = qkv_.block(b * T, d + h * dh, T, dh);
      auto v = qkv_.block(b * T, 2 * d + h * dh, T, dh);
      auto P = att_.block((b * heads_ + h) * T, 0, T, T);
      P.noalias() = (q * k.transpose()) * scale;
      for (int i = 0; i < T; ++i) {
        // Causal: token i attends to 0..i only.
        const float mx = P.row(i).head(i + 1).maxCoeff();
        float sum = 0;
        for (int j = 0; j <= i; ++j) sum += (P(i, j) = std::exp(P(i, j) - mx));
        P.row(i).head(i + 1) /= sum;
        P.row(i).tail(T - i - 1).setZero();
      }
      o_.block(b * T, h * dh, T, dh).noalias() = P * v;
    }
  }
  h_ = x;
  h_.noalias() += o_ * ConstMatrixMap(p + off_.wo, d, d);
  h_.rowwise() += Eigen::Map<const RowVector>(p + off_.bo, d);
  layer_norm_forward(h_, p + off_.ln2, p + off_.ln2 + d, c_, xhat2_, inv2_);
  pre_.noalias() = c_ * ConstMatrixMap(p + off_.w1, d, ffn_);
  pre_.rowwise() += Eigen::Map<const RowVector>(p + off_.b1, ffn_);
  f_ = pre_.cwiseMax(0.0f);
  y = h_;
  y.noalias() += f_ * ConstMatrixMap(p + off_.w2, ffn_, d);
  y.rowwise() += Eigen::Map<const RowVector>(p + off_.b2, d);
}

void TransformerBlock::backward(const Matrix& dy, Matrix* dx) {
  const int d = dim_, T = seq_, dh = dim_ / heads_;
  const Eigen::Index n = dy.rows(), batch = n / T;
  const float* p = params_.data();
  float* g = grads_.data();
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  std::fill(grads_.begin(), grads_.end(), 0.0f);
  // MLP branch.
  MatrixMap(g + off_.w2, ffn_, d).noalias() = f_.transpose() * dy;
  RowVectorMap(g + off_.b2, d) = dy.colwise().sum();
  Matrix dpre = dy * ConstMatrixMap(p + off_.w2, ffn_, d).transpose();
  dpre = (pre_.array() > 0.0f).select(dpre, 0.0f);
  MatrixMap(g + off_.w1, d, ffn_).noalias() = c_.transpose() * dpre;
  RowVectorMap(g + off_.b1, ffn_) = dpre.colwise().sum();
  Matrix dc = dpre * ConstMatrixMap(p + off_.w1, d, ffn_).transpose();
  Matrix dh_ln;
  layer_norm_backward(dc, p + off_.ln2, xhat2_, inv2_, g + off_.ln2, g + off_.ln2 + d, dh_ln);
  Matrix dres = dy + dh_ln;  // gradient at the residual stream h
  // Attention branch.
  MatrixMap(g + off_.wo, d, d).noalias() = o_.transpose() * dres;
  RowVectorMap(g + off_.bo, d) = dres.colwise().sum();
  Matrix dout = dres * ConstMatrixMap(p + off_.wo, d, d).transpose();
  Matrix dqkv(n, 3 * d);
  Matrix dP(T, T);
  for (Eigen::Index b = 0; b < batch; ++b) {
    for (int h = 0; h < heads_; ++h) {
      auto q = qkv_.block(b * T, h * dh, T, dh);
      auto k = qkv_.block(b * T, d + h * dh, T, dh);
      auto v = qkv_.block(b * T, 2 * d + h * dh, T, dh);
      auto P = att_.block((b * heads_ + h) * T, 0, T, T);
      auto dO = dout.block(b * T, h * dh, T, dh);
      dP.noalias() = dO * v.transpose();
      dqkv.block(b * T, 2 * d + h * dh, T, dh).noalias() = P.transpose() * dO;
      // Softmax backward: dS = P . (dP - rowsum(dP . P)); masked entries have P = 0.
      const Eigen::VectorXf rows = dP.cwiseProduct(P).rowwise().sum();
      Matrix dS = P.cwiseProduct(dP.colwise() - rows) * scale;
      dqkv.block(b * T, h * dh, T, dh).noalias() = dS * k;
      dqkv.block(b * T, d + h * dh, T, dh).noalias() = dS.transpose() * q;
    }
  }
  MatrixMap(g + off_.wqkv, d, 3 * d).noalias() = a_.transpose() * dqkv;
  RowVectorMap(g + off_.bqkv, 3 * d) = dqkv.colwise().sum();
  if (!dx) return;
  Matrix da = dqkv * ConstMatrixMap(p + off_.wqkv, d, 3 * d).transpose();
  Matrix dx_ln;
  layer_norm_backward(da, p + off_.ln1, xhat1_, inv1_, g + off_.ln1, g + off_.ln1 + d, dx_ln);
  *dx = dres + dx_ln;
}

Model make_transformer(int vocab, int seq, int dim, int heads, int blocks, int ffn) {
  Model m;
  m.add(std::make_unique<Embedding>(vocab, seq, dim, "embed"));
  for (int i = 0; i < blocks; ++i) {
    m.add(std::make_unique<TransformerBlock>(dim, heads, seq, ffn > 0 ? ffn : 4 * dim,
                                             "block" + std::to_string(i + 1)));
  }
  m.add(std::make_unique<LayerNorm>(dim, "ln_f"));
  m.add(std::make_unique<Linear>(dim, vocab, "head"));
  return m;
}

}  // namespace commlab
