#include "train/model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace commlab {

LossStats softmax_cross_entropy(const Matrix& logits, std::span<const int32_t> labels,
                                Matrix* dlogits) {
  const Eigen::Index n = logits.rows();
  const Eigen::Index c = logits.cols();
  LossStats s;
  s.count = n;
  s.class_correct.assign(c, 0);
  s.class_count.assign(c, 0);
  if (dlogits) dlogits->resize(n, c);
  double total = 0;
  const float inv_n = 1.0f / static_cast<float>(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const float* row = logits.data() + i * c;
    Eigen::Index arg = 0;
    float mx = row[0];
    for (Eigen::Index j = 1; j < c; ++j) {
      if (row[j] > mx) mx = row[j], arg = j;
    }
    double sum = 0;
    for (Eigen::Index j = 0; j < c; ++j) sum += std::exp(static_cast<double>(row[j] - mx));
    const int32_t y = labels[i];
    total += std::log(sum) - static_cast<double>(row[y] - mx);
    s.correct += (arg == y);
    s.class_correct[y] += (arg == y);
    ++s.class_count[y];
    if (dlogits) {
      float* d = dlogits->data() + i * c;
      const double inv_sum = 1.0 / sum;
      for (Eigen::Index j = 0; j < c; ++j) {
        d[j] = static_cast<float>(std::exp(static_cast<double>(row[j] - mx)) * inv_sum) * inv_n;
      }
      d[y] -= inv_n;
    }
  }
  s.loss = n > 0 ? total / static_cast<double>(n) : 0.0;
  return s;
}

void LossStats::add_counts(const LossStats& part) {
  correct += part.correct;
  count += part.count;
  if (class_count.size() < part.class_count.size()) {
    class_count.resize(part.class_count.size(), 0);
    class_correct.resize(part.class_count.size(), 0);
  }
  for (size_t k = 0; k < part.class_count.size(); ++k) {
    class_count[k] += part.class_count[k];
    class_correct[k] += part.class_correct[k];
  }
}

std::vector<double> LossStats::class_accuracy() const {
  std::vector<double> out(class_count.size(), std::nan(""));
  for (size_t k = 0; k < class_count.size(); ++k)
    if (class_count[k] > 0)
      out[k] = static_cast<double>(class_correct[k]) / static_cast<double>(class_count[k]);
  return out;
}

Model::Model(const Model& other) {
  *this = other;
}

Model& Model::operator=(const Model& other) {
  if (this == &other) return *this;
  layers_.clear();
  for (const auto& l : other.layers_) layers_.push_back(l->clone());
  acts_.clear();
  return *this;
}

void Model::init(uint64_t seed) {
  for (size_t i = 0; i < layers_.size(); ++i)
    layers_[i]->init(CounterRng(seed, Purpose::kInit, 0, i));
}

const Matrix& Model::forward(const Matrix& x) {
  acts_.resize(layers_.size());
  const Matrix* in = &x;
  for (size_t i = 0; i < layers_.size(); ++i) {
    layers_[i]->forward(*in, acts_[i]);
    in = &acts_[i];
  }
  return *in;
}

LossStats Model::forward_backward(const Matrix& x, std::span<const int32_t> labels) {
  const Matrix& logits = forward(x);
  LossStats s = softmax_cross_entropy(logits, labels, &grad_a_);
  for (size_t i = layers_.size(); i-- > 0;) {
    layers_[i]->backward(grad_a_, i > 0 ? &grad_b_ : nullptr);
    std::swap(grad_a_, grad_b_);
  }
  return s;
}

LossStats Model::evaluate(const Dataset& d, int max_rows, int chunk) {
  const int rows = max_rows > 0 ? std::min(max_rows, d.rows()) : d.rows();
  LossStats total;
  double loss_sum = 0;
  std::vector<int32_t> index;
  Matrix x;
  std::vector<int32_t> y;
  for (int start = 0; start < rows; start += chunk) {
    const int n = std::min(chunk, rows - start);
    index.resize(n);
    std::iota(index.begin(), index.end(), start);
    gather_batch(d, index, x, y);
    LossStats s = softmax_cross_entropy(forward(x), y, nullptr);
    loss_sum += s.loss * static_cast<double>(s.count);
    total.add_counts(s);
  }
  total.loss = total.count > 0 ? loss_sum / static_cast<double>(total.count) : 0.0;
  return total;
}

std::vector<int> Model::bucket_layers() const {
  std::vector<int> out;
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (layers_[i]->num_params() > 0) out.push_back(static_cast<int>(i));
  }
  return out;
}

size_t Model::num_params() const {
  size_t n = 0;
  for (const auto& l : layers_) n += l->num_params();
  return n;
}

std::vector<float> Model::flat_params() const {
  std::vector<float> out;
  out.reserve(num_params());
  for (const auto& l : layers_) out.insert(out.end(), l->params().begin(), l->params().end());
  return out;
}

std::vector<float> Model::flat_grads() const {
  std::vector<float> out;
  out.reserve(num_params());
  for (const auto& l : layers_) out.insert(out.end(), l->grads().begin(), l->grads().end());
  return out;
}

double Model::forward_flops(int rows) const {
  double f = 0;
  for (const auto& l : layers_) f += l->forward_flops(rows);
  return f;
}

double Model::backward_flops(int rows) const {
  double f = 0;
  for (size_t i = 0; i < layers_.size(); ++i) f += layers_[i]->backward_flops(rows, i > 0);
  return f;
}

Model make_mlp(int in, const std::vector<int>& hidden, int classes) {
  Model m;
  int prev = in;
  for (size_t i = 0; i < hidden.size(); ++i) {
    m.add(std::make_unique<Linear>(prev, hidden[i], "fc" + std::to_string(i + 1)));
    m.add(std::make_unique<Relu>("relu" + std::to_string(i + 1)));
    prev = hidden[i];
  }
  m.add(std::make_unique<Linear>(prev, classes, "fc" + std::to_string(hidden.size() + 1)));
  return m;
}

}  // namespace commlab
