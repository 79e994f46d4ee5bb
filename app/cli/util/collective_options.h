#pragma once
// The flags of `commlab-cli collective`, shared by its simulated path (collective_command.cpp)
// and its real one across MPI processes (collective_mpi_util.cpp, `--exec mpi`).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "cli/util/network_util.h"
#include "collective/collective_settings.h"
#include "collective/wire.h"

namespace commlab::cli {

struct CollectiveOptions {
  std::string algo = "ring";
  std::string op = "allreduce";
  int ranks = 8;
  int ranks_per_node = 0;
  NetworkFlags net;
  std::string routing = "ecmp";  // --routing (analytical backend)
  std::string sizes = "1K:64M";
  int skip = 0;
  std::string skip_policy = "naive";
  bool unbiased = false;
  uint64_t seed = 1;
  uint64_t iteration = 0;
  std::string wire = "fp32";
  std::string codec;  // empty: the plain --wire format
  double reduce_gbps = 0;
  std::string slice_bytes = "512K";
  std::string chunk_bytes = "2M";
  std::string proto;  // NCCL mode (collective/nccl/tuner.h): auto | simple | ll | ll128
  int channels = 0;   // NCCL mode: channels (0: the tuner's choice)
  bool time_only = false;
  bool json = false;
  std::string exec = "simulated";  // simulated (or sim) or mpi: parse_exec_flag
  int warmup = 5;
  int iters = 20;
  double timeout_s = 60;
};

// --sizes MIN:MAX in bytes (K/M/G suffixes), MIN a multiple of 4 bytes, MAX at most
// kMaxCollectiveBytes; throws InvalidInput.
std::pair<uint64_t, uint64_t> parse_size_range(const std::string& text);
// --skip within what `algorithm` can skip on `ranks` ranks (collective_settings.h: skip_problem,
// every door's check); throws InvalidInput naming --skip.
void check_skip(const CollectiveOptions& o, const std::string& algorithm, int ranks);
// The wire of --wire / --codec (null: FP32); `cpu_Bps` > 0 times the codec as one CPU core at that
// speed (a calibration), else the codec's default placement. Throws InvalidInput.
std::unique_ptr<TransferCodec> make_transfer_codec(const CollectiveOptions& o, double cpu_Bps = 0);
// Absolute tolerance of the verification (0: exact), or < 0 when the wire is lossy beyond BF16
// rounding and the buffers cannot be verified.
double verify_tolerance(const CollectiveOptions& o, int ranks);

// `--exec mpi`: the same collective across the processes of an mpirun job (exit code).
int run_collective_mpi(const CollectiveOptions& o);

}  // namespace commlab::cli
