#pragma once
// Flags shared by the subcommands that need a cluster and a network backend.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "network/backend.h"
#include "topology/topology.h"

namespace commlab::cli {

struct NetworkFlags {
  std::string cluster;  // preset, spec or topology file; empty: flat alpha-beta network
  std::string backend = "analytical";
  double bw_gbps = 25.0;  // GB/s per rank on the flat network (a 200 Gb/s NIC)
  double alpha_us = 5.0;  // per-step latency on the flat network
};

void add_network_flags(CLI::App& app, NetworkFlags& flags);
// `ranks` is used when no cluster is given. Throws InvalidInput on bad values.
std::unique_ptr<NetworkBackend> make_backend(const NetworkFlags& flags, int ranks);
// The backend named by --backend ("analytical" or "packet") on an already built topology.
std::unique_ptr<NetworkBackend> make_backend(const std::string& backend, Topology topology);
// --routing ecmp|ideal (workload, collective): how the analytical backend uses equal-cost paths.
void add_routing_flag(CLI::App& app, std::string& routing);
// Sets the analytical backend's routing mode; InvalidInput for a mode other than ecmp on another
// backend (they route per-flow ECMP only) or an unknown mode.
void apply_routing(NetworkBackend& backend, const std::string& routing);
// GPUs per server in the backend's topology (1 when every GPU is its own server).
int backend_ranks_per_node(const NetworkBackend& backend);

}  // namespace commlab::cli
