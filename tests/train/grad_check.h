#pragma once
// Finite-difference gradient check of a model's parameters (and, through the chain, every inner
// layer's input gradient) under softmax cross-entropy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "train/model.h"

namespace commlab::test {

// Central differences in double around float parameters; checks up to `probes` entries per layer.
inline void expect_gradients_match(Model& m, const Matrix& x, const std::vector<int32_t>& y,
                                   int probes = 40, double eps = 1e-3, double tol = 2e-2) {
  m.forward_backward(x, y);
  std::vector<std::vector<float>> analytic;
  for (size_t l = 0; l < m.num_layers(); ++l) {
    auto g = m.layer(l).grads();
    analytic.emplace_back(g.begin(), g.end());
  }
  double scale = 0;
  for (const auto& g : analytic) {
    for (float v : g) scale = std::max(scale, static_cast<double>(std::abs(v)));
  }
  ASSERT_GT(scale, 0) << "all gradients zero: the check would be vacuous";
  for (size_t l = 0; l < m.num_layers(); ++l) {
    auto p = m.layer(l).params();
    if (p.empty()) continue;
    const size_t step = std::max<size_t>(1, p.size() / probes);
    for (size_t i = 0; i < p.size(); i += step) {
      const float saved = p[i];
      p[i] = saved + static_cast<float>(eps);
      const double up = softmax_cross_entropy(m.forward(x), y, nullptr).loss;
      p[i] = saved - static_cast<float>(eps);
      const double down = softmax_cross_entropy(m.forward(x), y, nullptr).loss;
      p[i] = saved;
      // dL/dp ~ (L(p+e) - L(p-e)) / 2e; error O(e^2) plus float rounding of L / e.
      const double numeric = (up - down) / (2 * eps);
      EXPECT_NEAR(analytic[l][i], numeric, tol * std::max(scale, 1e-2) + 1e-4)
          << m.layer(l).name() << " param " << i;
    }
  }
}

}  // namespace commlab::test
