#pragma once
// Simulated time of one training step on a GPU: compute from FLOPs (peak BF16 x MFU) or weight
// traffic (HBM bandwidth), whichever is slower, and DDP-style overlap of bucket communication with
// the backward pass. A tiny GPU description lives here until topology/ grows shared presets.
#include <string>
#include <vector>

namespace commlab {

struct GpuPreset {
  std::string name;
  double peak_bf16_flops = 0;  // dense, FLOP/s
  double hbm_bytes_per_s = 0;
};

// "a100" (312 TFLOP/s, 2.0 TB/s), "h100" (989 TFLOP/s, 3.35 TB/s), "b200" (2250 TFLOP/s, 8 TB/s),
// "v100" (125 TFLOP/s FP16, 0.9 TB/s). Throws std::invalid_argument for other names.
GpuPreset gpu_preset(const std::string& name);

struct ComputeModel {
  GpuPreset gpu = {"a100", 312e12, 2.0e12};
  double mfu = 0.4;
  // Time of a kernel with `flops` FLOPs that streams `bytes` through HBM.
  double time(double flops, double bytes) const;
};

struct LayerCost {
  double forward_s = 0;
  double backward_s = 0;
  int bucket = -1;  // bucket index of the layer, or -1 without parameters
};

struct StepTiming {
  double compute_s = 0;        // forward + backward
  double comm_total_s = 0;     // all buckets' collective time
  double codec_total_s = 0;    // all buckets' codec time
  double comm_exposed_s = 0;   // the part of the comm stream left after backward ends, split
  double codec_exposed_s = 0;  //   between comm and codec in proportion to their totals
  double step_s = 0;           // compute_s + comm_exposed_s + codec_exposed_s
};

// DDP overlap: layers' backward run last to first; a bucket is ready when its layer's backward
// ends; one communication stream processes buckets in readiness order, each taking comm + codec.
// bucket_comm_s / bucket_codec_s are indexed by bucket.
StepTiming overlap_step(const std::vector<LayerCost>& layers,
                        const std::vector<double>& bucket_comm_s,
                        const std::vector<double>& bucket_codec_s);

}  // namespace commlab
