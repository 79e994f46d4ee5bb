#include "workload/catalog/catalog.h"

#include <algorithm>
#include <stdexcept>

#include "io/status.h"

namespace commlab {

const std::vector<TransformerSpec>& workload_catalog() {
  // Shapes from the model cards / papers: GPT-3 (Brown et al. 2020, table 2.1; "GPT 7B" is its
  // 6.7B row, SimAI's gpt_7B), Llama 3 (Meta 2024, table 3), BLOOM (BigScience 2022).
  static const std::vector<TransformerSpec> catalog = {
      {"gpt-7b", "GPT 7B", 32, 4096, 32, 32, 16384, 50257, 2048, false, true, true, true, false,
       6.7e9},
      {"gpt3-175b", "GPT-3 175B", 96, 12288, 96, 96, 49152, 50257, 2048, false, true, true, true,
       false, 175e9},
      {"llama3-8b", "Llama-3 8B", 32, 4096, 32, 8, 14336, 128256, 8192, true, false, false, false,
       false, 8.03e9},
      {"llama3-70b", "Llama-3 70B", 80, 8192, 64, 8, 28672, 128256, 8192, true, false, false, false,
       false, 70.6e9},
      {"llama3-405b", "Llama-3 405B", 126, 16384, 128, 8, 53248, 128256, 8192, true, false, false,
       false, false, 405e9},
      {"bloom-176b", "BLOOM-176B", 70, 14336, 112, 112, 57344, 250880, 2048, false, true, false,
       true, true, 176.2e9},
      // BERT-large (Devlin et al. 2019, table 1 and section 3: L=24, H=1024, A=16, 340M; FFN 4H,
      // WordPiece 30,522, 512 positions, post-LN with a LayerNorm on the embeddings). Counted here:
      // 334M (token-type table and pooler left out). The SkipReduce paper fine-tunes it on SWAG.
      {"bert-large", "BERT-large", 24, 1024, 16, 16, 4096, 30522, 512, false, true, true, true,
       true, 340e6},
      // Llama-3.2 1B (Meta's model card: 16 layers, width 2048, 32 heads, 8 KV heads, SwiGLU 8192,
      // vocabulary 128,256, tied embeddings, 1.23B). The SkipReduce paper fine-tunes it on MNLI.
      {"llama3.2-1b", "Llama-3.2 1B", 16, 2048, 32, 8, 8192, 128256, 8192, true, true, false, false,
       false, 1.23e9},
      // Mixtral 8x7B (Jiang et al. 2024): Mistral-7B blocks with 8 SwiGLU experts, top-2 routing.
      {"mixtral-8x7b", "Mixtral 8x7B", 32, 4096, 32, 8, 14336, 32000, 4096, true, false, false,
       false, false, 46.7e9, 8, 2, 12.9e9},
  };
  return catalog;
}

const TransformerSpec& find_workload(const std::string& name) {
  std::string known;
  for (const auto& s : workload_catalog()) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw bad_input("unknown workload '" + name + "' (known: " + known + ")");
}

int64_t attention_parameter_count(const TransformerSpec& s) {
  const int64_t h = s.hidden;
  const int64_t kv = h / s.heads * s.kv_heads;  // width of K and V under grouped-query attention
  int64_t attn = 2 * h * h + 2 * h * kv;        // Q, O and K, V
  if (s.biases) attn += h + 2 * kv + h;
  // Its norm: LayerNorm has scale and shift, RMSNorm only a scale.
  return attn + (s.biases ? 2 : 1) * h;
}

int64_t mlp_parameter_count(const TransformerSpec& s) {
  const int64_t h = s.hidden;
  int64_t mlp = (s.gated_mlp ? 3 : 2) * h * s.ffn;
  if (s.biases) mlp += s.ffn + h;
  return mlp;
}

int64_t router_parameter_count(const TransformerSpec& s) {
  return s.moe() ? s.hidden * s.experts : 0;
}

// The block's second norm (before the MLP) is counted with the router: it is not an expert's.
int64_t layer_parameter_count(const TransformerSpec& s) {
  const int64_t mlp_norm = (s.biases ? 2 : 1) * s.hidden;
  return attention_parameter_count(s) + mlp_parameter_count(s) * std::max(s.experts, 1) +
         router_parameter_count(s) + mlp_norm;
}

namespace {
int64_t outside_layers(const TransformerSpec& s) {
  const int64_t h = s.hidden;
  int64_t n = s.vocab * h * (s.tied_embeddings ? 1 : 2);
  if (s.learned_positions) n += s.seq * h;
  if (s.embedding_norm) n += 2 * h;
  return n + (s.biases ? 2 : 1) * h;  // final norm
}
}  // namespace

int64_t parameter_count(const TransformerSpec& s) {
  return s.layers * layer_parameter_count(s) + outside_layers(s);
}

int64_t active_parameter_count(const TransformerSpec& s) {
  if (!s.moe()) return parameter_count(s);
  const int64_t idle = static_cast<int64_t>(s.experts - s.top_k) * mlp_parameter_count(s);
  return parameter_count(s) - s.layers * idle;
}

double forward_flops_per_token(const TransformerSpec& s) {
  const double h = static_cast<double>(s.hidden);
  const int64_t active_layer =
      layer_parameter_count(s) -
      (s.moe() ? static_cast<int64_t>(s.experts - s.top_k) * mlp_parameter_count(s) : 0);
  const double matrices = static_cast<double>(s.layers) * active_layer +
                          static_cast<double>(s.vocab) * h;  // the output head
  return 2.0 * matrices + 4.0 * s.layers * static_cast<double>(s.seq) * h;
}

double training_flops_per_token(const TransformerSpec& s) {
  return 3.0 * forward_flops_per_token(s);
}

double compute_time_s(const IterationPlan& plan, const Parallelism& p, const ComputeModel& gpu) {
  const double bubble =
      plan.micro_batches > 0 ? 1.0 + static_cast<double>(p.pp - 1) / plan.micro_batches : 1.0;
  return gpu.time(plan.flops_per_gpu, 0) * bubble;
}

Parallelism resolve_parallelism(Parallelism asked, int gpus) {
  if (asked.dp < 0 || asked.tp < 1 || asked.pp < 1)
    throw bad_input("parallelism degrees must be >= 1 (dp 0: as many as fit), got dp " +
                    std::to_string(asked.dp) + ", tp " + std::to_string(asked.tp) + ", pp " +
                    std::to_string(asked.pp));
  const long long tp_pp = static_cast<long long>(asked.tp) * asked.pp;
  const std::string of_gpus = "the " + std::to_string(gpus) + " GPUs";
  if (tp_pp > gpus) throw bad_input("tp x pp = " + std::to_string(tp_pp) + " exceeds " + of_gpus);
  if (asked.dp == 0) asked.dp = static_cast<int>(gpus / tp_pp);
  const long long all = asked.dp * tp_pp;
  if (all > gpus) throw bad_input("dp x tp x pp = " + std::to_string(all) + " exceeds " + of_gpus);
  return asked;
}

std::optional<Status> iteration_problem(const TransformerSpec& s, const Parallelism& p) {
  if (p.dp < 1 || p.tp < 1 || p.pp < 1 || p.micro_batch < 1 || p.global_batch < 1)
    return invalid_input("", "parallelism degrees and batch sizes must be >= 1");
  if (s.layers % p.pp != 0)
    return invalid_input("pp", s.name + ": " + std::to_string(s.layers) +
                                   " layers do not split into pp=" + std::to_string(p.pp) +
                                   " stages");
  // KV heads either split over TP or are replicated (tp a multiple of them), as Megatron does.
  if (s.heads % p.tp != 0 || (s.kv_heads % p.tp != 0 && p.tp % s.kv_heads != 0))
    return invalid_input("tp", s.name + ": " + std::to_string(s.heads) +
                                   " heads do not split over tp=" + std::to_string(p.tp));
  if (p.global_batch % (p.dp * p.micro_batch) != 0)
    return invalid_input("global_batch", "global batch " + std::to_string(p.global_batch) +
                                             " is not a multiple of dp*micro_batch = " +
                                             std::to_string(p.dp * p.micro_batch));
  return std::nullopt;
}

IterationPlan plan_iteration(const TransformerSpec& s, const Parallelism& p) {
  // Without the field: each caller (a flag, a scenario path) names it its own way.
  if (std::optional<Status> bad = iteration_problem(s, p)) throw bad_input(bad->message);
  IterationPlan plan;
  plan.micro_batches = p.global_batch / (p.dp * p.micro_batch);
  plan.layers_per_stage = s.layers / p.pp;
  const double params = static_cast<double>(parameter_count(s));
  plan.params_per_gpu = params / (static_cast<double>(p.tp) * p.pp);
  const double tokens = static_cast<double>(p.global_batch) * s.seq;
  plan.flops_per_gpu = training_flops_per_token(s) * tokens / p.gpus();
  const uint64_t activation =
      static_cast<uint64_t>(s.seq) * p.micro_batch * s.hidden * p.wire_bytes;
  if (p.tp > 1) {
    // Megatron: two all-reduces in the forward pass of a block (after attention, after the MLP)
    // and two in the backward pass, per micro-batch.
    plan.messages.push_back({MessageKind::kTpAllReduce, p.tp, p.dp * p.pp, activation,
                             4 * plan.layers_per_stage * plan.micro_batches});
  }
  if (p.dp > 1) {
    // Distributed optimizer: reduce-scatter the stage's gradient shard, all-gather the new weights.
    const uint64_t grad = static_cast<uint64_t>(plan.params_per_gpu * p.wire_bytes);
    plan.messages.push_back({MessageKind::kDpReduceScatter, p.dp, p.tp * p.pp, grad, 1});
    plan.messages.push_back({MessageKind::kDpAllGather, p.dp, p.tp * p.pp, grad, 1});
  }
  if (p.pp > 1) {
    // Each stage boundary carries one activation forward and one gradient backward per
    // micro-batch (the full activation: Megatron's scatter-gather optimisation not modelled).
    plan.messages.push_back({MessageKind::kPpSendRecv, 2, p.dp * p.tp * (p.pp - 1), activation,
                             2 * plan.micro_batches});
  }
  return plan;
}

}  // namespace commlab
