#pragma once
// Simulated time of one training step on a GPU: compute from FLOPs (peak BF16 x MFU) or weight
// traffic (HBM bandwidth), whichever is slower, and DDP-style overlap of bucket communication with
// the backward pass. GPU figures come from the shared presets in topology/gpu_presets.h.
#include <optional>
#include <string>
#include <vector>

#include "io/status.h"
#include "topology/gpu_presets.h"

namespace commlab {

struct ComputeModel {
  GpuPreset gpu = gpu_preset("a100");  // topology/gpu_presets.h: a100, h100, h200, b200
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
// Times from outside (Python's overlap_step) checked before overlap_step: every forward, backward,
// communication and codec time finite and >= 0 (field "layers[i].backward_s", "bucket_comm_s[b]").
std::optional<Status> step_costs_problem(const std::vector<LayerCost>& layers,
                                         const std::vector<double>& bucket_comm_s,
                                         const std::vector<double>& bucket_codec_s);
StepTiming overlap_step(const std::vector<LayerCost>& layers,
                        const std::vector<double>& bucket_comm_s,
                        const std::vector<double>& bucket_codec_s);

}  // namespace commlab
