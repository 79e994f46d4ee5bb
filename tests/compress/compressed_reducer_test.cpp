// CompressedReducer (scenario/run/compressed_reducer.h): bytes on the wire against the formulas,
// top-k at fraction 1 = the exact average, PowerSGD's exact fallback, thread-count independence,
// and the scenario checks that keep the baselines apart from the other techniques.
#include "scenario/run/compressed_reducer.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <vector>

#include "network/analytical.h"
#include "numeric/rng.h"
#include "scenario/runner.h"
#include "scenario/scenario.h"
#include "topology/presets.h"

namespace commlab {
namespace {

constexpr int kRanks = 4;

struct Rig {
  RunConfig config;
  AnalyticalBackend backend{cluster_from_spec("flat:4,gbps=100,alpha_us=5")};
  explicit Rig(const std::string& wire) {
    config.training.ranks = kRanks;
    config.collective.wire = *parse_enum<DType>(wire);
  }
};

std::vector<std::vector<float>> rank_gradients(size_t n, uint64_t seed) {
  std::vector<std::vector<float>> g(kRanks, std::vector<float>(n));
  for (int r = 0; r < kRanks; ++r) {
    StreamRng rng(CounterRng(seed, Purpose::kGenerator, r));
    for (float& x : g[r]) x = static_cast<float>(rng.normal());
  }
  return g;
}

std::vector<std::span<float>> spans(std::vector<std::vector<float>>& g) {
  return {g.begin(), g.end()};
}

BucketInfo bucket_of(size_t n) {
  return BucketInfo{0, 0, "fc", 0, n};
}

// Every rank sends ceil(k (4 + v) / 4) words to each of N-1 peers (ring all-gather); the dense ring
// all-reduce would move 2 (N-1) n values of v bytes.
TEST(CompressedReducer, TopKBytesFollowTheAllGatherFormula) {
  for (const char* wire : {"bf16", "fp32"}) {
    Rig s(wire);
    s.config.techniques.topk.enabled = true;
    s.config.techniques.topk.fraction = 0.01;
    CompressedReducer reducer(s.config, s.backend);
    const size_t n = 10001, k = 101;  // ceil(100.01)
    const size_t v = std::string(wire) == "bf16" ? 2 : 4;
    auto g = rank_gradients(n, 1);
    auto views = spans(g);
    const ReduceReport rep = reducer.reduce(0, bucket_of(n), views);
    const uint64_t words = (k * (4 + v) + 3) / 4;
    EXPECT_EQ(rep.bytes_on_wire, uint64_t(kRanks) * (kRanks - 1) * words * 4) << wire;
    EXPECT_EQ(rep.reference_bytes, 2ull * (kRanks - 1) * n * v);
    EXPECT_EQ(rep.payload_bytes, uint64_t(kRanks) * (kRanks - 1) * k * 4);
    EXPECT_GT(rep.comm_time_s, 0);
    EXPECT_GT(rep.codec_time_s, 0);  // the selection and the scatter-add on the GPU model
    EXPECT_GT(rep.nmse, 0);
    for (int r = 1; r < kRanks; ++r) EXPECT_EQ(g[r], g[0]);  // an all-gather: the same sum
    EXPECT_EQ(reducer.totals().bytes_on_wire, rep.bytes_on_wire);
  }
}

// fraction 1 sends everything: the sum of the N dense sets in rank order times 1/N, bit for bit
// what ExactAverageReducer computes (FP32 wire).
TEST(CompressedReducer, TopKAtFractionOneIsTheExactAverage) {
  Rig s("fp32");
  s.config.techniques.topk.enabled = true;
  s.config.techniques.topk.fraction = 1.0;
  CompressedReducer reducer(s.config, s.backend);
  auto g = rank_gradients(777, 2);
  auto want = g;
  auto views = spans(g), want_views = spans(want);
  ExactAverageReducer exact;
  exact.reduce(0, bucket_of(777), want_views);
  const ReduceReport rep = reducer.reduce(0, bucket_of(777), views);
  for (int r = 0; r < kRanks; ++r) EXPECT_EQ(g[r], want[0]) << r;
  EXPECT_EQ(rep.nmse, 0);
}

// Two all-reduces (ring, FP32) of (rows + cols) * rank values: each moves 2 (N-1) x its count.
TEST(CompressedReducer, PowerSgdBytesAreTwoAllReducesOfPAndQ) {
  Rig s("fp32");
  s.config.techniques.powersgd.enabled = true;
  s.config.techniques.powersgd.rank = 3;
  CompressedReducer reducer(s.config, s.backend);
  const size_t n = 5000;
  const LowRankShape shape = lowrank_shape(n, 3);  // 71 x 71, rank 3
  auto g = rank_gradients(n, 3);
  auto views = spans(g);
  const ReduceReport rep = reducer.reduce(0, bucket_of(n), views);
  const uint64_t values = (shape.rows + shape.cols) * shape.rank;
  EXPECT_EQ(rep.bytes_on_wire, 2ull * (kRanks - 1) * values * 4);
  EXPECT_EQ(rep.payload_bytes, 2ull * (kRanks - 1) * values * 4);
  EXPECT_GT(rep.nmse, 0);
  EXPECT_LT(rep.nmse, 1.0);
}

// A bucket PowerSGD would not shrink (10 values at rank 4) is all-reduced exactly.
TEST(CompressedReducer, PowerSgdAllReducesSmallBucketsExactly) {
  Rig s("fp32");
  s.config.techniques.powersgd.enabled = true;
  CompressedReducer reducer(s.config, s.backend);
  auto g = rank_gradients(10, 4);
  auto views = spans(g);
  const ReduceReport rep = reducer.reduce(0, bucket_of(10), views);
  EXPECT_LT(rep.nmse, 1e-12);
  EXPECT_EQ(rep.bytes_on_wire, 2ull * (kRanks - 1) * 10 * 4);
}

// Ranks are compressed in parallel (OpenMP); each rank's arithmetic is sequential, so the received
// gradients are the same bits whatever the thread count.
TEST(CompressedReducer, SameBitsWhateverTheThreadCount) {
  for (const bool topk : {true, false}) {
    std::vector<std::vector<float>> results[2];
    for (int pass = 0; pass < 2; ++pass) {
      omp_set_num_threads(pass == 0 ? 1 : 4);
      Rig s("bf16");
      s.config.techniques.topk.enabled = topk;
      s.config.techniques.topk.fraction = 0.05;
      s.config.techniques.powersgd.enabled = !topk;
      s.config.techniques.powersgd.rank = 2;
      CompressedReducer reducer(s.config, s.backend);
      for (int it = 0; it < 3; ++it) {
        auto g = rank_gradients(3000, 10 + it);
        auto views = spans(g);
        reducer.reduce(it, bucket_of(3000), views);
        results[pass].insert(results[pass].end(), g.begin(), g.end());
      }
    }
    EXPECT_EQ(results[0], results[1]) << (topk ? "top-k" : "PowerSGD");
  }
}

TEST(CompressedReducer, ChecksNameTheFieldWhenCombinedWithAnotherTechnique) {
  RunConfig c;
  c.techniques.topk.enabled = true;
  c.techniques.skipreduce.skip = 2;
  bool named = false;
  for (const ConfigProblem& p : check_run_config(c)) named |= p.field == "techniques.topk.enabled";
  EXPECT_TRUE(named);
  c.techniques.skipreduce.skip = 0;
  c.techniques.powersgd.enabled = true;
  named = false;
  for (const ConfigProblem& p : check_run_config(c))
    named |= p.text().rfind("techniques.powersgd.enabled: top-k and PowerSGD", 0) == 0;
  EXPECT_TRUE(named);
  Rig s("bf16");
  s.config.techniques.powersgd.enabled = true;
  s.config.techniques.trimming.enabled = true;
  EXPECT_THROW(CompressedReducer(s.config, s.backend), std::logic_error);
}

// The runner trains with the baseline and its summary carries the reducer's totals: top-k's bytes
// are N(N-1) * 4 ceil(k (4 + v) / 4) per bucket and iteration, against the ring's 2(N-1) S v.
TEST(CompressedReducer, RunSessionTrainsWithTopKAndReportsItsBytes) {
  RunConfig c;
  c.cluster.spec = "flat:4";
  c.training.ranks = kRanks;
  c.training.iterations = 3;
  c.training.global_batch = 32;
  c.training.eval_every = 3;
  c.workload.dataset = "blobs";
  c.workload.max_train = 256;
  c.techniques.topk.enabled = true;
  c.techniques.topk.fraction = 0.1;
  RunSession session(c);
  session.run();
  uint64_t bytes = 0, reference = 0, values = 0;
  for (const BucketInfo& b : session.trainer()->buckets()) {
    const uint64_t k = topk_count(0.1, b.size);
    values += uint64_t(kRanks) * (kRanks - 1) * k;
    bytes += uint64_t(kRanks) * (kRanks - 1) * 4 * ((k * 6 + 3) / 4);  // bf16 wire: v = 2
    reference += 2ull * (kRanks - 1) * b.size * 2;
  }
  const RunSummary s = session.summary();
  EXPECT_EQ(s.bytes_on_wire, 3 * bytes);
  EXPECT_DOUBLE_EQ(s.mean_ratio, double(bytes) / double(reference));
  // 32-bit index + 16-bit value per sent value, plus the padding of odd k to whole words.
  EXPECT_DOUBLE_EQ(s.effective_bits, 8.0 * double(bytes) / double(values));
  EXPECT_GE(s.effective_bits, 48.0);
  EXPECT_TRUE(std::isfinite(s.final_train_loss));
}

}  // namespace
}  // namespace commlab
