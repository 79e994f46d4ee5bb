#pragma once
// Runs a collective Plan across real processes: this process is one rank and holds only its own
// buffer. Per step it sends the real chunk bytes of the transfers it is the source of and receives
// those it is the destination of (non-blocking MPI point-to-point under the runtime's watchdog),
// then decodes and reduces them in plan order: the same order as the simulated data plane
// (collective/simulated_executor.h), so the buffer is bit-identical to execute_plan's for the same
// plan, codec and seed. Steps are bulk-synchronous (no slicing): compare with a plan whose
// PipelineConfig has slice_bytes = 0.
#include <cstdint>
#include <span>
#include <vector>

#include "collective/plan.h"
#include "collective/wire.h"
#include "exec/mpi_runtime.h"

namespace commlab::exec {

struct MpiExecOptions {
  TransferCodec* codec = nullptr;  // null: FP32 on the wire; every rank must pass the same kind
  uint64_t iteration = 0;          // WireContext keys (codec seeds, trimming), as in the simulator
  int bucket = 0;
  // With a TrimWire codec: the sender cuts packets as a switch would, with the same Bernoulli
  // draws TrimWire makes (rate and seed must be the TrimWire's). 0: nothing is cut.
  double trim_rate = 0;
  uint64_t trim_seed = 0;
};

struct MpiCollectiveReport {
  double time_s = 0;   // this rank's wall time for the whole plan
  double codec_s = 0;  // of which encoding and decoding
  uint64_t steps = 0;
  uint64_t bytes_sent = 0;     // by this rank, on the wire (after encoding and cutting)
  uint64_t payload_bytes = 0;  // FP32 bytes this rank's transfers carried before encoding
  uint64_t packets_trimmed = 0;
};

class MpiExecutor {
 public:
  // Transfers travel on a communicator of their own (a dup of the runtime's world).
  explicit MpiExecutor(const MpiRuntime& runtime);
  ~MpiExecutor();
  MpiExecutor(const MpiExecutor&) = delete;
  MpiExecutor& operator=(const MpiExecutor&) = delete;

  // `buffer` is this rank's plan.count elements, updated in place. plan.ranks must equal the
  // runtime's size (std::invalid_argument otherwise). Time-only plans (folded steps) are refused.
  MpiCollectiveReport run(const Plan& plan, std::span<float> buffer, const MpiExecOptions& options);

 private:
  const MpiRuntime& rt_;
  void* comm_ = nullptr;  // MPI_Comm
  // Scratch kept across runs so that timed iterations do not allocate.
  std::vector<std::vector<std::byte>> send_wire_, recv_wire_;
  std::vector<std::vector<float>> recv_values_;
};

}  // namespace commlab::exec
