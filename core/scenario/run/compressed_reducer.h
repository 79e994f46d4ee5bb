#pragma once
// The GradientReducer of the compression baselines with error feedback (compress/),
// stateful per rank and bucket, on the trainer's real gradient buckets:
// - top-k (techniques.topk): every rank packs its k (index, value) pairs, a ring all-gather moves
//   the packed bytes (N-1 steps of 4 * ceil(k (4 + v) / 4) bytes per rank, v the wire value
//   size), and every rank sums the N sparse sets in rank order and divides by N;
// - PowerSGD (techniques.powersgd): P and Q are all-reduced (averaged) with the configured
//   collective and wire format; buckets PowerSGD would not shrink are all-reduced exactly.
// Every exchange runs as a Plan on the executor with the run's network backend, so bytes and time
// come from the same machinery as the plain collective's; the exchanges themselves
// (exec/runs/compressed_exchange.h) are the ones `--exec mpi` runs across real processes. The
// compression kernels are charged as codec time on the run's GPU model (cluster.gpu, mfu): top-k
// one pass over the bucket (g and e read, e and the result written, 16 B per element) plus the N k
// received pairs; PowerSGD the three products 2 rows cols r FLOPs each and Gram-Schmidt 2 rows r^2,
// streaming M 4 times.
#include <vector>

#include "codec/codec.h"
#include "collective/simulated_executor.h"
#include "collective/wire.h"
#include "compress/powersgd.h"
#include "compress/topk_ef.h"
#include "network/backend.h"
#include "scenario/run/collective_reducer.h"
#include "scenario/run_config.h"
#include "train/compute_model.h"
#include "train/reducer.h"

namespace commlab {

// True when the run uses one of the compression baselines (then CompressedReducer trains it).
bool uses_compression_baseline(const RunConfig& config);

class CompressedReducer final : public GradientReducer {
 public:
  // `backend` must outlive the reducer. Throws std::invalid_argument naming the scenario field for
  // settings the baselines cannot honour (another technique at the same time, a wire other than
  // fp32 or bf16).
  CompressedReducer(const RunConfig& config, NetworkBackend& backend);
  ReduceReport reduce(int iteration, const BucketInfo& bucket,
                      std::vector<std::span<float>>& grads) override;
  std::string name() const override;
  const ReducerTotals& totals() const { return totals_; }

 private:
  ReduceReport reduce_topk(int iteration, const BucketInfo& bucket,
                           std::vector<std::span<float>>& grads);
  ReduceReport reduce_powersgd(int iteration, const BucketInfo& bucket,
                               std::vector<std::span<float>>& grads);
  // Runs `plan` on one buffer per rank with the wire codec; adds its bytes and time to `report`.
  void run_plan(const Plan& plan, std::vector<std::span<float>> buffers, int iteration,
                const BucketInfo& bucket, TransferCodec& codec, ReduceReport& report);
  // Averages `buffers` over the ranks with the plain collective (collective.algorithm and wire).
  void all_reduce_average(std::vector<std::span<float>> buffers, int iteration,
                          const BucketInfo& bucket, ReduceReport& report);

  RunConfig config_;
  NetworkBackend& backend_;
  DType wire_ = DType::kBf16;
  CollectiveReducer dense_;  // the exact all-reduces: PowerSGD's P and Q, uncompressed buckets
  Fp32Wire bytes_codec_;     // moves packed sparse sets bit for bit
  std::vector<std::vector<TopKErrorFeedback>> topk_;  // [bucket][rank]
  std::vector<std::vector<PowerSgdState>> powersgd_;  // [bucket][rank]
  std::vector<std::vector<float>> scratch_;           // one per rank
  ComputeModel compute_;
  std::vector<float> exact_;
  ReducerTotals totals_;
};

}  // namespace commlab
