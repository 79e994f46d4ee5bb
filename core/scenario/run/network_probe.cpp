#include "scenario/run/network_probe.h"

#include <algorithm>
#include <cmath>

#include "network/packet_backend.h"

namespace commlab {

NetworkProbe::NetworkProbe(NetworkBackend& backend)
    : packet_(dynamic_cast<const PacketBackend*>(&backend)) {}

std::vector<NetworkPoint> NetworkProbe::take() {
  std::vector<NetworkPoint> points;
  if (!packet_) return points;
  const PortSeries& series = packet_->port_series();
  if (series.ports == 0 || series.interval_s <= 0) return points;
  for (size_t i = 0; i < series.count(); ++i) {
    const double end = series.start_s + static_cast<double>(i + 1) * series.interval_s;
    // Intervals reported before are skipped by their end time. When the bounded series merged
    // pairs since the last call, a widened interval straddling it is reported again, merged.
    if (end <= last_end_s_ + 1e-15) continue;
    NetworkPoint p;
    p.t_s = end;
    double utilisation = 0;
    for (int port = 0; port < series.ports; ++port) {
      const PortSample& s = series.at(i, port);
      p.max_queue_bytes = std::max(p.max_queue_bytes, static_cast<double>(s.queue_bytes));
      p.max_utilisation = std::max(p.max_utilisation, static_cast<double>(s.utilisation));
      utilisation += s.utilisation;
      p.trims += s.trims;
      p.drops += s.drops;
    }
    p.mean_utilisation = utilisation / series.ports;
    points.push_back(p);
  }
  if (!points.empty()) last_end_s_ = points.back().t_s;
  return points;
}

}  // namespace commlab
