#include "train/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace commlab {
namespace {

Model one_linear() {
  Model m;
  m.add(std::make_unique<Linear>(1, 1, "fc"));  // params [w, b]
  return m;
}

TEST(Schedule, WarmupThenCosineThenStep) {
  OptimizerConfig o;
  o.lr = 1.0;
  ScheduleConfig s;
  s.warmup_iterations = 4;
  s.decay = DecayKind::kCosine;
  s.total_iterations = 14;
  // Warm-up: lr * (it+1)/4.
  EXPECT_DOUBLE_EQ(learning_rate(o, s, 0), 0.25);
  EXPECT_DOUBLE_EQ(learning_rate(o, s, 3), 1.0);
  // Cosine over 10 iterations: at it=9, t=0.5 -> 0.5*(1+cos(pi/2)) = 0.5; at it=14 -> 0.
  EXPECT_NEAR(learning_rate(o, s, 9), 0.5, 1e-12);
  EXPECT_NEAR(learning_rate(o, s, 14), 0.0, 1e-12);
  s.decay = DecayKind::kStep;
  s.step_every = 5;
  s.step_gamma = 0.1;
  // Two steps after warm-up + 10 iterations: 1 * 0.1^2.
  EXPECT_NEAR(learning_rate(o, s, 14), 0.01, 1e-12);
}

TEST(Optimizer, SgdMomentumAccumulatesVelocity) {
  Model m = one_linear();
  OptimizerConfig c;
  c.kind = OptimizerKind::kSgd;
  c.momentum = 0.5;
  Optimizer opt(c);
  m.layer(0).params()[0] = 1.0f;
  m.layer(0).grads()[0] = 2.0f;
  opt.step(m, 0.1);  // v = 2, w = 1 - 0.2 = 0.8
  EXPECT_FLOAT_EQ(m.layer(0).params()[0], 0.8f);
  opt.step(m, 0.1);  // v = 0.5*2 + 2 = 3, w = 0.8 - 0.3 = 0.5
  EXPECT_FLOAT_EQ(m.layer(0).params()[0], 0.5f);
}

TEST(Optimizer, AdamWFirstStepMovesBySignTimesLrPlusDecoupledDecay) {
  Model m = one_linear();
  OptimizerConfig c;
  c.kind = OptimizerKind::kAdamW;
  c.weight_decay = 0.1;
  Optimizer opt(c);
  m.layer(0).params()[0] = 2.0f;
  m.layer(0).grads()[0] = -3.0f;
  opt.step(m, 0.01);
  // Bias-corrected m/sqrt(v) = g/|g| = -1 on step one: w = 2 - 0.01*(-1 + 0.1*2) = 2.008.
  EXPECT_NEAR(m.layer(0).params()[0], 2.008f, 1e-6);
  EXPECT_THROW(parse_optimizer("lion"), std::invalid_argument);
}

}  // namespace
}  // namespace commlab
