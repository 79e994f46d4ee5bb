#include "train/trainer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "train/data/synthetic.h"
#include "train/layers/transformer.h"

namespace commlab {
namespace {

TrainTest spiral() {
  SyntheticConfig c;
  c.kind = SyntheticKind::kSpiral;
  c.train_rows = 960;
  c.test_rows = 300;
  c.noise = 0.05;
  return make_synthetic(c);
}

TrainerConfig config(int ranks, int batch, int iterations) {
  TrainerConfig c;
  c.ranks = ranks;
  c.global_batch = batch;
  c.iterations = iterations;
  c.eval_every = 10;
  c.seed = 7;
  c.optimizer.kind = OptimizerKind::kSgd;
  c.optimizer.lr = 0.1;
  c.optimizer.momentum = 0.9;
  return c;
}

std::vector<Sample> run_all(DataParallelTrainer& t) {
  std::vector<Sample> out;
  t.run([&](const Sample& s) { out.push_back(s); });
  return out;
}

// The strongest check that the trainer is right: N ranks with the exact average take the same
// steps as one rank on the concatenated batch (the mean over the global batch), up to float
// summation order.
TEST(Trainer, DataParallelExactAverageEqualsSingleRankOnConcatenatedBatch) {
  const TrainTest d = spiral();
  for (int ranks : {2, 4, 8}) {
    ExactAverageReducer r1, rn;
    DataParallelTrainer single(make_mlp(2, {32, 32}, 3), d.train, d.test, config(1, 64, 40), r1);
    DataParallelTrainer multi(make_mlp(2, {32, 32}, 3), d.train, d.test, config(ranks, 64, 40), rn);
    const auto a = run_all(single);
    const auto b = run_all(multi);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i].train_loss, b[i].train_loss, 1e-4 * std::max(1.0, a[i].train_loss))
          << "ranks " << ranks << " iteration " << i + 1;
    }
    EXPECT_NEAR(a.back().test_accuracy, b.back().test_accuracy, 1.0 / 300 + 1e-12);
    const auto pa = single.replica(0).flat_params();
    const auto pb = multi.replica(ranks - 1).flat_params();
    double diff = 0, ref = 0;
    for (size_t i = 0; i < pa.size(); ++i) {
      diff += (pa[i] - pb[i]) * double(pa[i] - pb[i]);
      ref += pa[i] * double(pa[i]);
    }
    EXPECT_LT(std::sqrt(diff / ref), 1e-4) << "ranks " << ranks;
    // The exact average is identical on every rank: replicas never drift.
    EXPECT_EQ(b.back().divergence, 0.0);
    // Ring all-reduce of every bucket: 2(N-1) x 4 bytes x parameters per iteration; none for 1
    // rank.
    EXPECT_EQ(b.back().bytes_on_wire, 2u * (ranks - 1) * 4 * multi.replica(0).num_params());
    EXPECT_EQ(a.back().bytes_on_wire, 0u);
  }
}

TEST(Trainer, ThreadCountDoesNotChangeResults) {
  const TrainTest d = spiral();
  auto c1 = config(4, 64, 25), c2 = c1;
  c1.threads = 1;
  c2.threads = 2;
  ExactAverageReducer r1, r2;
  DataParallelTrainer t1(make_mlp(2, {32}, 3), d.train, d.test, c1, r1);
  DataParallelTrainer t2(make_mlp(2, {32}, 3), d.train, d.test, c2, r2);
  const auto a = run_all(t1);
  const auto b = run_all(t2);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].train_loss, b[i].train_loss);  // bitwise
    EXPECT_EQ(a[i].grad_norm, b[i].grad_norm);
  }
  EXPECT_EQ(a.back().test_loss, b.back().test_loss);
  EXPECT_EQ(t1.replica(3).flat_params(), t2.replica(3).flat_params());
}

// A lossy, rank-dependent reducer: rank r receives the exact average scaled by (1 + 0.01 r).
class ScalingReducer final : public GradientReducer {
 public:
  ReduceReport reduce(int it, const BucketInfo& b, std::vector<std::span<float>>& g) override {
    ReduceReport rep = exact_.reduce(it, b, g);
    for (size_t r = 0; r < g.size(); ++r) {
      for (float& v : g[r]) v *= 1.0f + 0.01f * static_cast<float>(r);
    }
    rep.skipped_contributions = 1;
    rep.comm_time_s = 1e-3;
    rep.codec_time_s = 1e-3;
    ++calls;
    order.push_back(b.index);
    return rep;
  }
  std::string name() const override { return "scaling"; }
  int calls = 0;
  std::vector<int> order;

 private:
  ExactAverageReducer exact_;
};

TEST(Trainer, LossyRankDependentReducerMakesReplicasDriftAndReportsIt) {
  const TrainTest d = spiral();
  ScalingReducer reducer;
  DataParallelTrainer t(make_mlp(2, {16, 16}, 3), d.train, d.test, config(4, 32, 5), reducer);
  const auto s = run_all(t);
  // 3 buckets (fc1, fc2, fc3) per iteration, handed over last layer first.
  EXPECT_EQ(reducer.calls, 15);
  EXPECT_EQ(std::vector<int>(reducer.order.begin(), reducer.order.begin() + 3),
            (std::vector<int>{2, 1, 0}));
  EXPECT_GT(s.back().divergence, 1e-5);
  EXPECT_EQ(s.back().skipped_contributions, 3u);
  // 6 ms of comm+codec per iteration cannot hide behind microseconds of backward on an A100.
  EXPECT_GT(s.back().comm_time_s + s.back().codec_time_s, 5e-3);
  EXPECT_NEAR(s.back().comm_time_s, s.back().codec_time_s, 1e-12);  // equal totals split evenly
}

TEST(Trainer, BucketsAreLayersWithParametersInForwardOrder) {
  const TrainTest d = spiral();
  ExactAverageReducer r;
  DataParallelTrainer t(make_mlp(2, {16}, 3), d.train, d.test, config(2, 8, 1), r);
  ASSERT_EQ(t.buckets().size(), 2u);
  EXPECT_EQ(t.buckets()[0].name, "fc1");
  EXPECT_EQ(t.buckets()[0].size, 2u * 16 + 16);
  EXPECT_EQ(t.buckets()[1].offset, 2u * 16 + 16);
  EXPECT_EQ(t.buckets()[1].size, 16u * 3 + 3);
}

TEST(Trainer, CancellationStopsBetweenIterations) {
  const TrainTest d = spiral();
  ExactAverageReducer r;
  DataParallelTrainer t(make_mlp(2, {16}, 3), d.train, d.test, config(2, 8, 100), r);
  std::atomic<bool> cancel{false};
  Sample last = t.run([&](const Sample& s) { cancel = s.iteration == 3; }, &cancel);
  EXPECT_EQ(last.iteration, 3);
  EXPECT_EQ(t.iteration(), 3);
}

TEST(Trainer, InvalidBatchSplitIsRejected) {
  const TrainTest d = spiral();
  ExactAverageReducer r;
  EXPECT_THROW(DataParallelTrainer(make_mlp(2, {4}, 3), d.train, d.test, config(3, 64, 1), r),
               std::invalid_argument);
}

TEST(Trainer, ExactReducerAveragesInRankOrderAndCountsRingBytes) {
  std::vector<float> a{1, 2, 3, 4}, b{3, 2, 1, 0}, c{2, 2, 2, 2};
  std::vector<std::span<float>> g{a, b, c};
  ExactAverageReducer r(8, 0);  // 8 Gbit/s = 1 GB/s, no latency
  ReduceReport rep = r.reduce(0, BucketInfo{}, g);
  for (auto* v : {&a, &b, &c}) EXPECT_EQ(*v, (std::vector<float>{2, 2, 2, 2}));
  // Ring: 2(N-1) steps of S/N bytes per rank -> 2(N-1)*S = 4*16 bytes over all ranks, and
  // time 2(N-1) * (S/N) / bw = 4 * (16/3) / 1e9 s.
  EXPECT_EQ(rep.bytes_on_wire, 64u);
  EXPECT_NEAR(rep.comm_time_s, 4 * (16.0 / 3) / 1e9, 1e-18);
}

TEST(ComputeModel, CommunicationOverlapsBackwardBucketByBucket) {
  // Three layers, forward 1 s each, backward 2 s each, every layer a bucket.
  std::vector<LayerCost> layers{{1, 2, 0}, {1, 2, 1}, {1, 2, 2}};
  // Backward ends at 3 + 6 = 9 s. Buckets ready at 5 (b2), 7 (b1), 9 (b0).
  // comm {b0: 1, b1: 3, b2: 1}: b2 runs 5-6, b1 7-10, b0 10-11 -> exposed 2 s.
  StepTiming t = overlap_step(layers, {1, 3, 1}, {0, 0, 0});
  EXPECT_DOUBLE_EQ(t.compute_s, 9);
  EXPECT_DOUBLE_EQ(t.comm_exposed_s, 2);
  EXPECT_DOUBLE_EQ(t.step_s, 11);
  // Codec time shares the stream: +1 s codec on b0 -> exposed 3 s, split by totals
  // (codec 1 of busy 6 total -> 3 * 1/6 = 0.5 s).
  StepTiming u = overlap_step(layers, {1, 3, 1}, {1, 0, 0});
  EXPECT_DOUBLE_EQ(u.step_s, 12);
  EXPECT_DOUBLE_EQ(u.codec_exposed_s, 0.5);
  EXPECT_DOUBLE_EQ(u.comm_exposed_s, 2.5);
}

TEST(ComputeModel, ComputeBoundAndMemoryBoundKernels) {
  ComputeModel m;
  m.gpu = gpu_preset("h100");
  m.mfu = 0.5;
  // 989e12 * 0.5 FLOP/s: 494.5e9 FLOPs take 1 ms; 3.35e9 bytes at 3.35 TB/s take 1 ms.
  EXPECT_NEAR(m.time(494.5e9, 0), 1e-3, 1e-12);
  EXPECT_NEAR(m.time(0, 3.35e9), 1e-3, 1e-12);
  EXPECT_THROW(gpu_preset("tpu"), std::invalid_argument);
}

}  // namespace
}  // namespace commlab

namespace commlab {
namespace {

// The same equivalence for the transformer, whose loss is a mean over every token of the batch.
TEST(Trainer, TransformerDataParallelEqualsSingleRank) {
  const auto path = std::filesystem::temp_directory_path() / "commlab_dp_text.txt";
  {
    std::ofstream out(path);
    for (int i = 0; i < 40; ++i) out << "the quick brown fox jumps over the lazy dog " << i << "\n";
  }
  auto data = load_char_text(path.string(), 8, 0.1);
  ASSERT_TRUE(data.ok()) << data.error();
  auto c1 = config(1, 8, 6), c4 = config(4, 8, 6);
  for (auto* c : {&c1, &c4}) {
    c->optimizer.kind = OptimizerKind::kAdamW;
    c->optimizer.lr = 3e-3;
  }
  const int vocab = data.value().train.num_classes;
  ExactAverageReducer r1, r4;
  DataParallelTrainer a(make_transformer(vocab, 8, 16, 2, 1), data.value().train, data.value().test,
                        c1, r1);
  DataParallelTrainer b(make_transformer(vocab, 8, 16, 2, 1), data.value().train, data.value().test,
                        c4, r4);
  const auto sa = run_all(a), sb = run_all(b);
  for (size_t i = 0; i < sa.size(); ++i) {
    EXPECT_NEAR(sa[i].train_loss, sb[i].train_loss, 1e-4 * sa[i].train_loss) << i;
  }
  EXPECT_LT(sa.back().train_loss, sa.front().train_loss);  // it learns
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace commlab
