#pragma once
// Flags shared by the subcommands that need a cluster and a network backend; the backend itself
// is built and checked by network/backend_factory.h, as for every other door.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "io/status.h"
#include "network/backend_factory.h"
#include "topology/topology.h"

namespace commlab::cli {

struct NetworkFlags {
  std::string cluster;  // preset, spec or topology file; empty: flat alpha-beta network
  std::string backend = "analytical";
  double bw_gbps = 25.0;  // GB/s per rank (a 200 Gb/s NIC)
  double alpha_us = 5.0;  // per-step latency on the flat network
};

void add_network_flags(CLI::App& app, NetworkFlags& flags);
// The flag a settings field is set by ("bw_gbps" is --bw, "skip_policy" is --skip-policy).
std::string flag_of(const std::string& field);
// Throws a bad-input status as InvalidInput "--flag: message" (the flag of its field), any other
// as StatusError.
[[noreturn]] void throw_flag_error(const Status& status);
// `ranks` is used when no cluster is given; `routing` is --routing. Throws InvalidInput on bad
// values.
std::unique_ptr<NetworkBackend> make_backend(const NetworkFlags& flags, int ranks,
                                             const std::string& routing = "ecmp");
// The backend named by --backend ("analytical" or "packet") on an already built topology.
std::unique_ptr<NetworkBackend> make_backend(const std::string& backend, Topology topology);
// --routing ecmp|ideal (workload, collective): how the analytical backend uses equal-cost paths.
void add_routing_flag(CLI::App& app, std::string& routing);

}  // namespace commlab::cli
