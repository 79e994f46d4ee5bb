#include "train/compute_model.h"

#include <algorithm>
#include <stdexcept>

namespace commlab {

double ComputeModel::time(double flops, double bytes) const {
  const double t_flops = gpu.bf16_flops > 0 ? flops / (gpu.bf16_flops * mfu) : 0;
  const double t_mem = gpu.hbm_Bps > 0 ? bytes / gpu.hbm_Bps : 0;
  return std::max(t_flops, t_mem);
}

StepTiming overlap_step(const std::vector<LayerCost>& layers, const std::vector<double>& comm,
                        const std::vector<double>& codec) {
  StepTiming t;
  double clock = 0;
  for (const auto& l : layers) clock += l.forward_s;
  double stream_free = 0;
  for (size_t i = layers.size(); i-- > 0;) {
    clock += layers[i].backward_s;
    const int b = layers[i].bucket;
    if (b < 0) continue;
    const double c = b < static_cast<int>(comm.size()) ? comm[b] : 0;
    const double k = b < static_cast<int>(codec.size()) ? codec[b] : 0;
    t.comm_total_s += c;
    t.codec_total_s += k;
    stream_free = std::max(stream_free, clock) + c + k;
  }
  t.compute_s = clock;
  const double exposed = std::max(0.0, stream_free - clock);
  const double busy = t.comm_total_s + t.codec_total_s;
  t.codec_exposed_s = busy > 0 ? exposed * t.codec_total_s / busy : 0;
  t.comm_exposed_s = exposed - t.codec_exposed_s;
  t.step_s = t.compute_s + exposed;
  return t;
}

}  // namespace commlab
