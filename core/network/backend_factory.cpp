#include "network/backend_factory.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include "io/size_parse.h"
#include "network/analytical.h"
#include "network/framed_backend.h"
#include "network/packet_backend.h"
#include "topology/presets.h"
#include "topology/topology.h"

namespace commlab {

const char* backend_kind_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::kAnalytical: return "analytical";
    case BackendKind::kPacket: return "packet";
    case BackendKind::kAnalyticalFraming: return "analytical+framing";
  }
  return "analytical";
}

StatusOr<BackendKind> parse_backend_kind(const std::string& name) {
  for (BackendKind k :
       {BackendKind::kAnalytical, BackendKind::kPacket, BackendKind::kAnalyticalFraming})
    if (name == backend_kind_name(k)) return k;
  return invalid_input("backend",
                       "expected analytical, packet or analytical+framing, got '" + name + "'");
}

StatusOr<BackendSettings> backend_settings(const BackendRequest& r) {
  StatusOr<BackendKind> kind = parse_backend_kind(r.backend);
  if (!kind) return kind.status();
  BackendSettings s;
  s.cluster = r.cluster;
  s.kind = *kind;
  if (r.cluster.empty()) {
    if (!(std::isfinite(r.bw_gbps) && r.bw_gbps > 0))
      return invalid_input("bw_gbps", "expected a finite number > 0, got " + limit_text(r.bw_gbps));
    if (!(std::isfinite(r.alpha_us) && r.alpha_us >= 0))
      return invalid_input("alpha_us",
                           "expected a finite number >= 0, got " + limit_text(r.alpha_us));
    if (r.ranks < 1 || r.ranks > kMaxFlatRanks)
      return invalid_input("ranks", "expected 1 to " + std::to_string(kMaxFlatRanks) +
                                        " ranks, got " + std::to_string(r.ranks));
  }
  s.bw_Bps = r.bw_gbps * 1e9;
  s.alpha_s = r.alpha_us * 1e-6;
  s.ranks = r.ranks;
  try {
    s.routing = parse_routing_mode(r.routing);
  } catch (const std::invalid_argument& e) {
    return invalid_input("routing", e.what());
  }
  if (s.routing != RoutingMode::kEcmp && s.kind != BackendKind::kAnalytical)
    return invalid_input("routing", r.routing + " needs the analytical backend (the " + r.backend +
                                        " backend routes per-flow ECMP)");
  return s;
}

std::unique_ptr<NetworkBackend> make_backend(BackendKind kind, Topology topology,
                                             const PacketConfig& packet) {
  switch (kind) {
    case BackendKind::kAnalytical: return std::make_unique<AnalyticalBackend>(std::move(topology));
    case BackendKind::kPacket: return std::make_unique<PacketBackend>(std::move(topology), packet);
    case BackendKind::kAnalyticalFraming:
      return std::make_unique<FramedBackend>(
          std::make_unique<AnalyticalBackend>(std::move(topology)), framing_of(packet));
  }
  throw std::logic_error("make_backend: unknown backend kind");
}

StatusOr<std::unique_ptr<NetworkBackend>> make_backend(const BackendSettings& s) {
  Topology topology;
  if (s.cluster.empty()) {
    topology = make_flat(s.ranks, s.bw_Bps, s.alpha_s);
  } else {
    try {
      topology = cluster_from_spec(s.cluster);
    } catch (const std::invalid_argument& e) {
      return Status{ErrorCode::kBadInput, "", e.what()};  // its message names the spec already
    }
  }
  std::unique_ptr<NetworkBackend> backend = make_backend(s.kind, std::move(topology), s.packet);
  if (auto* analytical = dynamic_cast<AnalyticalBackend*>(backend.get()))
    analytical->set_routing(s.routing);
  return backend;
}

int backend_ranks_per_node(const NetworkBackend& backend) {
  const Topology& t = backend.topology();
  std::map<int, int> per_server;
  for (int g : t.gpus()) ++per_server[t.nodes()[g].server];
  return per_server.empty() ? 1 : per_server.begin()->second;
}

}  // namespace commlab
