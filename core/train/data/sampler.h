#pragma once
// Which training rows each data-parallel rank sees (training.sharding) and which test rows an
// evaluation uses (training.eval_rows). Every choice is a pure function of the seed (counter RNG),
// so DataParallelTrainer and the real-MPI RankTrainer draw the same rows from this one code.
//
// Sharding modes (N ranks, micro = global_batch / N rows per rank and iteration):
// - random: one permutation of the training set per epoch (CounterRng(seed, kDataOrder, 0, epoch));
//   global sample position p is perm(p / n)[p % n] and rank r takes rows [r*micro, (r+1)*micro)
//   of the iteration's global batch. The global batch sequence does not depend on N.
// - shard: PyTorch's DistributedSampler with drop_last. Epoch e permutes all n rows with the same
//   stream as random; rank r owns positions r, r+N, r+2N, ... (strided) of it, floor(n/N) each;
//   iteration t of the epoch takes entries [t*micro, (t+1)*micro) of the rank's list. An epoch is
//   floor(floor(n/N) / micro) iterations, so within an epoch every row goes to at most one rank.
// - non-iid: label-skewed fixed shards. For each class c, proportions over the N ranks are drawn
//   from Dirichlet(alpha) (CounterRng(seed, kSharding, 0, c)) and c's rows are split by them
//   (largest-remainder rounding, so the counts sum exactly). Each rank reshuffles its own shard
//   every pass over it (CounterRng(seed, kSharding, r + 1, pass)) and cycles through it; a shard
//   smaller than micro repeats rows. Large alpha: near iid; alpha 0.1: each rank sees mostly one
//   or two classes.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "numeric/rng.h"
#include "train/dataset.h"

namespace commlab {

enum class ShardingMode { kRandom, kShard, kNonIid };

struct Sharding {
  ShardingMode mode = ShardingMode::kRandom;
  double alpha = 0.5;  // non-iid: Dirichlet concentration of each class over the ranks (> 0)
};

// "random" | "shard" | "non-iid"; throws std::invalid_argument naming training.sharding.
ShardingMode parse_sharding_mode(const std::string& name);
const char* sharding_mode_name(ShardingMode mode);

struct SamplerConfig {
  int ranks = 1;
  int global_batch = 1;  // a positive multiple of ranks
  uint64_t seed = 1;
  Sharding sharding;
};

// Not thread-safe (it caches the current epoch's permutations): call it from one thread.
class ShardSampler {
 public:
  // `labels` holds one class label per row; only non-iid reads it (may be empty otherwise).
  // Throws std::invalid_argument for a bad config, a shard mode with fewer rows per rank than a
  // micro-batch, or a non-iid rank left without rows.
  ShardSampler(int rows, std::span<const int32_t> labels, SamplerConfig config);
  // From a data set (non-iid needs one label per row: a classification set).
  ShardSampler(const Dataset& train, SamplerConfig config);

  // Rank `rank`'s micro-batch rows at `iteration` (0-based); out gets micro entries.
  void rank_batch(int iteration, int rank, std::vector<int32_t>& out);
  // Every rank's micro-batch, rank after rank (global_batch entries).
  void global_batch(int iteration, std::vector<int32_t>& out);

  int micro() const { return micro_; }
  // shard: iterations per epoch; random and non-iid: 0 (no common epoch).
  int64_t iterations_per_epoch() const { return per_epoch_; }
  // non-iid: rank r's fixed rows (ascending class, then drawn order); empty otherwise.
  const std::vector<int32_t>& shard(int rank) const { return shards_[rank]; }

 private:
  // A permutation cached for its epoch.
  struct Order {
    std::vector<int32_t> perm;
    int64_t epoch = -1;
  };
  const std::vector<int32_t>& global_order(int64_t epoch);
  const std::vector<int32_t>& shard_order(int rank, int64_t pass);
  void build_non_iid_shards(std::span<const int32_t> labels);

  int64_t rows_;
  SamplerConfig config_;
  int micro_;
  int64_t per_epoch_ = 0;
  Order global_;
  std::vector<std::vector<int32_t>> shards_;  // non-iid
  std::vector<Order> shard_orders_;           // non-iid, one per rank
};

// Fisher-Yates over v with draw i deciding position i (the data-order shuffle of every mode).
void shuffle_rows(std::vector<int32_t>& v, const CounterRng& rng);

// Dirichlet(alpha, ..., alpha) over k entries from one counter stream: Gamma(alpha, 1) draws
// (Marsaglia-Tsang; alpha < 1 via Gamma(alpha + 1) * U^(1/alpha)) normalised in log space, so
// tiny alphas do not underflow to an all-zero vector. Sums to 1.
std::vector<double> dirichlet(double alpha, int k, const CounterRng& rng);

// The test rows an evaluation uses: every row when eval_rows is 0 or at least test_rows;
// otherwise eval_rows distinct rows drawn once from CounterRng(seed, kEvalSubset), ascending. The
// same subset for every evaluation of a run and for every run with this seed (paired comparisons
// stay paired), and not the first rows of the file, which are easier than the rest.
std::vector<int32_t> eval_subset(int test_rows, int eval_rows, uint64_t seed);

// A validation split carved from the training set (training.validation_rows): `validation` holds
// validation_rows distinct rows of the training set drawn once from
// CounterRng(kValidationSplitSeed, kValidationSplit), ascending, the same in every run and seed
// (so every run trains on the same rows and one copy serves them all); `train` holds the other
// rows, ascending. Disjoint, and together every row once. Throws std::invalid_argument naming
// training.validation_rows unless 0 < validation_rows < train_rows.
inline constexpr uint64_t kValidationSplitSeed = 0x76616c6964;  // "valid"
struct ValidationSplit {
  std::vector<int32_t> train;
  std::vector<int32_t> validation;
};
ValidationSplit validation_split(int train_rows, int validation_rows);

// The rows `index` of a data set as a data set of their own (same name, classes, labels per row).
Dataset select_rows(const Dataset& d, const std::vector<int32_t>& index);

}  // namespace commlab
