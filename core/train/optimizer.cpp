#include "train/optimizer.h"

#include <cmath>
#include <stdexcept>

#include "io/status.h"

namespace commlab {

double learning_rate(const OptimizerConfig& opt, const ScheduleConfig& s, int it) {
  double lr = opt.lr;
  if (s.warmup_iterations > 0 && it < s.warmup_iterations) {
    return lr * static_cast<double>(it + 1) / s.warmup_iterations;
  }
  switch (s.decay) {
    case DecayKind::kConstant: break;
    case DecayKind::kCosine: {
      const int span = s.total_iterations - s.warmup_iterations;
      if (span > 0) {
        double t = std::min(1.0, static_cast<double>(it - s.warmup_iterations) / span);
        double lo = opt.lr * s.min_lr_fraction;
        lr = lo + 0.5 * (opt.lr - lo) * (1 + std::cos(M_PI * t));
      }
      break;
    }
    case DecayKind::kStep:
      if (s.step_every > 0) lr *= std::pow(s.step_gamma, (it - s.warmup_iterations) / s.step_every);
      break;
  }
  return lr;
}

OptimizerKind parse_optimizer(const std::string& name) {
  if (name == "sgd") return OptimizerKind::kSgd;
  if (name == "adamw") return OptimizerKind::kAdamW;
  throw bad_input("unknown optimizer '" + name + "' (expected sgd or adamw)");
}

DecayKind parse_decay(const std::string& name) {
  if (name == "constant") return DecayKind::kConstant;
  if (name == "cosine") return DecayKind::kCosine;
  if (name == "step") return DecayKind::kStep;
  throw bad_input("unknown lr decay '" + name + "' (expected constant, cosine or step)");
}

void Optimizer::continue_from(const Optimizer& other) {
  if (other.config_.kind != config_.kind)
    throw bad_input("a fork cannot change the optimizer (training.optimizer)");
  steps_ = other.steps_;
  m_ = other.m_;
  v_ = other.v_;
}

void Optimizer::step(Model& model, double lr) {
  ++steps_;
  m_.resize(model.num_layers());
  v_.resize(model.num_layers());
  const float flr = static_cast<float>(lr);
  const float wd = static_cast<float>(config_.weight_decay);
  for (size_t l = 0; l < model.num_layers(); ++l) {
    auto p = model.layer(l).params();
    auto g = model.layer(l).grads();
    if (p.empty()) continue;
    auto& m = m_[l];
    if (m.size() != p.size()) m.assign(p.size(), 0.0f);
    if (config_.kind == OptimizerKind::kSgd) {
      const float mu = static_cast<float>(config_.momentum);
      for (size_t i = 0; i < p.size(); ++i) {
        m[i] = mu * m[i] + g[i] + wd * p[i];
        p[i] -= flr * m[i];
      }
    } else {
      auto& v = v_[l];
      if (v.size() != p.size()) v.assign(p.size(), 0.0f);
      const float b1 = static_cast<float>(config_.beta1), b2 = static_cast<float>(config_.beta2);
      const float c1 = static_cast<float>(1 / (1 - std::pow(config_.beta1, steps_)));
      const float c2 = static_cast<float>(1 / (1 - std::pow(config_.beta2, steps_)));
      const float eps = static_cast<float>(config_.eps);
      for (size_t i = 0; i < p.size(); ++i) {
        m[i] = b1 * m[i] + (1 - b1) * g[i];
        v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
        p[i] -= flr * (m[i] * c1 / (std::sqrt(v[i] * c2) + eps) + wd * p[i]);
      }
    }
  }
}

}  // namespace commlab
