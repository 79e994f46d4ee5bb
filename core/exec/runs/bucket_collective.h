#pragma once
// What the real collective runs for a bucket, identical on every rank (the scenario provides it):
// the plan (SkipReduce decision included), the transfer codec, Bernoulli trimming, and the
// compression baseline (top-k or PowerSGD) that replaces the all-reduce, if any.
#include <cstdint>

#include "codec/codec.h"
#include "collective/plan.h"
#include "collective/wire.h"
#include "train/reducer.h"

namespace commlab::exec {

// techniques.topk / techniques.powersgd of the scenario, as the rank that runs them needs them.
struct CompressionSpec {
  enum class Kind { kNone, kTopK, kPowerSgd };
  Kind kind = Kind::kNone;
  double topk_fraction = 0;   // top-k: k = ceil(fraction * bucket size)
  int powersgd_rank = 0;      // PowerSGD: rank of the approximation
  DType wire = DType::kFp32;  // the dtype the values travel in (fp32 or bf16)
  uint64_t seed = 0;          // PowerSGD's shared initial Q
};

class BucketCollective {
 public:
  virtual ~BucketCollective() = default;
  // The all-reduce of `bucket.size` values (PowerSGD asks for its P and Q sizes too).
  virtual Plan plan(int iteration, const BucketInfo& bucket) = 0;
  virtual TransferCodec* codec() = 0;
  virtual double trim_rate() const = 0;  // Bernoulli trimming (0: none)
  virtual uint64_t trim_seed() const = 0;
  virtual CompressionSpec compression() const { return {}; }
};

}  // namespace commlab::exec
