#pragma once
// One run of an experiment, fully resolved: every field has its value (defaults filled). The
// scenario parser (scenario.h) turns a JSON scenario into one RunConfig per run and sweep point;
// the runner (runner.h) executes a RunConfig. docs/scenario.md documents every field.
#include <cstdint>
#include <string>
#include <vector>

#include "scenario/config_enums.h"

namespace commlab {

struct ClusterConfig {
  std::string spec = "flat:8";  // topology/presets.h: builder spec, preset name or JSON file
  ClusterBackend backend = ClusterBackend::kAnalytical;
  double reduce_gbps = 2000;  // GPU memory bandwidth charged for reductions, GB/s (0: free)
  std::string gpu = "h100";   // compute model preset (a100, h100, h200, b200)
  double mfu = 0.4;           // model FLOPs utilisation of the compute model
};

// The scenario's `packet` section (a *Section is one section of the file as written; the engine's
// own settings are network/packet_config.h's PacketConfig, collective's SkipConfig, ...).
struct PacketSection {
  uint32_t mtu = 4096;         // payload bytes per packet
  uint32_t queue_packets = 8;  // data-queue threshold per port before admission acts
  Admission admission = Admission::kTrim;
  uint32_t trim_bytes = 0;  // bytes a trimmed packet keeps (header included); 0: auto
                            // (effective_trim_bytes, scenario.h)
  Transport transport = Transport::kNdp;
  std::string background = "none";  // none | incast:K | perm | alltoall | onoff
  double background_load = 0.5;     // fraction of line rate of the background senders
};

struct WorkloadConfig {
  WorkloadKind kind = WorkloadKind::kTrain;
  std::string model = "mlp";        // mlp | cnn | transformer
  std::vector<int> hidden = {256};  // hidden layer widths (mlp)
  std::string dataset =
      "fashion-mnist";                // fashion-mnist | spiral | circles | blobs | xor | text:PATH
  int max_train = 0;                  // 0: the whole training set
  std::string catalog = "gpt3-175b";  // catalog workload name (kind = catalog)
  int dp = 0, tp = 1, pp = 1;         // catalog parallelism; dp 0: ranks / (tp * pp)
  std::string tensor_source = "gaussian";  // where catalog (and trace) codec ratios are measured
  // Catalog graphs (workload/catalog/catalog_graph.h) and traces (kind = trace).
  WorkloadEngine engine = WorkloadEngine::kGraph;  // replay per-rank graphs, or the closed form
  std::string trace;                               // DIR/PREFIX of a Chakra trace (kind = trace)
  // kind = trace: the communicator-group file; "": PREFIX.comm_groups.json, else PREFIX.json
  // (workload/chakra_trace.h find_comm_group_file).
  std::string comm_groups;
  int ep = 1;                       // expert parallelism (MoE catalog models)
  int seq = 0;                      // sequence length; 0: the model's
  int micro_batch = 1;              // sequences per micro-batch
  DType grad_dtype = DType::kBf16;  // catalog gradients on the wire (bf16 or fp32)
  double bucket_mb = 25;            // DP gradient bucket size
  // Trained runs: time every iteration as this catalog model (scenario/run/proxy_timer.h); "": the
  // trained model's own time.
  std::string time_as;
  bool overlap = true;                // DP buckets overlap the backward pass
  bool distributed_optimizer = true;  // reduce-scatter + all-gather; false: all-reduce
};

struct TrainingConfig {
  int ranks = 8;
  int iterations = 300;
  int global_batch = 256;
  int eval_every = 50;
  // > 0: the adaptive cadence (train/eval_schedule.h): every eval_every_far iterations below
  // target_accuracy - eval_fine_margin and after the settled crossing of eval_fine_until (0:
  // target_accuracy); every eval_every in between. Needs tta_window > 0.
  int eval_every_far = 0;
  double eval_fine_margin = 0.1;
  double eval_fine_until = 0;
  int eval_rows = 2000;                           // 0: whole test set; else a seeded random subset
  ShardingMode sharding = ShardingMode::kRandom;  // train/data/sampler.h
  double sharding_alpha = 0.5;  // non-iid: Dirichlet concentration per class over the ranks
  OptimizerKind optimizer = OptimizerKind::kSgd;
  double lr = 0.05;
  // Non-empty: the run is first trained at each of these learning rates over tune_seeds seeds
  // (seed + 1000 onwards) and reported at the best (scenario/run/lr_tuning.h).
  std::vector<double> lr_grid;
  int tune_seeds = 3;
  // > 0: this many rows of the training set are held out as a validation set
  // (train/data/sampler.h, validation_split): no run trains on them, and the learning-rate tuning
  // replicas evaluate on them instead of the test set, which is then read only for reported runs.
  int validation_rows = 0;
  // Set by the tuning (scenario/run/lr_tuning.h), never read from a file: evaluate on the
  // validation rows (needs validation_rows > 0).
  bool evaluate_on_validation = false;
  double momentum = 0.9;
  double weight_decay = 0;
  int warmup = 0;
  DecayKind decay = DecayKind::kConstant;
  double target_accuracy = 0.85;  // for time-to-accuracy
  // The crossing's smoothing window in iterations; 0: kTtaSmoothingWindow evaluations
  // (scenario/run/tta_stats.h).
  int tta_window = 0;
};

struct CollectiveConfig {
  std::string algorithm = "ring";  // ring | tree | hd | hier | direct
  DType wire = DType::kBf16;       // fp32 or bf16 (when no codec is set)
  int ranks_per_node = 0;          // hier; 0: from the cluster
};

struct SkipReduceSection {
  int skip = 0;                             // s; or use ratio
  double ratio = 0;                         // s = round(ratio * ranks) when skip is 0
  SkipPolicy policy = SkipPolicy::kRandom;  // collective/skip.h
  bool unbiased = false;
  // Learning rate x N / (N - s) (ring): the paper's skipped chunks sum N - s contributions and are
  // divided by N, a learning-rate cut of (N - s) / N; this undoes it on the optimizer side.
  bool lr_compensation = false;
  std::vector<std::string> protected_buckets;
  uint64_t min_elements = 100000;
};

struct TrimmingSection {
  bool enabled = false;
  trim::TrimEncoding encoding = trim::TrimEncoding::kEden;
  int head_bits = 1;
  double rate = 0;                       // Bernoulli mode: fraction of packets trimmed
  TrimMode mode = TrimMode::kBernoulli;  // queue: the packet backend decides
  // Multi-level heads: head bits a trimmed packet keeps, decreasing, each 1..head_bits; empty:
  // the single level head_bits (docs/scenario.md, "Multi-level trimming").
  std::vector<int> levels;
};

// Gradient-compression baselines with error feedback (compress/): they replace the
// collective's all-reduce, so neither combines with skipreduce, trimming or a codec.
struct TopKSection {
  bool enabled = false;
  double fraction = 0.01;  // k = ceil(fraction * bucket size) (index, value) pairs per rank
};

struct PowerSgdSection {
  bool enabled = false;
  int rank = 4;  // rank of the P Q^T approximation
};

struct TechniquesConfig {
  std::string codec =
      "none";  // none or a codec name from codec/codec.h (netzip-paper, commlab, ...)
  CodecPlacement codec_placement = CodecPlacement::kNic;  // where codec time is charged
  SkipReduceSection skipreduce;
  TrimmingSection trimming;
  TopKSection topk;
  PowerSgdSection powersgd;
};

// The largest seed: 2^53, the largest integer every JSON reader holds exactly (many read numbers
// as doubles). The schema's `seed` and the CLI's --seed flags share it.
inline constexpr int64_t kMaxSeed = int64_t{1} << 53;

struct RunConfig {
  std::string name = "baseline";
  uint64_t seed = 1;  // 0..kMaxSeed
  // Seeds the run is repeated over: seed, seed+1, ..., seed+seeds-1 (`run --seeds N` overrides
  // it); summary.json carries each seed's values with their mean and 95% interval.
  int seeds = 1;
  // simulated: every rank in this process (the default); mpi: one real process per rank, launched
  // by `mpirun -np <training.ranks> commlab-cli run ...` (exec/runs/rank_trainer.h).
  ExecutionMode execution = ExecutionMode::kSimulated;
  ClusterConfig cluster;
  PacketSection packet;
  WorkloadConfig workload;
  TrainingConfig training;
  CollectiveConfig collective;
  TechniquesConfig techniques;
};

}  // namespace commlab
