// Per-port time series of the packet backend for the GUI: utilisation, queue depth, drops and
// trims per sample interval, in bounded memory (full -> adjacent samples merge, interval doubles).
#include <algorithm>

#include "network/packet/packet_sim.h"

namespace commlab {

void PacketSim::on_sample() {
  const size_t n = ports_.size();
  const double width = static_cast<double>(sample_ps_);
  for (size_t i = 0; i < n; ++i) {
    Port& p = ports_[i];
    PortSample s;
    // busy_ps counts a packet's whole serialisation when it starts, so clamp the fraction.
    s.utilisation = static_cast<float>(std::min(1.0, (p.busy_ps - last_busy_[i]) / width));
    s.queue_bytes = static_cast<float>(p.data_bytes + p.hdr_bytes);
    s.drops = static_cast<uint32_t>(p.drops - last_drops_[i]);
    s.trims = static_cast<uint32_t>(p.trims - last_trims_[i]);
    last_busy_[i] = p.busy_ps;
    last_drops_[i] = p.drops;
    last_trims_[i] = p.trims;
    series_.samples.push_back(s);
  }
  if (series_.count() >= config_.max_samples) compact_series();
  schedule(now_ + sample_ps_, EventKind::kSample, 0);
}

void PacketSim::compact_series() {
  const size_t n = ports_.size();
  const size_t pairs = series_.count() / 2;
  std::vector<PortSample>& v = series_.samples;
  for (size_t k = 0; k < pairs; ++k)
    for (size_t i = 0; i < n; ++i) {
      const PortSample a = v[2 * k * n + i], b = v[(2 * k + 1) * n + i];
      v[k * n + i] =
          PortSample{(a.utilisation + b.utilisation) / 2, std::max(a.queue_bytes, b.queue_bytes),
                     a.drops + b.drops, a.trims + b.trims};
    }
  v.resize(pairs * n);
  sample_ps_ *= 2;
  series_.interval_s *= 2;
}

}  // namespace commlab
