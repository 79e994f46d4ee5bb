#include "train/data/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "io/status.h"

namespace commlab {
namespace {

std::string str(int64_t v) {
  return std::to_string(v);
}

// log of a Gamma(alpha, 1) draw (Marsaglia and Tsang 2000). For alpha < 1 the boost
// Gamma(alpha) = Gamma(alpha + 1) * U^(1/alpha), kept in log space: U^(1/alpha) underflows for
// small alpha.
double log_gamma_draw(double alpha, StreamRng& rng) {
  const double boost = alpha < 1 ? std::log(1.0 - rng.uniform()) / alpha : 0.0;  // U in (0, 1]
  const double d = (alpha < 1 ? alpha + 1 : alpha) - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = rng.normal();
    const double t = 1.0 + c * x;
    if (t <= 0) continue;
    const double v = t * t * t;
    const double u = 1.0 - rng.uniform();  // (0, 1]
    if (u < 1.0 - 0.0331 * x * x * x * x ||
        std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) {
      return std::log(d * v) + boost;
    }
  }
}

// Largest-remainder rounding of m * p (p sums to 1): counts that sum to m exactly; ties go to
// the lower index.
std::vector<int64_t> apportion(int64_t m, const std::vector<double>& p) {
  const size_t k = p.size();
  std::vector<int64_t> count(k);
  std::vector<double> frac(k);
  int64_t given = 0;
  for (size_t i = 0; i < k; ++i) {
    const double q = p[i] * static_cast<double>(m);
    count[i] = std::min<int64_t>(m, static_cast<int64_t>(std::floor(q)));
    frac[i] = q - static_cast<double>(count[i]);
    given += count[i];
  }
  std::vector<size_t> order(k);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return frac[a] > frac[b]; });
  // The floors sum to at most floor(sum of quotas) = m, so only increments are needed.
  for (size_t j = 0; given < m; j = (j + 1) % k, ++given) ++count[order[j]];
  return count;
}

std::vector<int32_t> row_labels(const Dataset& d, ShardingMode mode) {
  if (mode != ShardingMode::kNonIid) return {};
  if (d.labels_per_row != 1)
    throw bad_input(
        "training.sharding: non-iid splits classes over the ranks and needs one label per row (a "
        "classification data set); data set '" +
        d.name + "' has " + str(d.labels_per_row) + " per row");
  return d.y;
}

}  // namespace

ShardingMode parse_sharding_mode(const std::string& name) {
  if (name == "random") return ShardingMode::kRandom;
  if (name == "shard") return ShardingMode::kShard;
  if (name == "non-iid") return ShardingMode::kNonIid;
  throw bad_input("training.sharding: expected random, shard or non-iid, got '" + name + "'");
}

const char* sharding_mode_name(ShardingMode mode) {
  switch (mode) {
    case ShardingMode::kShard: return "shard";
    case ShardingMode::kNonIid: return "non-iid";
    case ShardingMode::kRandom: break;
  }
  return "random";
}

void shuffle_rows(std::vector<int32_t>& v, const CounterRng& rng) {
  for (int64_t i = static_cast<int64_t>(v.size()) - 1; i > 0; --i)
    std::swap(v[i], v[rng.below(static_cast<uint64_t>(i), i + 1)]);
}

std::vector<double> dirichlet(double alpha, int k, const CounterRng& rng) {
  if (!(alpha > 0) || !std::isfinite(alpha))
    throw bad_input("training.sharding_alpha must be a finite number > 0, got " +
                    std::to_string(alpha));
  StreamRng stream(rng);
  std::vector<double> p(k);
  for (double& v : p) v = log_gamma_draw(alpha, stream);
  const double top = k > 0 ? *std::max_element(p.begin(), p.end()) : 0.0;
  double sum = 0;
  for (double& v : p) sum += (v = std::exp(v - top));
  for (double& v : p) v /= sum;
  return p;
}

std::vector<int32_t> eval_subset(int test_rows, int eval_rows, uint64_t seed) {
  std::vector<int32_t> rows(std::max(test_rows, 0));
  std::iota(rows.begin(), rows.end(), 0);
  if (eval_rows <= 0 || eval_rows >= test_rows) return rows;
  // Partial Fisher-Yates: position i takes a uniform pick of the rows not chosen yet.
  const CounterRng rng(seed, Purpose::kEvalSubset);
  for (int i = 0; i < eval_rows; ++i) {
    const auto j = i + static_cast<int64_t>(rng.below(static_cast<uint64_t>(i),
                                                      static_cast<uint64_t>(test_rows - i)));
    std::swap(rows[i], rows[j]);
  }
  rows.resize(eval_rows);
  std::sort(rows.begin(), rows.end());
  return rows;
}

ValidationSplit validation_split(int train_rows, int validation_rows) {
  if (validation_rows <= 0 || validation_rows >= train_rows)
    throw bad_input("training.validation_rows must be between 1 and the training rows - 1 (" +
                    std::to_string(train_rows - 1) + "), got " + std::to_string(validation_rows));
  ValidationSplit split;
  // Partial Fisher-Yates as in eval_subset, from its own stream: the first validation_rows
  // positions are the validation rows, the rest train.
  std::vector<int32_t> rows(static_cast<size_t>(train_rows));
  std::iota(rows.begin(), rows.end(), 0);
  const CounterRng rng(kValidationSplitSeed, Purpose::kValidationSplit);
  for (int i = 0; i < validation_rows; ++i) {
    const auto j = i + static_cast<int64_t>(rng.below(static_cast<uint64_t>(i),
                                                      static_cast<uint64_t>(train_rows - i)));
    std::swap(rows[i], rows[j]);
  }
  split.validation.assign(rows.begin(), rows.begin() + validation_rows);
  split.train.assign(rows.begin() + validation_rows, rows.end());
  std::sort(split.validation.begin(), split.validation.end());
  std::sort(split.train.begin(), split.train.end());
  return split;
}

Dataset select_rows(const Dataset& d, const std::vector<int32_t>& index) {
  Dataset out;
  out.name = d.name;
  out.num_classes = d.num_classes;
  out.labels_per_row = d.labels_per_row;
  gather_batch(d, index, out.x, out.y);
  return out;
}

ShardSampler::ShardSampler(const Dataset& train, SamplerConfig config)
    : ShardSampler(train.rows(), row_labels(train, config.sharding.mode), config) {}

ShardSampler::ShardSampler(int rows, std::span<const int32_t> labels, SamplerConfig config)
    : rows_(rows), config_(config), micro_(0) {
  const int n_ranks = config_.ranks;
  if (n_ranks < 1) throw bad_input("ranks must be >= 1");
  if (config_.global_batch < n_ranks || config_.global_batch % n_ranks != 0)
    throw bad_input("global batch " + str(config_.global_batch) +
                    " must be a positive multiple of ranks " + str(n_ranks));
  if (rows_ <= 0) throw bad_input("empty training set");
  micro_ = config_.global_batch / n_ranks;
  shards_.resize(n_ranks);
  if (config_.sharding.mode == ShardingMode::kShard) {
    const int64_t per_rank = rows_ / n_ranks;
    per_epoch_ = per_rank / micro_;
    if (per_epoch_ == 0)
      throw bad_input("training.sharding shard: " + str(rows_) + " training rows over " +
                      str(n_ranks) + " ranks leave " + str(per_rank) +
                      " per rank, less than one micro-batch of " + str(micro_) +
                      " (training.global_batch / training.ranks); use more rows (workload."
                      "max_train), fewer ranks or a smaller batch");
  } else if (config_.sharding.mode == ShardingMode::kNonIid) {
    build_non_iid_shards(labels);
  }
}

void ShardSampler::build_non_iid_shards(std::span<const int32_t> labels) {
  const int n_ranks = config_.ranks;
  if (static_cast<int64_t>(labels.size()) != rows_)
    throw bad_input("training.sharding non-iid: " + str(labels.size()) + " labels for " +
                    str(rows_) + " rows (one label per row)");
  int32_t classes = 0;
  for (int32_t y : labels) {
    if (y < 0) throw bad_input("training.sharding non-iid: negative label");
    classes = std::max(classes, y + 1);
  }
  std::vector<std::vector<int32_t>> by_class(classes);
  for (int64_t i = 0; i < rows_; ++i) by_class[labels[i]].push_back(static_cast<int32_t>(i));
  for (int32_t c = 0; c < classes; ++c) {
    std::vector<int32_t>& members = by_class[c];
    if (members.empty()) continue;
    const CounterRng base(config_.seed, Purpose::kSharding, 0, static_cast<uint64_t>(c));
    const std::vector<int64_t> count =
        apportion(static_cast<int64_t>(members.size()),
                  dirichlet(config_.sharding.alpha, n_ranks, base.sub(0)));
    shuffle_rows(members, base.sub(1));
    size_t at = 0;
    for (int r = 0; r < n_ranks; ++r) {
      shards_[r].insert(shards_[r].end(), members.begin() + at, members.begin() + at + count[r]);
      at += count[r];
    }
  }
  for (int r = 0; r < n_ranks; ++r) {
    if (shards_[r].empty())
      throw bad_input("training.sharding_alpha " + std::to_string(config_.sharding.alpha) +
                      ": rank " + str(r) + " of " + str(n_ranks) +
                      " got no training rows from the non-iid split of " + str(rows_) +
                      " rows; use a larger training.sharding_alpha or fewer ranks");
  }
  shard_orders_.resize(n_ranks);
}

const std::vector<int32_t>& ShardSampler::global_order(int64_t epoch) {
  if (global_.epoch != epoch) {
    global_.perm.resize(rows_);
    std::iota(global_.perm.begin(), global_.perm.end(), 0);
    shuffle_rows(global_.perm,
                 CounterRng(config_.seed, Purpose::kDataOrder, 0, static_cast<uint64_t>(epoch)));
    global_.epoch = epoch;
  }
  return global_.perm;
}

const std::vector<int32_t>& ShardSampler::shard_order(int rank, int64_t pass) {
  Order& o = shard_orders_[rank];
  if (o.epoch != pass) {
    o.perm = shards_[rank];
    shuffle_rows(o.perm, CounterRng(config_.seed, Purpose::kSharding,
                                    static_cast<uint64_t>(rank) + 1, static_cast<uint64_t>(pass)));
    o.epoch = pass;
  }
  return o.perm;
}

void ShardSampler::rank_batch(int iteration, int rank, std::vector<int32_t>& out) {
  if (rank < 0 || rank >= config_.ranks)
    throw std::out_of_range("rank " + str(rank) + " of " + str(config_.ranks));
  const int64_t n = rows_, m = micro_, it = iteration, ranks = config_.ranks;
  out.resize(m);
  switch (config_.sharding.mode) {
    case ShardingMode::kRandom:
      for (int64_t k = 0; k < m; ++k) {
        const int64_t p = it * m * ranks + rank * m + k;
        out[k] = global_order(p / n)[p % n];
      }
      return;
    case ShardingMode::kShard: {
      const std::vector<int32_t>& perm = global_order(it / per_epoch_);
      const int64_t first = (it % per_epoch_) * m;
      for (int64_t k = 0; k < m; ++k) out[k] = perm[rank + ranks * (first + k)];
      return;
    }
    case ShardingMode::kNonIid: {
      const int64_t size = static_cast<int64_t>(shards_[rank].size());
      for (int64_t k = 0; k < m; ++k) {
        const int64_t p = it * m + k;
        out[k] = shard_order(rank, p / size)[p % size];
      }
      return;
    }
  }
}

void ShardSampler::global_batch(int iteration, std::vector<int32_t>& out) {
  out.resize(static_cast<size_t>(config_.global_batch));
  std::vector<int32_t> part;
  for (int r = 0; r < config_.ranks; ++r) {
    rank_batch(iteration, r, part);
    std::copy(part.begin(), part.end(), out.begin() + static_cast<int64_t>(r) * micro_);
  }
}

}  // namespace commlab
