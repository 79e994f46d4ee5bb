#pragma once
// A sequential model with softmax cross-entropy: the unit each simulated rank holds a replica of.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "train/dataset.h"
#include "train/layers/layer.h"

namespace commlab {

struct LossStats {
  double loss = 0;  // mean over labels
  int64_t correct = 0;
  int64_t count = 0;
  // Per class (the label's index): labels seen and labels predicted right (argmax = label); one
  // entry per logit column. correct and count are their sums.
  std::vector<int64_t> class_correct, class_count;
  // Adds another part's counts: correct, count and the per-class counts (not the loss, which the
  // caller sums in its own order).
  void add_counts(const LossStats& part);
  // class_correct[k] / class_count[k] per class; NaN for a class with no label here.
  std::vector<double> class_accuracy() const;
};

// Mean softmax cross-entropy over the rows of `logits` (one label per row). Writes dL/dlogits into
// *dlogits unless null. Loss accumulated in double so it does not depend on batch size rounding.
LossStats softmax_cross_entropy(const Matrix& logits, std::span<const int32_t> labels,
                                Matrix* dlogits);

class Model {
 public:
  Model() = default;
  Model(const Model& other);
  Model& operator=(const Model& other);
  Model(Model&&) = default;
  Model& operator=(Model&&) = default;

  void add(std::unique_ptr<Layer> layer) { layers_.push_back(std::move(layer)); }
  // Layer i draws from CounterRng(seed, kInit, 0, i): every replica starts identical.
  void init(uint64_t seed);

  const Matrix& forward(const Matrix& x);
  // Forward, loss, backward: every layer's grads() hold d(mean loss)/d(params) afterwards.
  LossStats forward_backward(const Matrix& x, std::span<const int32_t> labels);
  // Loss and accuracy over a dataset, in fixed chunks (no gradients, does not touch grads()).
  LossStats evaluate(const Dataset& d, int max_rows = 0, int chunk = 1000);

  size_t num_layers() const { return layers_.size(); }
  Layer& layer(size_t i) { return *layers_[i]; }
  const Layer& layer(size_t i) const { return *layers_[i]; }
  // Indices of layers with parameters: one gradient bucket each, in forward order.
  std::vector<int> bucket_layers() const;
  size_t num_params() const;
  std::vector<float> flat_params() const;
  std::vector<float> flat_grads() const;
  // Output of layer i from the last forward pass (what pipeline or tensor parallelism would send).
  const Matrix& activation(size_t i) const { return acts_.at(i); }
  double forward_flops(int rows) const;
  double backward_flops(int rows) const;

 private:
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<Matrix> acts_;  // acts_[i] = output of layer i
  Matrix grad_a_, grad_b_;
};

// MLP: in -> hidden[0] -> ... -> classes, ReLU between. {784, {256}, 10} has 203,530 parameters.
Model make_mlp(int in, const std::vector<int>& hidden, int classes);

}  // namespace commlab
