#include "train/reducer.h"

#include <algorithm>

namespace commlab {

ReduceReport& ReduceReport::operator+=(const ReduceReport& o) {
  bytes_on_wire += o.bytes_on_wire;
  comm_time_s += o.comm_time_s;
  codec_time_s += o.codec_time_s;
  skipped_contributions += o.skipped_contributions;
  trimmed_packets += o.trimmed_packets;
  nmse = std::max(nmse, o.nmse);  // worst bucket
  payload_bytes += o.payload_bytes;
  reference_bytes += o.reference_bytes;
  info_bits += o.info_bits;
  return *this;
}

ReduceReport ExactAverageReducer::reduce(int, const BucketInfo&,
                                         std::vector<std::span<float>>& grads) {
  ReduceReport report;
  const size_t n = grads.size();
  if (n <= 1) return report;
  const size_t len = grads[0].size();
  sum_.assign(grads[0].begin(), grads[0].end());
  for (size_t r = 1; r < n; ++r) {
    const float* g = grads[r].data();
    for (size_t i = 0; i < len; ++i) sum_[i] += g[i];
  }
  const float inv = 1.0f / static_cast<float>(n);
  for (size_t i = 0; i < len; ++i) sum_[i] *= inv;
  for (auto& g : grads) std::copy(sum_.begin(), sum_.end(), g.begin());
  // Ring all-reduce: 2(N-1) steps, each rank sends S/N bytes per step -> 2(N-1)*S bytes in all.
  const double bytes = static_cast<double>(len) * sizeof(float);
  report.bytes_on_wire = static_cast<uint64_t>(2.0 * (n - 1) * bytes);
  report.payload_bytes = report.bytes_on_wire;  // FP32 on the wire, nothing lost
  report.reference_bytes = report.bytes_on_wire;
  report.info_bits = 8.0 * static_cast<double>(report.bytes_on_wire);
  if (link_gbps_ > 0) {
    report.comm_time_s = 2.0 * (n - 1) * (alpha_s_ + bytes / n / (link_gbps_ * 1e9 / 8));
  }
  return report;
}

double nmse(std::span<const float> received, std::span<const float> exact) {
  double err = 0, ref = 0;
  for (size_t i = 0; i < exact.size(); ++i) {
    const double d = static_cast<double>(received[i]) - exact[i];
    err += d * d;
    ref += static_cast<double>(exact[i]) * exact[i];
  }
  return ref > 0 ? err / ref : (err > 0 ? 1.0 : 0.0);
}

}  // namespace commlab
