#pragma once
// Reads the packet backend's per-port time series after each iteration and condenses it, per
// sample interval, to what a chart of the network needs (queue depth, utilisation, trims, drops).
// The analytical backend has no queues: the probe then returns nothing.
#include <vector>

#include "network/backend.h"
#include "train/trainer.h"

namespace commlab {

class PacketBackend;

// The sampling interval the runner gives the packet backend. The series is bounded (adjacent
// samples merge when full, doubling the interval), so long runs see coarser points.
inline constexpr double kNetworkSampleInterval_s = 10e-6;

class NetworkProbe {
 public:
  explicit NetworkProbe(NetworkBackend& backend);
  // Points for the intervals that ended since the previous call, in time order.
  std::vector<NetworkPoint> take();

 private:
  const PacketBackend* packet_ = nullptr;
  double last_end_s_ = 0;
};

}  // namespace commlab
