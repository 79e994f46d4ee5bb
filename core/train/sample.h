#pragma once
// What one training iteration reports: its sample (losses, accuracy, the simulated split of its
// time, its buckets' compression and the network over it).
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "train/compute_model.h"

namespace commlab {

// One gradient bucket (layer) of one iteration, as its collective reported it.
struct BucketSample {
  std::string name;
  uint64_t elements = 0;
  double ratio = 1;           // wire bytes / bytes of the uncompressed wire format (FP32 or BF16)
  double effective_bits = 0;  // information bits per carried coordinate that reached receivers
  uint64_t dropped_contributions = 0;  // SkipReduce (chunk, rank) pairs left out
  uint64_t trimmed_packets = 0;
  double nmse = 0;                    // worst rank
  std::vector<double> plane_entropy;  // bits per byte of each wire byte plane (reducer.h)
};

// The network over one sample interval of the packet backend, aggregated over its ports.
struct NetworkPoint {
  double t_s = 0;  // end of the interval, on the network's clock
  double max_queue_bytes = 0;
  double mean_utilisation = 0;  // busy fraction, mean over ports
  double max_utilisation = 0;
  uint32_t trims = 0, drops = 0;
};

struct Sample {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  int iteration = 0;        // 1-based: iterations completed
  double sim_time_s = 0;    // cumulative simulated time
  double wall_time_s = 0;   // cumulative wall time of the data plane
  double train_loss = 0;    // mean over the global batch (average of the ranks' micro-batch losses)
  double test_loss = kNaN;  // NaN unless evaluated at this iteration (rank 0's replica)
  double test_accuracy = kNaN;
  // Test accuracy of each class (label index) when evaluated on a classification set: of the
  // evaluated rows labelled k, the fraction predicted k (NaN: no row of class k). Empty otherwise.
  std::vector<double> class_accuracy;
  double grad_norm = 0;  // L2 norm of the gradient rank 0 applied
  double lr = 0;
  uint64_t bytes_on_wire = 0;                                    // this iteration
  double compute_time_s = 0, comm_time_s = 0, codec_time_s = 0;  // this iteration, exposed parts
  double comm_total_s = 0, codec_total_s = 0;                    // before overlap
  uint64_t skipped_contributions = 0, trimmed_packets = 0;
  double nmse = 0;        // worst bucket of this iteration
  double divergence = 0;  // max over ranks of ||p_r - p_0|| / ||p_0||
  double ratio = 1;  // wire bytes / uncompressed wire-format bytes, all buckets, this iteration
  double effective_bits = 0;  // information bits per carried coordinate (32 = FP32, no loss)
  std::vector<BucketSample> buckets;  // forward (layer) order
  std::vector<NetworkPoint> network;  // packet backend: the intervals this iteration covered
  bool evaluated() const { return test_accuracy == test_accuracy; }
};

// Puts a step's simulated split on its sample: compute, exposed and total communication and codec
// (sim_time_s, the running total, is the caller's).
void set_step_timing(Sample& s, const StepTiming& t);

using SampleObserver = std::function<void(const Sample&)>;

}  // namespace commlab
