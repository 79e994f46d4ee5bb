#pragma once
// Optimizers over a model's per-layer parameters (FP32 master weights), and the learning-rate
// schedule. State is per layer, so each replica's optimizer is independent.
#include <cstdint>
#include <string>
#include <vector>

#include "train/model.h"

namespace commlab {

enum class OptimizerKind { kSgd, kAdamW };
enum class DecayKind { kConstant, kCosine, kStep };

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kSgd;
  double lr = 0.05;
  double momentum = 0.9;                          // SGD
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // AdamW
  double weight_decay = 0;  // decoupled for AdamW, L2 added to the gradient for SGD
};

struct ScheduleConfig {
  int warmup_iterations = 0;  // linear from lr/warmup to lr
  DecayKind decay = DecayKind::kConstant;
  int total_iterations = 0;  // cosine: decays to min_lr_fraction*lr at this iteration
  double min_lr_fraction = 0.0;
  int step_every = 0;  // step: multiply by step_gamma every step_every iterations
  double step_gamma = 0.1;
};

// Learning rate at 0-based iteration `it`.
double learning_rate(const OptimizerConfig& opt, const ScheduleConfig& schedule, int it);

OptimizerKind parse_optimizer(const std::string& name);  // "sgd" | "adamw"; throws invalid_argument
DecayKind parse_decay(const std::string& name);          // "constant" | "cosine" | "step"

class Optimizer {
 public:
  explicit Optimizer(OptimizerConfig config) : config_(config) {}
  // Applies grads() of every layer to its params() with learning rate lr.
  void step(Model& model, double lr);
  // A fork (DataParallelTrainer::continue_from) carries on another optimizer's run: its step count
  // and moments, under this optimizer's own settings (a fork may change the learning rate or the
  // momentum; the kind must be the same, else std::invalid_argument).
  void continue_from(const Optimizer& other);

 private:
  OptimizerConfig config_;
  int64_t steps_ = 0;
  std::vector<std::vector<float>> m_, v_;  // per layer: momentum / Adam moments
};

}  // namespace commlab
