#include "cli/util/network_util.h"

#include <stdexcept>

#include "cli/command.h"
#include "cli/util/flag_parse_util.h"
#include "exec/calibration.h"

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

void throw_flag_error(const Status& status) {
  if (status.code != ErrorCode::kBadInput) throw StatusError(status);
  throw InvalidInput(
      Status{status.code, flag_for_field(status.field, {{"bw_gbps", "--bw"}}), status.message}
          .text());
}

std::unique_ptr<NetworkBackend> make_backend(const NetworkFlags& f, int ranks,
                                             const std::string& routing) {
  StatusOr<BackendSettings> settings =
      backend_settings({f.cluster, f.backend, f.bw_gbps, f.alpha_us, ranks, routing});
  if (!settings) throw_flag_error(settings.status());
  StatusOr<std::unique_ptr<NetworkBackend>> backend = make_backend(*settings);
  if (!backend) throw_flag_error(backend.status());
  // A cluster file from `calibrate` is timed by its nodes and links; its calibration block is
  // checked too (as `collective --exec mpi` reads it), so a malformed block is refused, not
  // ignored. After the cluster parser, whose errors (its depth limit of 32, ...) come first.
  if (!f.cluster.empty()) exec::read_calibration(f.cluster);
  return std::move(backend).value();
}

std::unique_ptr<NetworkBackend> make_backend(const std::string& backend, Topology topo) {
  StatusOr<BackendKind> kind = parse_backend_kind(backend);
  if (!kind) throw_flag_error(kind.status());
  return commlab::make_backend(*kind, std::move(topo));
}

void add_routing_flag(CLI::App& app, std::string& routing) {
  app.add_option("--routing", routing,
                 "analytical backend: ecmp (each flow hashed onto one of its equal-cost paths, as "
                 "switches do) or ideal (split evenly over all of them: packet spraying)")
      ->capture_default_str()
      ->check(CLI::IsMember({"ecmp", "ideal"}));
}

}  // namespace commlab::cli
