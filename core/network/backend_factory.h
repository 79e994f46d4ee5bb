#pragma once
// The one way a network backend is made from settings, for every door (commlab-cli's --cluster /
// --backend / --bw / --alpha-us / --routing, the Python module, the views): settings are checked
// once, by backend_settings, and make_backend only builds what was checked.
#include <memory>
#include <string>

#include "io/status.h"
#include "network/backend.h"
#include "network/packet_config.h"
#include "topology/routing.h"

namespace commlab {

enum class BackendKind {
  kAnalytical,         // alpha-beta with max-min sharing
  kPacket,             // packet-level discrete-event simulation
  kAnalyticalFraming,  // the analytical model plus the packet backend's framing costs
};

// "analytical", "packet", "analytical+framing".
const char* backend_kind_name(BackendKind kind);
// A Status naming field "backend" for any other name.
StatusOr<BackendKind> parse_backend_kind(const std::string& name);

// What the user asked for, as text and numbers (field names are those of backend_settings'
// statuses: each door prints them its own way, "--bw" or "bw_gbps").
struct BackendRequest {
  std::string cluster;  // preset, spec or topology file; empty: a flat network of `ranks`
  std::string backend = "analytical";
  double bw_gbps = 25.0;  // flat network: GB/s per rank
  double alpha_us = 5.0;  // flat network: latency per step
  int ranks = 0;          // flat network: its ranks
  std::string routing = "ecmp";
};

struct BackendSettings {
  std::string cluster;
  BackendKind kind = BackendKind::kAnalytical;
  double bw_Bps = 25e9;
  double alpha_s = 5e-6;
  int ranks = 0;
  RoutingMode routing = RoutingMode::kEcmp;
  PacketConfig packet;  // the packet backend's (and framing's) settings
};

// The flat network's bounds: 1 to 2^20 ranks, a positive finite bandwidth, a finite latency >= 0.
inline constexpr int kMaxFlatRanks = 1 << 20;

// Checks every field of `request`: the backend's name, the flat network's bandwidth, latency and
// ranks (when no cluster is named), the routing mode (ideal only on the analytical backend).
// The cluster spec itself is parsed by make_backend (it may name a file).
StatusOr<BackendSettings> backend_settings(const BackendRequest& request);

// Builds the topology (the cluster spec, or the flat network) and the backend on it. A cluster
// spec the topology reader refuses is a bad-input Status with the reader's message (which names
// the spec).
StatusOr<std::unique_ptr<NetworkBackend>> make_backend(const BackendSettings& settings);
// The backend `kind` on an already built topology.
std::unique_ptr<NetworkBackend> make_backend(BackendKind kind, Topology topology,
                                             const PacketConfig& packet = {});

// GPUs per server in the backend's topology (1 when every GPU is its own server).
int backend_ranks_per_node(const NetworkBackend& backend);

}  // namespace commlab
