#pragma once
// The GradientReducer that runs the configured collective on the trainer's real gradient buckets:
// the plan (with SkipReduce's decision for this bucket and iteration), the transfer codec (a wire
// cast, a real codec, or trimmable packets) and the network backend that times every step.
#include <memory>
#include <vector>

#include "collective/algorithms.h"
#include "collective/codec_wire.h"
#include "collective/plan.h"
#include "collective/skip.h"
#include "network/backend.h"
#include "scenario/run_config.h"
#include "train/reducer.h"

namespace commlab {

struct ReducerTotals {
  uint64_t bytes_on_wire = 0;
  uint64_t wire_reference_bytes = 0;  // what the uncompressed wire format would have sent
  uint64_t trimmed_packets = 0;
  uint64_t skipped_steps = 0;
  uint64_t skipped_contributions = 0;
  double info_bits = 0;      // bits that reached the receivers (see ReduceReport)
  uint64_t coordinates = 0;  // coordinates the transfers carried
  // Adds one bucket's report (all but the skip counts, which the report does not carry).
  void add(const ReduceReport& r) {
    bytes_on_wire += r.bytes_on_wire;
    wire_reference_bytes += r.reference_bytes;
    info_bits += r.info_bits;
    coordinates += r.payload_bytes / sizeof(float);
    trimmed_packets += r.trimmed_packets;
  }
  // Adds another run's totals (a fork's, scenario/run/fork.h: the parent's part of the run).
  void add(const ReducerTotals& o) {
    bytes_on_wire += o.bytes_on_wire;
    wire_reference_bytes += o.wire_reference_bytes;
    trimmed_packets += o.trimmed_packets;
    skipped_steps += o.skipped_steps;
    skipped_contributions += o.skipped_contributions;
    info_bits += o.info_bits;
    coordinates += o.coordinates;
  }
};

class CollectiveReducer final : public GradientReducer {
 public:
  // `backend` must outlive the reducer. Throws std::invalid_argument for settings the collective
  // cannot honour (the message names the scenario field).
  CollectiveReducer(const RunConfig& config, NetworkBackend& backend);
  ReduceReport reduce(int iteration, const BucketInfo& bucket,
                      std::vector<std::span<float>>& grads) override;
  std::string name() const override;
  const ReducerTotals& totals() const { return totals_; }
  // The plan reduce() runs for this bucket (SkipReduce's decision included), the transfer codec
  // and the Bernoulli trimming rate (0: none): what `--exec mpi` runs across real processes.
  Plan plan_for(int iteration, const BucketInfo& bucket, int ranks) const;
  TransferCodec* codec() { return codec_.get(); }
  double trim_rate() const;

 private:
  PlanRequest request_for(int iteration, const BucketInfo& bucket, int ranks) const;

  RunConfig config_;
  NetworkBackend& backend_;
  SkipConfig skip_;
  std::unique_ptr<TransferCodec> codec_;
  TrimWire* trim_ = nullptr;  // codec_ when trimming is on
  DType wire_ = DType::kFp32;
  double wire_element_bytes_ = 4;
  int ranks_per_node_ = 1;
  std::vector<float> exact_;
  ReducerTotals totals_;
};

}  // namespace commlab
