#include "train/compute_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace commlab {

double ComputeModel::time(double flops, double bytes) const {
  const double t_flops = gpu.bf16_flops > 0 ? flops / (gpu.bf16_flops * mfu) : 0;
  const double t_mem = gpu.hbm_Bps > 0 ? bytes / gpu.hbm_Bps : 0;
  return std::max(t_flops, t_mem);
}

namespace {

std::optional<Status> time_problem(const std::string& field, double seconds) {
  if (std::isfinite(seconds) && seconds >= 0) return std::nullopt;
  return invalid_input(field,
                       "expected a finite time >= 0 in seconds, got " + std::to_string(seconds));
}

}  // namespace

std::optional<Status> step_costs_problem(const std::vector<LayerCost>& layers,
                                         const std::vector<double>& comm,
                                         const std::vector<double>& codec) {
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string at = "layers[" + std::to_string(i) + "]";
    if (auto bad = time_problem(at + ".forward_s", layers[i].forward_s)) return bad;
    if (auto bad = time_problem(at + ".backward_s", layers[i].backward_s)) return bad;
  }
  for (size_t b = 0; b < comm.size(); ++b)
    if (auto bad = time_problem("bucket_comm_s[" + std::to_string(b) + "]", comm[b])) return bad;
  for (size_t b = 0; b < codec.size(); ++b)
    if (auto bad = time_problem("bucket_codec_s[" + std::to_string(b) + "]", codec[b])) return bad;
  return std::nullopt;
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
