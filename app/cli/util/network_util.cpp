#include "cli/util/network_util.h"

#include <map>
#include <stdexcept>

#include "cli/command.h"
#include "exec/calibration.h"
#include "network/analytical.h"
#include "network/framed_backend.h"
#include "network/packet_backend.h"
#include "topology/presets.h"
#include "topology/topology.h"

namespace commlab::cli {

void add_network_flags(CLI::App& app, NetworkFlags& f) {
  app.add_option("--cluster", f.cluster, "cluster preset, spec or topology JSON file");
  app.add_option("--backend", f.backend,
                 "analytical, packet, or analytical+framing (the analytical model plus the packet "
                 "backend's headers, control packets and store and forward)")
      ->capture_default_str();
  app.add_option("--bw", f.bw_gbps, "flat network: GB/s per rank (when no --cluster)")
      ->check(kPositive)
      ->capture_default_str();
  app.add_option("--alpha-us", f.alpha_us, "flat network: latency per step in microseconds")
      ->check(kNonNegative)
      ->capture_default_str();
}

std::unique_ptr<NetworkBackend> make_backend(const NetworkFlags& f, int ranks) {
  Topology topo = f.cluster.empty() ? make_flat(ranks, f.bw_gbps * 1e9, f.alpha_us * 1e-6)
                                    : cluster_from_spec(f.cluster);
  // A cluster file from `calibrate` is timed by its nodes and links; its calibration block is
  // checked too (as `collective --exec mpi` reads it), so a malformed block is refused, not
  // ignored. After the cluster parser, whose errors (its depth limit of 32, ...) come first.
  if (!f.cluster.empty()) exec::read_calibration(f.cluster);
  return make_backend(f.backend, std::move(topo));
}

std::unique_ptr<NetworkBackend> make_backend(const std::string& backend, Topology topo) {
  if (backend == "analytical") return std::make_unique<AnalyticalBackend>(std::move(topo));
  if (backend == "packet") return std::make_unique<PacketBackend>(std::move(topo), PacketConfig{});
  if (backend == "analytical+framing")
    return std::make_unique<FramedBackend>(std::make_unique<AnalyticalBackend>(std::move(topo)),
                                           framing_of(PacketConfig{}));
  throw InvalidInput("--backend: expected analytical, packet or analytical+framing, got '" +
                     backend + "'");
}

void add_routing_flag(CLI::App& app, std::string& routing) {
  app.add_option("--routing", routing,
                 "analytical backend: ecmp (each flow hashed onto one of its equal-cost paths, as "
                 "switches do) or ideal (split evenly over all of them: packet spraying)")
      ->capture_default_str()
      ->check(CLI::IsMember({"ecmp", "ideal"}));
}

void apply_routing(NetworkBackend& backend, const std::string& routing) {
  RoutingMode mode = RoutingMode::kEcmp;
  try {
    mode = parse_routing_mode(routing);
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(std::string("--routing: ") + e.what());
  }
  if (auto* analytical = dynamic_cast<AnalyticalBackend*>(&backend))
    analytical->set_routing(mode);
  else if (mode != RoutingMode::kEcmp)
    throw InvalidInput("--routing " + routing + ": needs --backend analytical (the " +
                       backend.name() + " backend routes per-flow ECMP)");
}

int backend_ranks_per_node(const NetworkBackend& backend) {
  const Topology& t = backend.topology();
  std::map<int, int> per_server;
  for (int g : t.gpus()) ++per_server[t.nodes()[g].server];
  return per_server.empty() ? 1 : per_server.begin()->second;
}

}  // namespace commlab::cli
