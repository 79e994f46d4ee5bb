#include "exec/runs/rank_trainer.h"

#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "io/status.h"

#if COMMLAB_HAVE_MPI
#include "exec/mpi_detail.h"
#endif

namespace commlab::exec {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Hash of a received bucket, to compare it with the shadow's copy without sending it.
uint64_t hash_floats(std::span<const float> v) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ v.size();
  for (float x : v) {
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    h = (h ^ bits) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
}

int checked_count(size_t n) {
  if (n > static_cast<size_t>(INT_MAX))
    throw std::logic_error("rank trainer: a bucket of " + std::to_string(n) +
                           " elements is more than one MPI message holds");
  return static_cast<int>(n);
}

// Rank 0 receives every rank's `mine` back to back (rank-major); the others send.
void gather_floats(const MpiRuntime& rt, std::span<const float> mine, std::vector<float>& all) {
#if COMMLAB_HAVE_MPI
  if (rt.root()) all.resize(mine.size() * static_cast<size_t>(rt.size()));
  const int n = checked_count(mine.size());
  MPI_Request req;
  MPI_Igather(mine.data(), n, MPI_FLOAT, rt.root() ? all.data() : nullptr, n, MPI_FLOAT, 0,
              world(rt), &req);
  wait_one(rt, req, "gathering a gradient bucket for the simulator's shadow");
#else
  (void)rt;
  all.assign(mine.begin(), mine.end());
#endif
}

void broadcast_floats(const MpiRuntime& rt, std::vector<float>& v) {
#if COMMLAB_HAVE_MPI
  MPI_Request req;
  MPI_Ibcast(v.data(), checked_count(v.size()), MPI_FLOAT, 0, world(rt), &req);
  wait_one(rt, req, "broadcasting rank 0's parameters (divergence)");
#else
  (void)rt;
  (void)v;
#endif
}

std::vector<uint64_t> gather_u64(const MpiRuntime& rt, const std::vector<uint64_t>& mine) {
  std::vector<uint64_t> all(rt.root() ? mine.size() * rt.size() : 0);
#if COMMLAB_HAVE_MPI
  MPI_Request req;
  MPI_Igather(mine.data(), checked_count(mine.size()), MPI_UINT64_T, all.data(),
              checked_count(mine.size()), MPI_UINT64_T, 0, world(rt), &req);
  wait_one(rt, req, "gathering the received buckets' hashes");
#else
  all = mine;
#endif
  return all;
}

}  // namespace

RankTrainer::RankTrainer(const MpiRuntime& rt, Model prototype, const Dataset& train,
                         const Dataset& test, TrainerConfig config, BucketCollective& collective,
                         GradientReducer* shadow)
    : rt_(rt),
      train_(train),
      test_(test),
      config_(config),
      collective_(collective),
      shadow_(shadow),
      executor_(rt),
      optimizer_(config.optimizer),
      progress_(config, {}) {
  if (config_.ranks != rt.size())
    throw bad_input("training.ranks: " + std::to_string(config_.ranks) +
                    " ranks, but mpirun started " + std::to_string(rt.size()) +
                    " processes (one process per rank: mpirun -np " +
                    std::to_string(config_.ranks) +
                    ", or --set training.ranks=" + std::to_string(rt.size()) + ")");
  if (rt.root() && !shadow_) throw std::logic_error("rank trainer: rank 0 needs the shadow");
  check_trainer_config(config_, train_);
  prototype.init(config_.seed);
  TrainingLayout layout = training_layout(prototype, config_, train_);
  buckets_ = std::move(layout.buckets);
  progress_ = TrainingProgress(config_, std::move(layout.layer_costs));
  replica_ = std::move(prototype);
  gathered_.resize(buckets_.size());
  const CompressionSpec spec = collective_.compression();
  if (spec.kind != CompressionSpec::Kind::kNone) compressor_.emplace(spec, rt.rank(), rt.size());
  // The rows DataParallelTrainer draws (one sampler for both), this rank's share only.
  sampler_.emplace(
      train_, SamplerConfig{config_.ranks, config_.global_batch, config_.seed, config_.sharding});
  eval_index_ = eval_subset(test_.rows(), config_.eval_rows, config_.seed);
}

RankTrainer::~RankTrainer() = default;

Sample RankTrainer::step() {
  const auto wall_start = Clock::now();
  const int ranks = config_.ranks, me = rt_.rank();
  const int iteration = progress_.iteration();
  auto t0 = Clock::now();
  sampler_->rank_batch(iteration, me, index_);
  gather_batch(train_, index_, batch_x_, batch_y_);
  const double loss = replica_.forward_backward(batch_x_, batch_y_).loss;
  measured_.compute_s += seconds_since(t0);
  const std::vector<double> losses = rt_.gather(loss);
  Sample s;
  for (double l : losses) s.train_loss += l;  // rank order, as the simulated trainer sums
  s.train_loss /= ranks;

  // The real collectives, in readiness order (last layer first). Each bucket first goes to rank
  // 0 as it is, for the shadow: untimed, and it lines the ranks up before the timed collective.
  const size_t nb = buckets_.size();
  std::vector<uint64_t> received(nb);
  for (size_t bi = nb; bi-- > 0;) {
    const BucketInfo& b = buckets_[bi];
    std::span<float> g = replica_.layer(b.layer).grads();
    gather_floats(rt_, g, gathered_[bi]);
    const MpiCollectiveReport rep =
        compressor_ ? compressor_->exchange(iteration, b, g, executor_, collective_)
                    : all_reduce_average(b, g);
    measured_.comm_s += rep.time_s - rep.codec_s;
    measured_.codec_s += rep.codec_s;
    measured_.bytes_sent += rep.bytes_sent;
    received[bi] = hash_floats(g);
  }
  const std::vector<uint64_t> hashes = gather_u64(rt_, received);

  // Rank 0: the simulated reducer on the same inputs gives the time plane and the reports, and
  // what it gives each rank is compared with what that process received.
  StepReports reports;
  if (rt_.root()) {
    reports = reduce_buckets(
        *shadow_, iteration, buckets_, ranks,
        [&](const BucketInfo& b, std::vector<std::span<float>>& grads) {
          for (int r = 0; r < ranks; ++r)
            grads[r] = std::span<float>(gathered_[b.index])
                           .subspan(static_cast<size_t>(r) * b.size, b.size);
        },
        s,
        [&](const BucketInfo& b, const std::vector<std::span<float>>& got) {
          for (int r = 0; r < ranks; ++r)
            mismatched_ += hash_floats(got[r]) != hashes[static_cast<size_t>(r) * nb + b.index];
        });
    s.grad_norm = gradient_norm(replica_, buckets_);
  } else {
    reports.comm_s.assign(nb, 0.0);
    reports.codec_s.assign(nb, 0.0);
  }
  s.lr = learning_rate(config_.optimizer, config_.schedule, iteration);
  t0 = Clock::now();
  optimizer_.step(replica_, s.lr);
  measured_.compute_s += seconds_since(t0);

  progress_.close_iteration(s, reports);
  s.divergence = divergence();
  if (rt_.root() && progress_.evaluation_due()) progress_.record_evaluation(s, evaluate());
  const double wall = seconds_since(wall_start);
  measured_.wall_s += wall;
  progress_.add_wall_time(s, wall);
  return s;
}

MpiCollectiveReport RankTrainer::all_reduce_average(const BucketInfo& b, std::span<float> g) {
  MpiExecOptions options;
  options.codec = collective_.codec();
  options.iteration = static_cast<uint64_t>(progress_.iteration());
  options.bucket = b.index;
  options.trim_rate = collective_.trim_rate();
  options.trim_seed = collective_.trim_seed();
  const MpiCollectiveReport rep =
      executor_.run(collective_.plan(progress_.iteration(), b), g, options);
  scale_by_inverse(g, config_.ranks);  // DDP divides the sum by N (as CollectiveReducer)
  return rep;
}

// DataParallelTrainer::evaluate on this replica: the same rows, chunks and summation order.
LossStats RankTrainer::evaluate() {
  return evaluate_rows(replica_, test_, eval_index_, config_.threads);
}

// DataParallelTrainer::divergence: rank 0's parameters go to every rank, each computes its
// distance with the same loop, rank 0 takes the worst.
double RankTrainer::divergence() {
  if (config_.ranks == 1) return 0;
  std::vector<float> p0;
  size_t total = 0;
  for (const auto& b : buckets_) total += b.size;
  p0.resize(total);
  if (rt_.root()) {
    size_t at = 0;
    for (const auto& b : buckets_)
      for (float p : replica_.layer(b.layer).params()) p0[at++] = p;
  }
  broadcast_floats(rt_, p0);
  double d = 0;
  size_t at = 0;
  for (const auto& b : buckets_) {
    auto pr = replica_.layer(b.layer).params();
    for (size_t i = 0; i < pr.size(); ++i) {
      const double e = static_cast<double>(pr[i]) - p0[at + i];
      d += e * e;
    }
    at += b.size;
  }
  const std::vector<double> distance2 = rt_.gather(d);
  if (!rt_.root()) return 0;
  double reference2 = 0;
  for (float p : p0) reference2 += static_cast<double>(p) * p;
  return relative_divergence(distance2, reference2);
}

}  // namespace commlab::exec
