#pragma once
// `calibrate`: what this machine's processes really achieve over MPI, measured and fitted so the
// simulator can predict the real runs (docs/validation.md). Ping-pong per rank pair class (same
// host, other host), a ring of all ranks sending at once, the reduction and codec throughput; the
// result is written as an explicit cluster file (topology/topology_json.h) that every --cluster
// accepts, plus a "calibration" block that plain topology readers ignore.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "codec/codec.h"
#include "exec/mpi_runtime.h"

namespace commlab::exec {

// (message bytes, seconds) pairs and the alpha-beta line through them: t = latency + bytes / bw.
struct LatencyBandwidth {
  double latency_s = 0;
  double bandwidth_Bps = 0;  // 0: not measured (e.g. other-host on one host)
  double max_rel_error = 0;  // worst |fit - measured| / measured over the samples
  std::vector<std::pair<uint64_t, double>> samples;
  // The measured time of a message of `bytes`: log-log interpolation between the two samples
  // around it, the fitted line outside the sampled range (and when there are no samples).
  double time_at(uint64_t bytes) const;
};
// Least squares on the relative error (weights 1/t^2), so 8 B and 64 MiB count alike; the latency
// is clamped at >= 0. Needs two distinct sizes (std::invalid_argument otherwise).
LatencyBandwidth fit_latency_bandwidth(std::vector<std::pair<uint64_t, double>> samples);

struct CodecSpeed {
  std::string codec;
  DType dtype = DType::kFp32;
  double cpu_Bps = 0;  // PlacementModel::cpu_Bps: 2 x input bytes / (encode + decode time)
  double ratio = 0;    // on the measured data
};

struct Calibration {
  int ranks = 0;
  int hosts = 1;
  std::vector<int> host_of;  // per rank
  std::string host_name;
  bool oversubscribed = false;
  LatencyBandwidth same_host;   // ping-pong, rank 0 and the next rank on its host
  LatencyBandwidth other_host;  // ping-pong, rank 0 and the first rank on another host
  LatencyBandwidth ring;        // per step of a ring where every rank sends and receives at once
  double reduce_Bps = 0;        // ExecutorOptions::reduce_bandwidth_Bps: 12 B per element / time
  // (bytes of one operand, 12 B per element / time) at several sizes: in cache the reduction is
  // several times faster than from memory.
  std::vector<std::pair<uint64_t, double>> reduce_samples;
  std::vector<CodecSpeed> codecs;
  double codec_Bps(const std::string& codec, DType dtype) const;  // 0 when not measured

  // This calibration as seen by a collective whose steps move messages of `bytes`: the ring
  // link's bandwidth becomes the effective one measured at that size (bytes / (time_at(bytes) -
  // latency)) and the reduction speed the one measured at that operand size. One line cannot do
  // both: on a shared-memory host a 512 KiB step runs from cache, several times faster than a
  // 32 MiB one (docs/validation.md).
  Calibration at_message(uint64_t bytes) const;
};

// (size, value) pairs: log-log interpolation of value at `x`, clamped to the end values outside.
double interpolate_log_log(const std::vector<std::pair<uint64_t, double>>& samples, uint64_t x);

struct CalibrationOptions {
  uint64_t min_bytes = 8;
  uint64_t max_bytes = 64ull << 20;
  std::vector<std::string> codecs = {"lz4", "zstd-1", "commlab"};
};

// Collective over the runtime's ranks; the result is complete on rank 0.
Calibration run_calibration(const MpiRuntime& rt, const CalibrationOptions& options);

// The cluster file: one GPU node per rank (server = host); per host a switch and a shared "bus"
// link that all the host's copies cross (capacity: its ranks x the ring fit); each rank's links
// carry the single-pair bandwidth and the ring latency; hosts meet at a core switch with the
// other-host fit. Plus "calibration": every measured sample and fit.
nlohmann::json calibration_to_json(const Calibration& calibration);
// The "calibration" block of a cluster file (a path ending in .json); nullopt for presets, specs
// and files without one. Throws std::invalid_argument naming the file and field when malformed.
std::optional<Calibration> read_calibration(const std::string& cluster);

}  // namespace commlab::exec
