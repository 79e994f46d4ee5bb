#pragma once
// The seam between the trainer (data plane of a training step) and the collectives: the trainer
// hands each gradient bucket of every rank to a GradientReducer, which leaves in each rank's buffer
// what that rank received. Collectives (ring, SkipReduce, codecs, trimming) implement it from
// above.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace commlab {

// One bucket = the parameters of one layer (DDP buckets by readiness; ours are per layer).
struct BucketInfo {
  int index = 0;      // 0..num_buckets-1 in forward (layer) order
  int layer = 0;      // index of the layer in the model
  std::string name;   // layer name, e.g. "fc1"
  size_t offset = 0;  // first element in the model's flat parameter vector
  size_t size = 0;    // elements
};

struct ReduceReport {
  uint64_t bytes_on_wire = 0;          // summed over all ranks' sends
  double comm_time_s = 0;              // simulated network time of this bucket's collective
  double codec_time_s = 0;             // simulated encode + decode time on the critical path
  uint64_t skipped_contributions = 0;  // SkipReduce: contributions dropped
  uint64_t trimmed_packets = 0;        // trimming: packets that arrived trimmed
  double nmse = 0;                     // ||received - exact average||^2 / ||exact average||^2
  // Coordinates the transfers carried and the information bits that reached the receivers for
  // them (wire bits, or what survived trimming): bits / coordinates = effective bits per
  // coordinate.
  uint64_t payload_bytes = 0;    // FP32 bytes of those coordinates (4 per coordinate)
  uint64_t reference_bytes = 0;  // what the uncompressed wire format (FP32 or BF16) would send
  double info_bits = 0;
  // Byte-plane entropy (bits per byte, most significant byte first) of rank 0's gradient in the
  // wire dtype, before any codec: per bucket only, not summed by +=.
  std::vector<double> plane_entropy;
  double effective_bits() const {
    return payload_bytes ? info_bits / (static_cast<double>(payload_bytes) / 4.0) : 0.0;
  }
  ReduceReport& operator+=(const ReduceReport& o);
};

class GradientReducer {
 public:
  virtual ~GradientReducer() = default;
  // grads[r] is rank r's gradient for this bucket (all the same size). On return grads[r] holds
  // what rank r received: the average, possibly lossy and rank-dependent. Called once per bucket
  // per iteration, in readiness order (last layer first), from one thread.
  virtual ReduceReport reduce(int iteration, const BucketInfo& bucket,
                              std::vector<std::span<float>>& grads) = 0;
  virtual std::string name() const = 0;
};

// The reference: FP32 sum in fixed rank order (0, 1, ..., N-1) times 1/N, identical on every rank.
// Times a ring all-reduce with an alpha-beta link (2(N-1) steps of S/N bytes) when link_gbps > 0;
// the wire carries FP32.
class ExactAverageReducer final : public GradientReducer {
 public:
  explicit ExactAverageReducer(double link_gbps = 0, double alpha_s = 0)
      : link_gbps_(link_gbps), alpha_s_(alpha_s) {}
  ReduceReport reduce(int iteration, const BucketInfo& bucket,
                      std::vector<std::span<float>>& grads) override;
  std::string name() const override { return "exact"; }

 private:
  double link_gbps_;
  double alpha_s_;
  std::vector<float> sum_;
};

// nmse of `received` against `exact` (0 when exact is all zeros and received equals it).
double nmse(std::span<const float> received, std::span<const float> exact);

}  // namespace commlab
