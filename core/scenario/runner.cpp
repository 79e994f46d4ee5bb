#include "scenario/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "io/status.h"
#include "scenario/run/fork.h"
#include "scenario/run/run_engine.h"
#include "scenario/run/tta_stats.h"
#include "scenario/scenario.h"
#include "topology/presets.h"
#include "train/sample_store.h"

namespace commlab {

std::optional<ConfigProblem> check_run_startable(const RunConfig& config) {
  try {
    check_run_engine_parts(config);
  } catch (const std::invalid_argument& e) {
    return problem_of(e);
  } catch (const std::runtime_error& e) {
    return problem_of(e);
  }
  return std::nullopt;
}

TrainerConfig trainer_config(const RunConfig& c) {
  TrainerConfig tc;
  tc.ranks = c.training.ranks;
  tc.iterations = c.training.iterations;
  tc.global_batch = c.training.global_batch;
  tc.eval_every = c.training.eval_every;
  tc.eval_every_far = c.training.eval_every_far;
  tc.eval_fine_from = c.training.target_accuracy - c.training.eval_fine_margin;
  tc.eval_fine_until =
      c.training.eval_fine_until > 0 ? c.training.eval_fine_until : c.training.target_accuracy;
  tc.eval_window = c.training.tta_window;
  tc.eval_rows = c.training.eval_rows;
  tc.sharding.mode = c.training.sharding;
  tc.sharding.alpha = c.training.sharding_alpha;
  tc.seed = c.seed;
  tc.optimizer.kind = c.training.optimizer;
  tc.optimizer.lr = c.training.lr * skipreduce_lr_factor(c);
  tc.optimizer.momentum = c.training.momentum;
  tc.optimizer.weight_decay = c.training.weight_decay;
  tc.schedule.warmup_iterations = c.training.warmup;
  tc.schedule.decay = c.training.decay;
  tc.schedule.total_iterations = c.training.iterations;
  tc.schedule.step_every = std::max(1, c.training.iterations / 3);
  tc.compute.gpu = gpu_preset(c.cluster.gpu);
  tc.compute.mfu = c.cluster.mfu;
  return tc;
}

struct RunSession::Impl {
  RunConfig config;
  std::unique_ptr<RunEngine> engine;
  SampleStore samples;                      // thinned when a budget is set (set_sample_budget)
  Sample last;                              // the latest sample, kept or not
  double last_accuracy = 0;                 // test accuracy of the latest evaluated sample
  std::vector<double> last_class_accuracy;  // and its per-class accuracy
  std::vector<EvalPoint> evals;             // every evaluation, for the time-to-accuracy crossing
  double wall_s = 0;
};

namespace {

const RunConfig& forkable(const RunConfig& config, const RunSession& parent) {
  const std::string problem = fork_problem(parent.config(), config);
  if (!problem.empty()) throw bad_input(problem);
  return config;
}

}  // namespace

RunSession::RunSession(const RunConfig& config) : RunSession(config, nullptr) {}

RunSession::RunSession(const RunConfig& config, const exec::MpiRuntime* mpi)
    : impl_(std::make_unique<Impl>()) {
  impl_->config = config;
  impl_->engine = make_run_engine(config, mpi);
}

RunSession::RunSession(const RunConfig& config, const RunSession& parent)
    : RunSession(forkable(config, parent), nullptr) {
  Impl& m = *impl_;
  const Impl& p = *parent.impl_;
  m.engine->continue_from(*p.engine);
  m.samples = p.samples;
  m.last = p.last;
  m.last_accuracy = p.last_accuracy;
  m.last_class_accuracy = p.last_class_accuracy;
  m.evals = p.evals;
  m.wall_s = p.wall_s;
}

RunSession::~RunSession() = default;

const RunConfig& RunSession::config() const {
  return impl_->config;
}

int RunSession::iteration() const {
  return impl_->engine->iteration();
}

bool RunSession::done() const {
  return iteration() >= impl_->config.training.iterations;
}

const Sample& RunSession::step() {
  Impl& m = *impl_;
  if (done()) throw std::logic_error("RunSession::step after the last iteration");
  auto t0 = std::chrono::steady_clock::now();
  Sample s = m.engine->step();
  m.wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.wall_time_s = m.wall_s;
  if (s.evaluated()) {
    m.last_accuracy = s.test_accuracy;
    m.last_class_accuracy = s.class_accuracy;
    m.evals.push_back({s.iteration, s.sim_time_s, s.test_accuracy});
  }
  m.last = std::move(s);
  m.samples.add(m.last);
  return m.last;
}

void RunSession::set_sample_budget(size_t max_kept) {
  impl_->samples.set_budget(max_kept);
}

void RunSession::run(const SampleObserver& observer, const std::atomic<bool>* cancel) {
  while (!done() && !(cancel && cancel->load())) {
    const Sample& s = step();
    if (observer) observer(s);
  }
}

const std::vector<Sample>& RunSession::samples() const {
  return impl_->samples.samples();
}

RunSummary RunSession::summary() const {
  const Impl& m = *impl_;
  RunSummary s;
  s.name = m.config.name;
  s.iterations = iteration();
  s.wall_time_s = m.wall_s;
  s.seed = m.config.seed;
  // Time-to-accuracy on the smoothed curve, so one lucky evaluation does not decide it.
  s.tta_window = m.config.training.tta_window;
  const SmoothedCrossing c = tta_crossing(m.evals, m.config.training.target_accuracy, s.tta_window);
  if (c.reached) {
    s.time_to_accuracy_s = c.time_s;
    s.iterations_to_accuracy = static_cast<int>(std::ceil(c.iterations - 1e-9));
  }
  m.engine->summarize(s, m.last, m.last_accuracy);
  if (s.iterations > 0) s.final_class_accuracy = m.last_class_accuracy;
  return s;
}

const DataParallelTrainer* RunSession::trainer() const {
  return impl_->engine->trainer();
}

std::vector<std::string> RunSession::bucket_names() const {
  return impl_->engine->bucket_names();
}

MpiRunStats RunSession::mpi_stats() const {
  return impl_->engine->mpi_stats();
}

}  // namespace commlab
