#pragma once
// One catalog workload's settings, checked once for every door (commlab-cli workload, the Python
// module's time_workload): the model and its sequence length, the engine, the parallelism resolved
// on the cluster's GPUs and valid for the model's shape, the compute model, and the techniques on
// the data-parallel gradients. Statuses name the field as the Python argument is named ("tp",
// "micro_batch"); the CLI prints the flag of the same name (--tp, --micro-batch).
#include <optional>
#include <string>

#include "io/bounds.h"
#include "io/status.h"
#include "train/compute_model.h"
#include "workload/catalog/catalog.h"
#include "workload/workload_timing.h"

namespace commlab {

// The largest tensor-, pipeline- and expert-parallel degree, and data-parallel degree.
inline constexpr int kMaxModelParallelDegree = 4096;
inline constexpr int kMaxDataParallelDegree = 1 << 20;
// The ranges of the degrees (tp, pp), the batches and the sequence length (0: the model's).
inline constexpr Bounds<int> kCatalogModelParallel{1, kMaxModelParallelDegree};
inline constexpr Bounds<int> kCatalogDataParallel{0, kMaxDataParallelDegree};  // 0: as many as fit
inline constexpr Bounds<int> kCatalogMicroBatch{1, 1 << 16};
inline constexpr Bounds<int> kCatalogGlobalBatch{1, 1 << 24};
inline constexpr Bounds<long long> kCatalogSeq{0, 1 << 20};

// What the user asked for, as text and numbers.
struct CatalogRequest {
  std::string catalog = "gpt3-175b";
  std::string engine = "graph";  // graph: replay per-rank graphs; sum: the closed form
  int dp = 0;                    // 0: as many replicas as the cluster holds
  int tp = 4, pp = 1;
  int micro_batch = 1, global_batch = 128;
  long long seq = 0;  // 0: the model's sequence length
  std::string gpu = "h100";
  double mfu = 0.4;
  double ratio = 1.0;  // wire bytes / payload bytes of the TP and DP messages (a codec)
  int skip = 0;        // SkipReduce: steps of the DP reduce-scatter ring skipped
  double codec_s_per_byte = 0.0;
};

struct CatalogSettings {
  TransformerSpec spec;  // with the asked sequence length
  bool graph_engine = true;
  Parallelism parallel;  // resolved: dp is never 0
  ComputeModel compute;
  WorkloadTechniques techniques;
};

// The compute model's utilisation and a wire ratio, each a number in (0, 1]: the refusal naming
// "mfu" or "ratio", nothing when the value is one. Shared by the catalog settings and the flags
// that set them without a catalog model (a Chakra trace's --mfu).
std::optional<Status> mfu_problem(double mfu);
std::optional<Status> ratio_problem(double ratio);

// Every field of `request` checked on a cluster of `gpus` GPUs; the first problem found, naming
// its field.
StatusOr<CatalogSettings> catalog_settings(const CatalogRequest& request, int gpus);

}  // namespace commlab
