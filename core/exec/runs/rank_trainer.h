#pragma once
// Data-parallel training with one real process per rank (`run --exec mpi`): this process holds
// only its own replica and optimizer, computes its own micro-batch and sends each gradient bucket
// through the real collective (MpiExecutor) with the scenario's plan and codec, or, with a
// compression baseline, through this rank's stateful compressor (RankCompressor). Everything else
// is DataParallelTrainer's arithmetic in the same order, so rank r's replica follows the simulated
// rank r's bit for bit and rank 0's samples equal the simulated run's.
//
// The time plane (what the simulator predicts for this run) comes from a shadow: rank 0 also
// receives every rank's bucket (outside the timed collective) and hands all of them to the
// simulated reducer, whose reports fill the sample exactly as in a simulated run; the shadow's
// per-rank results are compared with what each process really received (`mismatched_buckets`).
#include <memory>
#include <optional>
#include <vector>

#include "exec/mpi_executor.h"
#include "exec/mpi_runtime.h"
#include "exec/runs/bucket_collective.h"
#include "exec/runs/compressed_exchange.h"
#include "train/trainer.h"

namespace commlab::exec {

// Measured wall-clock seconds of this rank, summed over the iterations so far.
struct MeasuredSplit {
  double compute_s = 0;     // batch, forward/backward, optimizer
  double comm_s = 0;        // the real collectives, codec excluded
  double codec_s = 0;       // encoding and decoding inside them
  double wall_s = 0;        // whole iterations (shadow and metrics included)
  uint64_t bytes_sent = 0;  // by this rank's collectives, on the wire (encoded, as sent)
};

class RankTrainer {
 public:
  // config.ranks must equal rt.size(). `shadow` is used on rank 0 only (may be null elsewhere);
  // everything passed must outlive the trainer. Throws std::invalid_argument for a bad config.
  RankTrainer(const MpiRuntime& rt, Model prototype, const Dataset& train, const Dataset& test,
              TrainerConfig config, BucketCollective& collective, GradientReducer* shadow);
  ~RankTrainer();

  // One iteration on every rank (all must call it). On rank 0 the full sample; elsewhere only
  // `iteration` is meaningful.
  Sample step();
  int iteration() const { return progress_.iteration(); }
  const std::vector<BucketInfo>& buckets() const { return buckets_; }
  Model& replica() { return replica_; }
  const MeasuredSplit& measured() const { return measured_; }
  // Rank 0: buckets (summed over iterations and ranks) where a process received other bytes than
  // the simulated data plane gave that rank. 0 when the real collective is right.
  uint64_t mismatched_buckets() const { return mismatched_; }

 private:
  // The scenario's all-reduce of bucket b in place, then 1/N.
  MpiCollectiveReport all_reduce_average(const BucketInfo& b, std::span<float> g);
  LossStats evaluate();
  double divergence();

  const MpiRuntime& rt_;
  const Dataset& train_;
  const Dataset& test_;
  TrainerConfig config_;
  BucketCollective& collective_;
  GradientReducer* shadow_;
  MpiExecutor executor_;
  std::optional<RankCompressor> compressor_;  // collective.compression(): top-k or PowerSGD
  Model replica_;
  Optimizer optimizer_;
  std::vector<BucketInfo> buckets_;
  std::optional<ShardSampler> sampler_;  // set once the config is checked
  std::vector<int32_t> index_, eval_index_;
  TrainingProgress progress_;  // its evaluation schedule is rank 0's: only rank 0 evaluates
  MeasuredSplit measured_;
  uint64_t mismatched_ = 0;
  Matrix batch_x_;
  std::vector<int32_t> batch_y_;
  // Rank 0: every rank's bucket before the collective (rank-major), for the shadow.
  std::vector<std::vector<float>> gathered_;
};

}  // namespace commlab::exec
