#pragma once
// The compression baselines' exchanges (core/compress: top-k with error feedback, PowerSGD), for
// the simulated reducer (scenario/run/compressed_reducer, all ranks in one process) and for one
// real MPI process (RankCompressor), so both move the same bytes in the same order:
// - top-k: each rank packs its k (index, value) pairs into its chunk of an N-chunk buffer, a ring
//   all-gather moves the chunks (FP32 wire: the packed bytes travel bit for bit), and each rank
//   sums the N sets in rank order and multiplies by 1/N;
// - PowerSGD: P = M Q is all-reduced (sum times 1/N) with the scenario's plan and codec, then
//   orthogonalised, Q = M^T P all-reduced the same way, and M_hat = P Q^T kept; buckets PowerSGD
//   would not shrink are all-reduced exactly.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "collective/plan.h"
#include "compress/powersgd.h"
#include "compress/topk_ef.h"
#include "exec/mpi_executor.h"
#include "exec/runs/bucket_collective.h"

namespace commlab::exec {

// The all-gather of the ranks' packed sparse sets for one bucket.
struct SparseGather {
  Plan plan;         // ring all-gather of ranks * words floats
  size_t k = 0;      // pairs per rank
  size_t words = 0;  // floats per rank's chunk: ceil(sparse_wire_bytes(k, wire) / 4)
  DType wire = DType::kFp32;

  SparseGather(int ranks, size_t bucket_size, double fraction, DType wire);
  // Writes `set` (rank `owner`'s pairs) into its chunk of `buffer` (plan.count floats).
  void pack(int owner, const SparseSet& set, std::span<float> buffer) const;
  // out = (sum over owners 0..N-1, in that order, of their pairs in `buffer`) * (1/N).
  void average(std::span<const float> buffer, std::span<float> out) const;
};

// dense *= 1/N, the float factor DDP's division uses everywhere (CollectiveReducer included).
void scale_by_inverse(std::span<float> values, int ranks);

// One MPI process's compressor state (its residuals, its PowerSGD Q) per bucket, kept across
// iterations, and its exchanges through the real collective.
class RankCompressor {
 public:
  RankCompressor(const CompressionSpec& spec, int rank, int ranks);
  // grad in, the averaged estimate out (what the simulated reducer gives rank `rank`). The
  // report sums the exchange's collectives (bytes this rank sent, time, codec time); the
  // compression kernels between them count as codec time (and time).
  MpiCollectiveReport exchange(int iteration, const BucketInfo& bucket, std::span<float> grad,
                               MpiExecutor& executor, BucketCollective& collective);

 private:
  MpiCollectiveReport exchange_topk(int iteration, const BucketInfo& bucket, std::span<float> grad,
                                    MpiExecutor& executor);
  MpiCollectiveReport exchange_powersgd(int iteration, const BucketInfo& bucket,
                                        std::span<float> grad, MpiExecutor& executor,
                                        BucketCollective& collective);

  CompressionSpec spec_;
  int rank_, ranks_;
  std::vector<std::unique_ptr<TopKErrorFeedback>> topk_;  // [bucket]
  std::vector<std::unique_ptr<PowerSgdState>> powersgd_;  // [bucket]
  std::vector<float> buffer_;
  SparseSet set_;
};

}  // namespace commlab::exec
