// The rows each data-parallel rank trains on (random, shard, non-iid) and the evaluation subset.
#include "train/data/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <numeric>
#include <set>

#include "train/data/synthetic.h"
#include "train/trainer.h"

namespace commlab {
namespace {

// DataParallelTrainer::batch_indices before the sampler existed, kept verbatim as the reference
// for `random` (the golden outputs of every existing run depend on it).
std::vector<int32_t> old_batch_indices(int64_t n, int64_t b, uint64_t seed, int iteration) {
  static std::vector<int32_t> perm;
  static int64_t perm_epoch = -1;
  static uint64_t perm_seed = 0, perm_n = 0;
  if (perm_seed != seed || static_cast<int64_t>(perm_n) != n) perm_epoch = -1;
  perm_seed = seed, perm_n = static_cast<uint64_t>(n);
  std::vector<int32_t> out(b);
  for (int64_t k = 0; k < b; ++k) {
    const int64_t p = static_cast<int64_t>(iteration) * b + k;
    const int64_t epoch = p / n;
    if (epoch != perm_epoch) {
      perm.resize(n);
      std::iota(perm.begin(), perm.end(), 0);
      CounterRng rng(seed, Purpose::kDataOrder, 0, static_cast<uint64_t>(epoch));
      for (int64_t i = n - 1; i > 0; --i) {
        std::swap(perm[i], perm[rng.below(static_cast<uint64_t>(i), i + 1)]);
      }
      perm_epoch = epoch;
    }
    out[k] = perm[p % n];
  }
  return out;
}

SamplerConfig config(int ranks, int batch, uint64_t seed, ShardingMode mode, double alpha = 0.5) {
  return SamplerConfig{ranks, batch, seed, Sharding{mode, alpha}};
}

// Balanced labels: row i has class i % classes.
std::vector<int32_t> round_robin_labels(int rows, int classes) {
  std::vector<int32_t> y(rows);
  for (int i = 0; i < rows; ++i) y[i] = i % classes;
  return y;
}

TEST(ShardSampler, RandomReproducesTheOldIndexSequence) {
  for (int ranks : {1, 3, 4}) {
    const int n = 1000, batch = 12 * ranks;
    ShardSampler s(n, {}, config(ranks, batch, 7, ShardingMode::kRandom));
    std::vector<int32_t> got, rank_rows;
    // 200 iterations cross several epoch boundaries, some in the middle of a global batch.
    for (int it = 0; it < 200; ++it) {
      const std::vector<int32_t> want = old_batch_indices(n, batch, 7, it);
      s.global_batch(it, got);
      ASSERT_EQ(got, want) << "ranks " << ranks << " iteration " << it;
    }
  }
  // A few values of the old sequence, written out: seed 1, 60000 rows, batch 256.
  ShardSampler fm(60000, {}, config(8, 256, 1, ShardingMode::kRandom));
  std::vector<int32_t> got;
  fm.global_batch(0, got);
  const std::vector<int32_t> want = old_batch_indices(60000, 256, 1, 0);
  EXPECT_EQ(got, want);
  fm.global_batch(300, got);
  EXPECT_EQ(got, old_batch_indices(60000, 256, 1, 300));
}

// What the MPI rank trainer draws (its own rank only) is the simulated trainer's slice.
TEST(ShardSampler, RankBatchIsTheGlobalBatchSliceInEveryMode) {
  const std::vector<int32_t> labels = round_robin_labels(500, 5);
  for (ShardingMode mode : {ShardingMode::kRandom, ShardingMode::kShard, ShardingMode::kNonIid}) {
    ShardSampler all(500, labels, config(4, 32, 3, mode));
    std::vector<ShardSampler> one(4, ShardSampler(500, labels, config(4, 32, 3, mode)));
    std::vector<int32_t> global, mine;
    for (int it = 0; it < 40; ++it) {
      all.global_batch(it, global);
      for (int r = 0; r < 4; ++r) {
        one[r].rank_batch(it, r, mine);
        ASSERT_EQ(mine, std::vector<int32_t>(global.begin() + r * 8, global.begin() + (r + 1) * 8))
            << sharding_mode_name(mode) << " iteration " << it << " rank " << r;
      }
    }
  }
}

TEST(ShardSampler, ShardGivesEverySampleToExactlyOneRankPerEpoch) {
  // 1003 rows over 4 ranks: 250 per rank (3 dropped), 25 iterations of 10 rows each per epoch.
  const int n = 1003, ranks = 4, micro = 10;
  ShardSampler s(n, {}, config(ranks, ranks * micro, 11, ShardingMode::kShard));
  ASSERT_EQ(s.iterations_per_epoch(), 25);
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<std::vector<int32_t>> seen(ranks);
    std::vector<int32_t> rows;
    for (int it = epoch * 25; it < (epoch + 1) * 25; ++it) {
      for (int r = 0; r < ranks; ++r) {
        s.rank_batch(it, r, rows);
        seen[r].insert(seen[r].end(), rows.begin(), rows.end());
      }
    }
    std::set<int32_t> all;
    for (int r = 0; r < ranks; ++r) {
      EXPECT_EQ(seen[r].size(), 250u);
      all.insert(seen[r].begin(), seen[r].end());
    }
    // Disjoint and distinct: the union has every collected row exactly once, floor(n/N)*N of them.
    EXPECT_EQ(all.size(), 1000u) << "epoch " << epoch;
    EXPECT_GE(*all.begin(), 0);
    EXPECT_LT(*all.rbegin(), n);
  }
  // Another epoch is another split: rank 0's first batch changes.
  std::vector<int32_t> a, b;
  s.rank_batch(0, 0, a);
  s.rank_batch(25, 0, b);
  EXPECT_NE(a, b);
}

TEST(ShardSampler, ShardWithDropLastLeavesAPartialMicroBatchOut) {
  // 103 rows over 2 ranks: 51 each, 5 iterations of 10 (one row per rank unused each epoch).
  ShardSampler s(103, {}, config(2, 20, 5, ShardingMode::kShard));
  EXPECT_EQ(s.iterations_per_epoch(), 5);
  EXPECT_THROW(ShardSampler(15, {}, config(2, 20, 5, ShardingMode::kShard)), std::invalid_argument);
}

// Mean over ranks of the share of a rank's rows that its largest class (or two largest) holds.
struct Skew {
  double top1 = 0, top2 = 0;
};
Skew label_skew(const ShardSampler& s, const std::vector<int32_t>& labels, int ranks, int classes) {
  Skew k;
  for (int r = 0; r < ranks; ++r) {
    std::vector<double> count(classes);
    for (int32_t row : s.shard(r)) ++count[labels[row]];
    std::sort(count.rbegin(), count.rend());
    const double total = std::accumulate(count.begin(), count.end(), 0.0);
    k.top1 += count[0] / total / ranks;
    k.top2 += (count[0] + count[1]) / total / ranks;
  }
  return k;
}

// Each class is split over the 8 ranks by Dirichlet(alpha) proportions, so rank r's class mix is
// proportional to 10 independent Beta(alpha, 7 alpha) draws. alpha 100: each is 1/8 +- 0.012, so
// the mix is near uniform (largest share ~0.115, iid is 0.1). alpha 0.1: Beta(0.1, 0.7) is mostly
// near 0 with rare large values, so one or two classes dominate: a simulation of this split
// (4000 trials) gives a mean largest share of 0.57 (sd 0.06 for one split) and top-two 0.82. The
// mean over 4 seeds is > 0.45 (5 sd) and its top two > 0.7.
TEST(ShardSampler, NonIidShardsHaveTheRequestedLabelSkew) {
  const int rows = 6000, classes = 10, ranks = 8;
  const std::vector<int32_t> labels = round_robin_labels(rows, classes);
  Skew skewed, flat;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    ShardSampler lo(rows, labels, config(ranks, 64, seed, ShardingMode::kNonIid, 0.1));
    ShardSampler hi(rows, labels, config(ranks, 64, seed, ShardingMode::kNonIid, 100));
    for (const ShardSampler* s : {&lo, &hi}) {
      // The shards partition the training set.
      std::vector<int32_t> all;
      for (int r = 0; r < ranks; ++r) all.insert(all.end(), s->shard(r).begin(), s->shard(r).end());
      std::sort(all.begin(), all.end());
      std::vector<int32_t> every(rows);
      std::iota(every.begin(), every.end(), 0);
      EXPECT_EQ(all, every);
    }
    const Skew a = label_skew(lo, labels, ranks, classes),
               b = label_skew(hi, labels, ranks, classes);
    skewed.top1 += a.top1 / 4, skewed.top2 += a.top2 / 4;
    flat.top1 += b.top1 / 4;
    EXPECT_LT(b.top1, 0.2) << "seed " << seed;
  }
  EXPECT_GT(skewed.top1, 0.45);
  EXPECT_GT(skewed.top2, 0.7);
  EXPECT_LT(flat.top1, 0.2);
}

TEST(ShardSampler, NonIidRanksCycleThroughTheirOwnShard) {
  const std::vector<int32_t> labels = round_robin_labels(400, 4);
  ShardSampler s(400, labels, config(4, 16, 9, ShardingMode::kNonIid, 0.3));
  std::vector<int32_t> rows;
  for (int r = 0; r < 4; ++r) {
    std::vector<int32_t> stream, sorted_shard = s.shard(r);
    std::sort(sorted_shard.begin(), sorted_shard.end());
    const int size = static_cast<int>(sorted_shard.size());
    // The rank's rows are one stream (iteration after iteration): its first 3 x size entries are
    // three whole passes over the shard, each a permutation of it.
    for (int it = 0; static_cast<int>(stream.size()) < 3 * size; ++it) {
      s.rank_batch(it, r, rows);
      stream.insert(stream.end(), rows.begin(), rows.end());
    }
    for (int pass = 0; pass < 3; ++pass) {
      std::vector<int32_t> p(stream.begin() + pass * size, stream.begin() + (pass + 1) * size);
      std::sort(p.begin(), p.end());
      EXPECT_EQ(p, sorted_shard) << "rank " << r << " pass " << pass;
    }
    // Each pass reshuffles.
    if (size > 3)
      EXPECT_FALSE(std::equal(stream.begin(), stream.begin() + size, stream.begin() + size));
  }
  // A shard smaller than the micro-batch repeats its rows: 6 rows over 2 ranks, 8 rows per rank.
  ShardSampler tiny(6, round_robin_labels(6, 2), config(2, 16, 1, ShardingMode::kNonIid, 100));
  for (int r = 0; r < 2; ++r) {
    tiny.rank_batch(0, r, rows);
    ASSERT_EQ(rows.size(), 8u);
    for (int32_t row : rows)
      EXPECT_NE(std::find(tiny.shard(r).begin(), tiny.shard(r).end(), row), tiny.shard(r).end());
  }
}

TEST(ShardSampler, NonIidEmptyShardNamesTheAlpha) {
  // 2 rows of one class over 8 ranks: at least 6 ranks get nothing.
  const std::vector<int32_t> labels = {0, 0};
  try {
    ShardSampler s(2, labels, config(8, 8, 1, ShardingMode::kNonIid, 0.5));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("training.sharding_alpha"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fewer ranks"), std::string::npos) << e.what();
  }
}

TEST(ShardSampler, NonIidNeedsOneLabelPerRow) {
  Dataset text;
  text.x = Matrix::Zero(4, 3);
  text.y.assign(12, 0);
  text.labels_per_row = 3;
  EXPECT_THROW(ShardSampler(text, config(2, 2, 1, ShardingMode::kNonIid)), std::invalid_argument);
  EXPECT_NO_THROW(ShardSampler(text, config(2, 2, 1, ShardingMode::kShard)));
}

TEST(ShardSampler, DirichletSumsToOneAndTinyAlphaDoesNotUnderflow) {
  for (double alpha : {1e-3, 0.1, 1.0, 50.0}) {
    const std::vector<double> p = dirichlet(alpha, 8, CounterRng(3, Purpose::kSharding));
    EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-12) << alpha;
    for (double v : p) EXPECT_TRUE(v >= 0 && v <= 1) << alpha;
  }
  // Mean of each coordinate is 1/k: average over many draws.
  double first = 0;
  for (uint64_t i = 0; i < 4000; ++i)
    first += dirichlet(0.5, 4, CounterRng(i, Purpose::kSharding))[0];
  EXPECT_NEAR(first / 4000, 0.25, 0.02);
  EXPECT_THROW(dirichlet(0, 4, CounterRng(1)), std::invalid_argument);
}

TEST(ValidationSplit, DisjointFromTrainingAndEveryRowOnce) {
  const ValidationSplit s = validation_split(10000, 1500);
  ASSERT_EQ(s.validation.size(), 1500u);
  ASSERT_EQ(s.train.size(), 8500u);
  EXPECT_TRUE(std::is_sorted(s.validation.begin(), s.validation.end()));
  EXPECT_TRUE(std::is_sorted(s.train.begin(), s.train.end()));
  // Disjoint: no validation row is a training row; together 1500 + 8500 = 10000 distinct rows,
  // i.e. every row of 0..9999 exactly once.
  std::vector<int32_t> both;
  std::set_intersection(s.validation.begin(), s.validation.end(), s.train.begin(), s.train.end(),
                        std::back_inserter(both));
  EXPECT_TRUE(both.empty());
  std::set<int32_t> all(s.validation.begin(), s.validation.end());
  all.insert(s.train.begin(), s.train.end());
  EXPECT_EQ(all.size(), 10000u);
  EXPECT_EQ(*all.begin(), 0);
  EXPECT_EQ(*all.rbegin(), 9999);
  // Drawn from the whole set, not its head: the last fifth holds about 1500 / 5 = 300 of them.
  EXPECT_GT(
      std::count_if(s.validation.begin(), s.validation.end(), [](int32_t r) { return r >= 8000; }),
      200);
  // The same split every time (it does not depend on a run's seed).
  EXPECT_EQ(validation_split(10000, 1500).validation, s.validation);
  // 0, the whole set or more: refused, naming the field.
  for (int bad : {0, -1, 10000, 20000}) {
    try {
      validation_split(10000, bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("training.validation_rows"), std::string::npos);
    }
  }
}

TEST(ValidationSplit, SelectRowsCopiesThoseRows) {
  SyntheticConfig sc;
  sc.kind = SyntheticKind::kBlobs;
  sc.train_rows = 50;
  sc.test_rows = 10;
  const TrainTest d = make_synthetic(sc);
  const Dataset some = select_rows(d.train, {3, 7, 49});
  ASSERT_EQ(some.rows(), 3);
  EXPECT_EQ(some.num_classes, d.train.num_classes);
  EXPECT_EQ(some.y[2], d.train.y[49]);
  EXPECT_EQ(some.x(1, 0), d.train.x(7, 0));
}

TEST(EvalSubset, DistinctRowsSameForASeedDifferentForAnother) {
  const std::vector<int32_t> a = eval_subset(10000, 2000, 5);
  ASSERT_EQ(a.size(), 2000u);
  EXPECT_EQ(std::set<int32_t>(a.begin(), a.end()).size(), 2000u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_GE(a.front(), 0);
  EXPECT_LT(a.back(), 10000);
  EXPECT_EQ(eval_subset(10000, 2000, 5), a);
  EXPECT_NE(eval_subset(10000, 2000, 6), a);
  // A sample of the whole set, not its head: rows from the last fifth are drawn too.
  EXPECT_GT(std::count_if(a.begin(), a.end(), [](int32_t r) { return r >= 8000; }), 300);
  // 0 or at least the set: every row, in order.
  std::vector<int32_t> every(300);
  std::iota(every.begin(), every.end(), 0);
  EXPECT_EQ(eval_subset(300, 0, 5), every);
  EXPECT_EQ(eval_subset(300, 300, 5), every);
  EXPECT_EQ(eval_subset(300, 1000, 5), every);
}

// Both trainers evaluate through evaluate_rows on eval_subset: the trainer's evaluation is that
// subset (not the first rows), and sharding reaches the trainer.
TEST(EvalSubset, TrainerEvaluatesTheSeededSubset) {
  SyntheticConfig sc;
  sc.kind = SyntheticKind::kBlobs;
  sc.train_rows = 512;
  sc.test_rows = 400;
  const TrainTest d = make_synthetic(sc);
  TrainerConfig c;
  c.ranks = 4;
  c.global_batch = 32;
  c.iterations = 3;
  c.eval_rows = 150;
  c.seed = 12;
  c.sharding.mode = ShardingMode::kNonIid;
  c.sharding.alpha = 0.2;
  ExactAverageReducer reducer;
  DataParallelTrainer t(make_mlp(2, {16}, d.train.num_classes), d.train, d.test, c, reducer);
  const Sample last = t.run();
  const LossStats e = t.evaluate(0);
  EXPECT_EQ(e.count, 150);
  const LossStats want = evaluate_rows(t.replica(0), d.test, eval_subset(400, 150, 12), 1);
  EXPECT_EQ(e.correct, want.correct);
  EXPECT_EQ(e.loss, want.loss);
  EXPECT_EQ(last.test_accuracy, static_cast<double>(want.correct) / 150);
}

}  // namespace
}  // namespace commlab
