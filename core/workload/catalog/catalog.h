#pragma once
// Workload catalog: published transformer shapes at real scale, their parameter counts and FLOPs,
// and the messages each parallelism sends per iteration (DP x TP x PP, Megatron style, as in the
// NetZIP study's SimAI workloads). Pure data and arithmetic; the network times the messages.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/status.h"
#include "train/compute_model.h"

namespace commlab {

struct TransformerSpec {
  std::string name;     // catalog key, e.g. "llama3-70b"
  std::string display;  // e.g. "Llama-3 70B"
  int layers = 0;
  int64_t hidden = 0;
  int heads = 0;
  int kv_heads = 0;  // grouped-query attention; == heads for multi-head attention
  int64_t ffn = 0;   // MLP inner width
  int64_t vocab = 0;
  int64_t seq = 0;                 // training sequence length
  bool gated_mlp = false;          // SwiGLU: three h x ffn matrices instead of two
  bool tied_embeddings = true;     // output head shares the input embedding
  bool learned_positions = false;  // GPT: a seq x h position table
  bool biases = false;             // linear biases (GPT, BLOOM)
  bool embedding_norm = false;     // BLOOM: a LayerNorm after the embedding
  double published_params = 0;     // as announced by the authors
  // Mixture of experts (Mixtral): every block's MLP is `experts` expert MLPs behind a linear
  // router, and each token goes through `top_k` of them. 0: a dense MLP.
  int experts = 0;
  int top_k = 0;
  double published_active_params = 0;  // MoE: parameters one token goes through
  bool moe() const { return experts > 0; }
};

const std::vector<TransformerSpec>& workload_catalog();
// Throws std::invalid_argument naming the known workloads.
const TransformerSpec& find_workload(const std::string& name);

// Parameters counted from the shapes (embeddings included).
int64_t parameter_count(const TransformerSpec& s);
int64_t layer_parameter_count(const TransformerSpec& s);
// One block's parts: attention (with its norm), one MLP (one expert for MoE, with its norm) and
// the MoE router (0 for a dense block). layer = attention + mlp x max(experts, 1) + router.
int64_t attention_parameter_count(const TransformerSpec& s);
int64_t mlp_parameter_count(const TransformerSpec& s);
int64_t router_parameter_count(const TransformerSpec& s);
// Parameters one token goes through (MoE: top_k experts of each block); == parameter_count for
// dense models.
int64_t active_parameter_count(const TransformerSpec& s);
// Forward FLOPs per token: 2 per MAC over every weight matrix a token goes through (MoE: its
// top_k experts and the router; head included, lookups free) plus
// attention scores and weighted values (2 * 2 * seq * h per layer, full, not causal-halved).
double forward_flops_per_token(const TransformerSpec& s);
// Training FLOPs per token = 3 x forward (backward is two GEMMs per forward GEMM).
double training_flops_per_token(const TransformerSpec& s);

struct Parallelism {
  int dp = 1, tp = 1, pp = 1;
  int micro_batch = 1;     // sequences per micro-batch
  int global_batch = 128;  // sequences per iteration, split over dp
  int wire_bytes = 2;      // BF16 on the wire
  int gpus() const { return dp * tp * pp; }
};

// The split a catalog run asks for, resolved on `gpus` GPUs by the one rule the `workload`
// command and a scenario's catalog run share: dp 0 means as many data-parallel replicas as fit,
// floor(gpus / (tp x pp)). Throws std::invalid_argument, without a flag or field name (the caller
// adds its own), when a degree is below 1, when tp x pp exceeds the GPUs ("tp x pp = 16 exceeds
// the 8 GPUs") or when dp x tp x pp does. A scenario asks more (dp x tp x pp equal to
// training.ranks: scenario_checks.cpp); the command may leave GPUs of a larger cluster idle.
Parallelism resolve_parallelism(Parallelism asked, int gpus);

enum class MessageKind { kTpAllReduce, kDpReduceScatter, kDpAllGather, kPpSendRecv };

// `count` messages of `bytes` each, per iteration, in every group of this kind (there are
// `groups` such groups running concurrently, each of `group_size` GPUs).
struct Message {
  MessageKind kind;
  int group_size = 0;
  int groups = 0;
  uint64_t bytes = 0;
  int64_t count = 0;
};

struct IterationPlan {
  int64_t micro_batches = 0;  // per pipeline, per iteration: global_batch / (dp*micro_batch)
  int64_t layers_per_stage = 0;
  double params_per_gpu = 0;      // weights held by one GPU (TP- and PP-sharded)
  double flops_per_gpu = 0;       // training FLOPs one GPU performs per iteration
  std::vector<Message> messages;  // TP all-reduce, DP reduce-scatter + all-gather, PP send/recv
};

// Compute time of one iteration on one GPU: flops_per_gpu / (peak BF16 x MFU), stretched by the
// 1F1B pipeline bubble (1 + (pp - 1) / micro_batches). Communication is the network's part.
double compute_time_s(const IterationPlan& plan, const Parallelism& p, const ComputeModel& gpu);

// Throws std::invalid_argument when the split does not divide (layers % pp, heads % tp,
// global_batch % (dp*micro_batch)).
IterationPlan plan_iteration(const TransformerSpec& s, const Parallelism& p);
// Why `p` cannot run `s` (pp not dividing the layers, tp the heads, dp x micro_batch the global
// batch), naming the field ("pp", "tp", "global_batch"); plan_iteration throws its message.
std::optional<Status> iteration_problem(const TransformerSpec& s, const Parallelism& p);

}  // namespace commlab
