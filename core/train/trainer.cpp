#include "train/trainer.h"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "io/status.h"

namespace commlab {
namespace {

int thread_count(int requested) {
  return requested > 0 ? requested : omp_get_max_threads();
}

}  // namespace

LossStats evaluate_rows(const Model& model, const Dataset& test, std::span<const int32_t> rows,
                        int threads) {
  constexpr int kChunk = 500;
  const int n_rows = static_cast<int>(rows.size());
  const int chunks = (n_rows + kChunk - 1) / kChunk;
  const int team = std::min(thread_count(threads), std::max(chunks, 1));
  std::vector<Model> models(team, model);
  std::vector<LossStats> parts(chunks);
  // Fixed chunks, summed in chunk order: the result does not depend on the thread count.
#pragma omp parallel num_threads(team)
  {
    Model& m = models[omp_get_thread_num()];
    std::vector<int32_t> y;
    Matrix x;
#pragma omp for schedule(static)
    for (int c = 0; c < chunks; ++c) {
      const int start = c * kChunk, n = std::min(kChunk, n_rows - start);
      gather_batch(test, rows.subspan(start, n), x, y);
      parts[c] = softmax_cross_entropy(m.forward(x), y, nullptr);
    }
  }
  LossStats total;
  double loss_sum = 0;
  for (const auto& p : parts) {
    loss_sum += p.loss * static_cast<double>(p.count);
    total.add_counts(p);
  }
  total.loss = total.count > 0 ? loss_sum / static_cast<double>(total.count) : 0.0;
  if (test.labels_per_row != 1) {  // a language model: its "classes" are the vocabulary
    total.class_correct.clear();
    total.class_count.clear();
  }
  return total;
}

void check_trainer_config(TrainerConfig& config, const Dataset& train) {
  if (config.ranks < 1) throw bad_input("ranks must be >= 1");
  if (config.global_batch < config.ranks || config.global_batch % config.ranks != 0) {
    throw bad_input("global batch " + std::to_string(config.global_batch) +
                    " must be a positive multiple of ranks " + std::to_string(config.ranks));
  }
  if (config.iterations < 0) throw bad_input("iterations must be >= 0");
  if (train.rows() == 0) throw bad_input("empty training set");
  if (config.schedule.total_iterations == 0) config.schedule.total_iterations = config.iterations;
}

TrainingLayout training_layout(const Model& model, const TrainerConfig& config,
                               const Dataset& train) {
  TrainingLayout out;
  size_t offset = 0;
  const int micro = config.global_batch / config.ranks;
  const int out_rows = micro * train.labels_per_row;
  for (size_t l = 0; l < model.num_layers(); ++l) {
    const Layer& layer = model.layer(l);
    LayerCost cost;
    // Rows seen by a layer: the model decides (e.g. a transformer sees batch*seq); approximate
    // with the labelled rows for per-position models and the batch otherwise.
    const int rows = train.labels_per_row > 1 ? out_rows : micro;
    const double weight_bytes = 2.0 * static_cast<double>(layer.num_params());  // BF16 weights
    cost.forward_s = config.compute.time(layer.forward_flops(rows), weight_bytes);
    cost.backward_s = config.compute.time(layer.backward_flops(rows, l > 0), 2 * weight_bytes);
    if (layer.num_params() > 0) {
      const int index = static_cast<int>(out.buckets.size());
      cost.bucket = index;
      out.buckets.push_back(
          BucketInfo{index, static_cast<int>(l), layer.name(), offset, layer.num_params()});
      offset += layer.num_params();
    }
    out.layer_costs.push_back(cost);
  }
  return out;
}

BucketSample bucket_sample(const BucketInfo& bucket, ReduceReport& rep) {
  BucketSample bs;
  bs.name = bucket.name;
  bs.elements = bucket.size;
  bs.ratio =
      rep.reference_bytes ? static_cast<double>(rep.bytes_on_wire) / rep.reference_bytes : 1.0;
  bs.effective_bits = rep.effective_bits();
  bs.dropped_contributions = rep.skipped_contributions;
  bs.trimmed_packets = rep.trimmed_packets;
  bs.nmse = rep.nmse;
  bs.plane_entropy = std::move(rep.plane_entropy);
  return bs;
}

void finish_sample(Sample& s, const ReduceReport& total, const StepTiming& t, int iteration,
                   double sim_time_s) {
  s.iteration = iteration;
  s.sim_time_s = sim_time_s;
  s.bytes_on_wire = total.bytes_on_wire;
  set_step_timing(s, t);
  s.skipped_contributions = total.skipped_contributions;
  s.trimmed_packets = total.trimmed_packets;
  s.nmse = total.nmse;
  s.ratio = total.reference_bytes ? static_cast<double>(total.bytes_on_wire) / total.reference_bytes
                                  : 1.0;
  s.effective_bits = total.effective_bits();
}

EvalSchedule eval_schedule(const TrainerConfig& config) {
  EvalCadence c;
  c.every = config.eval_every;
  c.far_every = config.eval_every_far;
  c.fine_from = config.eval_fine_from;
  c.fine_until = config.eval_fine_until;
  c.window = config.eval_window;
  return EvalSchedule(c, config.iterations);
}

double gradient_norm(const Model& model, const std::vector<BucketInfo>& buckets) {
  double norm2 = 0;
  for (const auto& b : buckets)
    for (float g : model.layer(b.layer).grads()) norm2 += static_cast<double>(g) * g;
  return std::sqrt(norm2);
}

DataParallelTrainer::DataParallelTrainer(Model prototype, const Dataset& train, const Dataset& test,
                                         TrainerConfig config, GradientReducer& reducer)
    : train_(train), test_(test), config_(config), reducer_(reducer), progress_(config, {}) {
  check_trainer_config(config_, train_);
  prototype.init(config_.seed);
  TrainingLayout layout = training_layout(prototype, config_, train_);
  buckets_ = std::move(layout.buckets);
  progress_ = TrainingProgress(config_, std::move(layout.layer_costs));
  replicas_.assign(config_.ranks, prototype);
  optimizers_.assign(config_.ranks, Optimizer(config_.optimizer));
  batch_x_.resize(config_.ranks);
  batch_y_.resize(config_.ranks);
  sampler_.emplace(
      train_, SamplerConfig{config_.ranks, config_.global_batch, config_.seed, config_.sharding});
  eval_index_ = eval_subset(test_.rows(), config_.eval_rows, config_.seed);
}

void DataParallelTrainer::continue_from(const DataParallelTrainer& parent) {
  if (parent.config_.ranks != config_.ranks)
    throw bad_input("a fork keeps the parent's ranks (training.ranks)");
  const Model& mine = replicas_.front();
  const Model& theirs = parent.replicas_.front();
  bool same_shape = mine.num_layers() == theirs.num_layers();
  for (size_t l = 0; same_shape && l < mine.num_layers(); ++l)
    same_shape = mine.layer(l).params().size() == theirs.layer(l).params().size();
  if (!same_shape) throw bad_input("a fork keeps the parent's model (workload.*)");
  replicas_ = parent.replicas_;
  for (int r = 0; r < config_.ranks; ++r) optimizers_[r].continue_from(parent.optimizers_[r]);
  progress_.continue_from(parent.progress_);
}

void set_step_timing(Sample& s, const StepTiming& t) {
  s.compute_time_s = t.compute_s;
  s.comm_time_s = t.comm_exposed_s;
  s.codec_time_s = t.codec_exposed_s;
  s.comm_total_s = t.comm_total_s;
  s.codec_total_s = t.codec_total_s;
}

Sample DataParallelTrainer::step() {
  const auto wall_start = std::chrono::steady_clock::now();
  const int ranks = config_.ranks;
  const int micro = config_.global_batch / ranks;
  const int iteration = progress_.iteration();
  sampler_->global_batch(iteration, index_);
  std::vector<double> losses(ranks);
  // Each rank's work is sequential and self-contained, so the thread count never changes results.
#pragma omp parallel for schedule(static, 1) num_threads(thread_count(config_.threads))
  for (int r = 0; r < ranks; ++r) {
    gather_batch(train_, std::span<const int32_t>(index_).subspan(r * micro, micro), batch_x_[r],
                 batch_y_[r]);
    losses[r] = replicas_[r].forward_backward(batch_x_[r], batch_y_[r]).loss;
  }
  Sample s;
  for (double l : losses) s.train_loss += l;
  s.train_loss /= ranks;

  const StepReports reports = reduce_buckets(
      reducer_, iteration, buckets_, ranks,
      [&](const BucketInfo& b, std::vector<std::span<float>>& grads) {
        for (int r = 0; r < ranks; ++r) grads[r] = replicas_[r].layer(b.layer).grads();
      },
      s);
  s.grad_norm = gradient_norm(replicas_[0], buckets_);
  s.lr = learning_rate(config_.optimizer, config_.schedule, iteration);
#pragma omp parallel for schedule(static, 1) num_threads(thread_count(config_.threads))
  for (int r = 0; r < ranks; ++r) optimizers_[r].step(replicas_[r], s.lr);

  progress_.close_iteration(s, reports);
  s.divergence = divergence();
  if (progress_.evaluation_due()) progress_.record_evaluation(s, evaluate(0));
  progress_.add_wall_time(
      s, std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
  return s;
}

Sample DataParallelTrainer::run(const SampleObserver& observer, const std::atomic<bool>* cancel) {
  Sample last;
  while (progress_.iteration() < config_.iterations) {
    if (cancel && cancel->load(std::memory_order_relaxed)) break;
    last = step();
    if (observer) observer(last);
  }
  return last;
}

LossStats DataParallelTrainer::evaluate(int rank) {
  return evaluate_rows(replicas_[rank], test_, eval_index_, config_.threads);
}

double DataParallelTrainer::divergence() const {
  double reference2 = 0;
  for (const auto& b : buckets_) {
    for (float p : replicas_[0].layer(b.layer).params()) reference2 += static_cast<double>(p) * p;
  }
  std::vector<double> distance2(config_.ranks);
  for (int r = 1; r < config_.ranks; ++r) {
    for (const auto& b : buckets_) {
      auto p0 = replicas_[0].layer(b.layer).params();
      auto pr = replicas_[r].layer(b.layer).params();
      for (size_t i = 0; i < p0.size(); ++i) {
        const double e = static_cast<double>(pr[i]) - p0[i];
        distance2[r] += e * e;
      }
    }
  }
  return relative_divergence(distance2, reference2);
}

}  // namespace commlab
