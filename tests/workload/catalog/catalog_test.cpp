#include "workload/catalog/catalog.h"

#include <gtest/gtest.h>

#include <cmath>

namespace commlab {
namespace {

TEST(Catalog, ParameterCountsMatchPublishedWithin2Percent) {
  ASSERT_EQ(workload_catalog().size(), 9u);
  for (const auto& s : workload_catalog()) {
    const double n = static_cast<double>(parameter_count(s));
    EXPECT_NEAR(n / s.published_params, 1.0, 0.02) << s.display << ": " << n;
  }
}

TEST(Catalog, Llama3_8BCountedExactly) {
  // Per layer: Q,O 2*4096^2 + K,V 2*4096*1024 + SwiGLU 3*4096*14336 + 2 RMSNorm 2*4096
  // = 218,112,000; x32 = 6,979,584,000; + untied embeddings 2*128256*4096 + final norm 4096
  // = 8,030,261,248 (the model card's 8.03B).
  EXPECT_EQ(parameter_count(find_workload("llama3-8b")), 8030261248);
  EXPECT_THROW(find_workload("gpt-5"), std::invalid_argument);
}

TEST(Catalog, Llama32_1BCountedExactly) {
  // Per layer: Q,O 2*2048^2 + K,V 2*2048*512 (8 of 32 heads) + RMSNorm 2048 = 10,487,808;
  // SwiGLU 3*2048*8192 = 50,331,648; MLP norm 2048: 60,821,504; x16 = 973,144,064; + tied
  // embeddings 128256*2048 + final norm 2048 = 1,235,814,400 (the model card's 1.23B).
  EXPECT_EQ(parameter_count(find_workload("llama3.2-1b")), 1235814400);
}

TEST(Catalog, MixtralCountsEveryExpertButATokenGoesThroughTwo) {
  const auto& s = find_workload("mixtral-8x7b");
  ASSERT_TRUE(s.moe());
  // Per layer: attention 2*4096^2 + 2*4096*1024 + norm 4096 = 41,947,136; one SwiGLU expert
  // 3*4096*14336 = 176,160,768; router 4096*8; MLP norm 4096.
  EXPECT_EQ(attention_parameter_count(s), 41947136);
  EXPECT_EQ(mlp_parameter_count(s), 176160768);
  EXPECT_EQ(layer_parameter_count(s), 41947136 + 8 * 176160768 + 32768 + 4096);
  // Total = 32 layers + untied embeddings 2*32000*4096 + final norm: 46.70B (the paper's 46.7B).
  const int64_t total = 32 * layer_parameter_count(s) + 2 * 32000 * 4096 + 4096;
  EXPECT_EQ(parameter_count(s), total);
  // Active: 6 of the 8 experts idle per token: total - 32*6*176,160,768 = 12.88B (paper: 12.9B).
  EXPECT_EQ(active_parameter_count(s), total - 32 * 6 * int64_t{176160768});
  EXPECT_NEAR(static_cast<double>(active_parameter_count(s)) / s.published_active_params, 1.0,
              0.01);
  // FLOPs follow the active parameters: 2 per weight a token meets (the embedding lookup and the
  // final norm free, the head counted) + attention 4*L*seq*h with seq 4096.
  const double met = static_cast<double>(active_parameter_count(s)) - 32000.0 * 4096 - 4096;
  EXPECT_DOUBLE_EQ(forward_flops_per_token(s), 2 * met + 4.0 * 32 * 4096 * 4096);
}

TEST(Catalog, TrainingFlopsAreSixTimesParamsPlusAttention) {
  const auto& s = find_workload("gpt3-175b");
  // ~6N per token plus 12*L*seq*h attention: 6*174.6e9 + 12*96*2048*12288 = 1.077e12.
  const double expected =
      6.0 * (96.0 * layer_parameter_count(s) + 50257.0 * 12288) + 12.0 * 96 * 2048 * 12288;
  EXPECT_DOUBLE_EQ(training_flops_per_token(s), expected);
  EXPECT_NEAR(training_flops_per_token(s) / (6 * 175e9), 1.03, 0.03);
}

TEST(Catalog, MessagesOfA3DParallelIteration) {
  // NetZIP study: GPT 7B, 512 GPUs, TP=4, global batch 128 -> here dp=32, tp=4, pp=4.
  const auto& s = find_workload("gpt-7b");
  Parallelism p;
  p.dp = 32;
  p.tp = 4;
  p.pp = 4;
  p.micro_batch = 1;
  p.global_batch = 128;
  const IterationPlan plan = plan_iteration(s, p);
  EXPECT_EQ(plan.micro_batches, 4);  // 128 / (32*1)
  EXPECT_EQ(plan.layers_per_stage, 8);
  ASSERT_EQ(plan.messages.size(), 4u);
  const Message& tp = plan.messages[0];
  // The study's 2048 x 4096 x 2 B = 16 MiB activation all-reduce; 4 per layer per micro-batch.
  EXPECT_EQ(tp.bytes, 16u << 20);
  EXPECT_EQ(tp.count, 4 * 8 * 4);
  EXPECT_EQ(tp.groups, 32 * 4);
  const Message& rs = plan.messages[1];
  EXPECT_EQ(rs.kind, MessageKind::kDpReduceScatter);
  EXPECT_EQ(rs.group_size, 32);
  // Gradient shard of one GPU: params / (tp*pp) in BF16.
  EXPECT_NEAR(static_cast<double>(rs.bytes), parameter_count(s) / 16.0 * 2, 2);
  EXPECT_EQ(plan.messages[3].kind, MessageKind::kPpSendRecv);
  EXPECT_EQ(plan.messages[3].count, 8);  // forward + backward per micro-batch
  EXPECT_DOUBLE_EQ(plan.flops_per_gpu, training_flops_per_token(s) * 128 * 2048 / 512);
  // 1F1B bubble with pp=4 and 4 micro-batches: x (1 + 3/4).
  ComputeModel h100;
  h100.gpu = gpu_preset("h100");
  h100.mfu = 0.5;
  EXPECT_DOUBLE_EQ(compute_time_s(plan, p, h100), plan.flops_per_gpu / (989e12 * 0.5) * 1.75);
}

TEST(Catalog, InvalidSplitsAreRejected) {
  Parallelism p;
  p.pp = 7;  // 32 layers do not split into 7 stages
  EXPECT_THROW(plan_iteration(find_workload("gpt-7b"), p), std::invalid_argument);
  p.pp = 1;
  p.dp = 3;  // 128 not a multiple of 3
  EXPECT_THROW(plan_iteration(find_workload("gpt-7b"), p), std::invalid_argument);
}

// One rule for the `workload` command and a scenario's catalog run: dp 0 takes as many replicas
// as fit, floor(gpus / (tp x pp)); a given dp is kept; the GPUs bound tp x pp and dp x tp x pp.
TEST(Catalog, ResolveParallelismFillsDpAndBoundsTheSplit) {
  Parallelism asked;
  asked.dp = 0;  // Parallelism's own default is 1
  asked.tp = 4;
  asked.pp = 2;
  // floor(20 / 8) = 2 replicas; 4 of the 20 GPUs stay idle.
  EXPECT_EQ(resolve_parallelism(asked, 20).dp, 2);
  EXPECT_EQ(resolve_parallelism(asked, 64).gpus(), 64);
  asked.dp = 3;  // 3 x 8 = 24 <= 32: kept as asked
  EXPECT_EQ(resolve_parallelism(asked, 32).dp, 3);
  auto message = [](Parallelism a, int gpus) {
    try {
      resolve_parallelism(a, gpus);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message(asked, 16), "dp x tp x pp = 24 exceeds the 16 GPUs");
  asked.dp = 0;
  EXPECT_EQ(message(asked, 4), "tp x pp = 8 exceeds the 4 GPUs");
  asked.pp = 0;
  EXPECT_EQ(message(asked, 64),
            "parallelism degrees must be >= 1 (dp 0: as many as fit), got dp 0, tp 4, pp 0");
}

}  // namespace
}  // namespace commlab
