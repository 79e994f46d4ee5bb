// Proxy timing (workload.time_as, scenario/run/proxy_timer.h): the proxy models' counts by hand,
// DDP bucketing, the compute term by formula, and that the data plane does not leak into the time
// plane (two different trained models timed as VGG-19 take the same simulated time).
#include "scenario/run/proxy_timer.h"

#include <gtest/gtest.h>

#include "network/analytical.h"
#include "scenario/runner.h"
#include "scenario/scenario.h"
#include "topology/gpu_presets.h"
#include "topology/presets.h"
#include "workload/catalog/catalog.h"

namespace commlab {
namespace {

TEST(ProxyModel, Vgg19CifarCountedByHand) {
  const ProxyModel m = vgg19_cifar(100);
  ASSERT_EQ(m.layers.size(), 17u);  // 16 convolutions + the head
  // Convolutions 9 Cin Cout + Cout: 1,792 + 36,928 + 73,856 + 147,584 + 295,168 + 3 x 590,080
  // + 1,180,160 + 7 x 2,359,808 = 20,024,384; head 512 x 100 + 100 = 51,300.
  EXPECT_EQ(m.params(), 20075684);
  // 2 x 9 Cin Cout x side^2 per convolution (side 32, 16, 8, 4, 2 after each pool) + 2 x 51,200:
  // 796,364,800 forward FLOPs per 32x32 image (0.40 GMAC, the usual CIFAR VGG-19 figure).
  EXPECT_DOUBLE_EQ(m.forward_flops(), 796364800.0);
}

TEST(ProxyModel, TransformerLayersCountedByHand) {
  const ProxyModel m = transformer_proxy("llama3.2-1b", 128);
  ASSERT_EQ(m.layers.size(), 17u);  // tied: embedding + 16 blocks, no separate head
  // Llama-3.2 1B (catalog_test: 60,821,504 per block): the embedding holds the tied vocabulary
  // table and the final RMSNorm, 128,256 x 2,048 + 2,048 = 262,670,336.
  EXPECT_EQ(m.layers[0].params, 262670336);
  EXPECT_EQ(m.layers[1].params, 60821504);
  // Forward FLOPs per 128-token sample: a block 2 x 60,821,504 + 4 x 128 x 2,048 (scores and
  // values) per token = 122,691,584, x 128 = 15,704,522,752; the tied head 2 x 128,256 x 2,048
  // per token x 128 = 67,243,081,728, charged to the embedding layer that holds its weights.
  EXPECT_DOUBLE_EQ(m.layers[1].forward_flops, 15704522752.0);
  EXPECT_DOUBLE_EQ(m.layers[0].forward_flops, 67243081728.0);
  EXPECT_THROW(find_proxy_model("resnet-9000"), std::invalid_argument);
}

TEST(ProxyBuckets, LayersLastToFirstUnderTheCap) {
  ProxyModel m;
  m.layers = {{"a", 10, 0}, {"b", 3, 0}, {"c", 4, 0}, {"d", 5, 0}, {"e", 0, 0}};
  const ProxyBuckets b = proxy_buckets(m, 9);
  // From the back: e (0) + d (5) + c (4) = 9 <= 9; then b (3) (a would make 13); then a (10 > 9,
  // alone).
  ASSERT_EQ(b.buckets.size(), 3u);
  EXPECT_EQ(b.buckets[0].size, 9u);
  EXPECT_EQ(b.buckets[0].name, "c..e");
  EXPECT_EQ(b.buckets[0].offset, 13u);
  EXPECT_EQ(b.buckets[1].size, 3u);
  EXPECT_EQ(b.buckets[2].size, 10u);
  // Each bucket starts when its first layer's backward (the last to run) ends.
  EXPECT_EQ(b.layer_bucket, (std::vector<int>{2, 1, 0, -1, -1}));
}

Experiment proxied(const std::string& hidden, const std::string& techniques) {
  return parse_scenario_text(
      R"({"name": "proxy", "seed": 5,
    "cluster": {"spec": "flat:8,gbps=100,alpha_us=5", "gpu": "a100"},
    "workload": {"model": "mlp", "hidden": )" +
          hidden + R"(, "dataset": "spiral", "time_as": "vgg19-cifar100"},
    "training": {"ranks": 8, "iterations": 6, "global_batch": 256, "eval_every": 3},
    "techniques": )" +
          techniques + "}",
      "proxy.json");
}

std::vector<Sample> run_samples(const RunConfig& c) {
  RunSession session(c);
  std::vector<Sample> out;
  session.run([&](const Sample& s) { out.push_back(s); });
  return out;
}

TEST(ProxyTimer, TheTrainedModelDoesNotLeakIntoTheTime) {
  const std::vector<Sample> small = run_samples(proxied("[8]", "{}").runs[0]);
  const std::vector<Sample> wide = run_samples(proxied("[64, 64]", "{}").runs[0]);
  ASSERT_EQ(small.size(), 6u);
  for (size_t i = 0; i < small.size(); ++i) {
    EXPECT_NE(small[i].train_loss, wide[i].train_loss) << "different models train differently";
    EXPECT_DOUBLE_EQ(small[i].sim_time_s, wide[i].sim_time_s) << "iteration " << i + 1;
  }
  // Compute is VGG-19's: 3 x 796,364,800 FLOPs x 32 images per rank at the A100's 312 TFLOP/s x
  // MFU 0.4 (the head's weight traffic makes it HBM-bound, a few ns: within 0.1%).
  const GpuPreset a100 = gpu_preset("a100");
  const double expected = 3 * 796364800.0 * 32 / (a100.bf16_flops * 0.4);
  EXPECT_NEAR(small[0].compute_time_s / expected, 1.0, 1e-3);
}

TEST(ProxyTimer, SkippingShortensTheProxyCollectives) {
  const RunConfig base = proxied("[8]", "{}").runs[0];
  const RunConfig skip =
      proxied("[8]", R"({"skipreduce": {"skip": 4, "policy": "random", "min_elements": 0}})")
          .runs[0];
  const Sample b = run_samples(base)[0], s = run_samples(skip)[0];
  // Ring all-reduce of 8: 14 steps, SkipReduce s = 4 runs 10 of them; VGG-19's 25 MiB buckets are
  // bandwidth-bound at 100 Gb/s, so the communication shrinks by about 10/14 (latency and
  // reduction terms aside: within 3%).
  EXPECT_NEAR(s.comm_total_s / b.comm_total_s, 10.0 / 14.0, 0.03);
  EXPECT_DOUBLE_EQ(s.compute_time_s, b.compute_time_s);
}

TEST(ProxyTimer, TheMeasuredWireRatioScalesTheProxyBytes) {
  const RunConfig c = proxied("[8]", "{}").runs[0];
  AnalyticalBackend backend(cluster_from_spec(c.cluster.spec));
  CollectiveReducer reducer(c, backend);
  ProxyTimer timer(c, backend, reducer);
  const StepTiming full = timer.time_iteration(0, 1.0, 0), half = timer.time_iteration(0, 0.5, 0);
  // Half the bytes per element: the bandwidth term halves (latency terms stay): within 3%.
  EXPECT_NEAR(half.comm_total_s / full.comm_total_s, 0.5, 0.03);
  // Codec seconds per byte x 4 bytes x 20,075,684 gradient elements.
  const StepTiming coded = timer.time_iteration(0, 1.0, 1e-12);
  EXPECT_NEAR(coded.codec_total_s, 1e-12 * 4 * 20075684, 1e-15);
}

TEST(ProxyTimer, RefusedWhereItCannotTime) {
  // A layer is never split, so even 1 KiB buckets give one bucket per layer: 17 for Llama-3.2 1B
  // (the work per iteration is bounded by the model's layers, not by workload.bucket_mb).
  EXPECT_EQ(proxy_buckets(transformer_proxy("llama3.2-1b", 128), 262).buckets.size(), 17u);
  EXPECT_THROW(parse_scenario_text(R"({"name": "x", "workload": {"time_as": "vgg20"}})", "x.json"),
               ScenarioError);
  EXPECT_THROW(parse_scenario_text(
                   R"({"name": "x", "cluster": {"backend": "packet"},
                       "workload": {"time_as": "vgg19-cifar100"}})",
                   "x.json"),
               ScenarioError);
}

}  // namespace
}  // namespace commlab
