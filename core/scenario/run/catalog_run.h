#pragma once
// A catalog workload run (workload.kind = catalog): GPT-3 175B, Llama-3, ... at real scale are far
// too big to train here, so their runs live on the time plane only. Every message the
// parallelism sends is timed once on the cluster's network (workload/workload_timing.h) with the
// run's techniques (a codec's ratio measured on real bytes of workload.tensor_source, SkipReduce on
// DP reduce-scatter); each iteration then costs the same, and its samples carry the time split but
// no loss (NaN) and no byte count (0), so the GUI and the CLI chart catalog and trained runs with
// the same code.
#include <string>

#include "scenario/run_config.h"
#include "train/trainer.h"
#include "workload/workload_timing.h"

namespace commlab {

// Wire bytes / BF16 bytes of `codec` on 2^20 values of `source` (tensor_gen.h) drawn with `seed`,
// or on a real gradient for model:NAME (train/layers/model_gradients.h); 1 for "none". Throws
// std::invalid_argument for an unknown codec or source, std::runtime_error when the codec fails.
double measure_codec_ratio(const std::string& codec, const std::string& source, uint64_t seed);

class CatalogRun {
 public:
  // Throws std::invalid_argument naming the scenario field for what a catalog run cannot do
  // (trimming, the packet backend, a cluster smaller than dp x tp x pp).
  explicit CatalogRun(const RunConfig& config);
  // Iteration `iteration` (1-based): the timing's split, cumulative simulated time.
  Sample sample(int iteration) const;
  const WorkloadTiming& timing() const { return timing_; }
  double ratio() const { return ratio_; }
  int skip() const { return skip_; }

 private:
  WorkloadTiming timing_;
  double ratio_ = 1;
  int skip_ = 0;
};

}  // namespace commlab
