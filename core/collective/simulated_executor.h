#pragma once
// Runs a Plan on the simulated cluster (the real one, across MPI processes, is
// exec/mpi_executor.h): the data plane moves and reduces real buffers step by step through the
// transfer codec, and the time plane times every step's flows on a network backend, plus the
// reduction (read two buffers, write one, at the GPU's memory bandwidth). Steps marked pipelined
// are timed as NCCL's sliced pipeline (pipeline_time below, or slice by slice as a flow graph on a
// backend that times them: collective/pipeline_graph.h); the others bulk-synchronously, one after
// the other.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "collective/plan.h"
#include "collective/wire.h"
#include "network/backend.h"

namespace commlab {

struct ExecutorOptions {
  NetworkBackend* backend = nullptr;  // null: data plane only, no time
  TransferCodec* codec = nullptr;     // null: FP32 on the wire
  // Bytes per second at which a GPU reduces (reads 2, writes 1 FP32 per element); 0 = not charged.
  double reduce_bandwidth_Bps = 0;
  bool want_fates = false;  // ask the backend for per-packet fates (trimming)
  uint64_t iteration = 0;
  int bucket = 0;
  int threads = 0;  // OpenMP threads for the data plane (0: OpenMP's default); results identical
  // Timing only (no buffers): wire bytes charged per element (4: FP32; 2: BF16; a codec's or a
  // compressor's measured ratio times the wire width: what proxy timing charges).
  double time_only_element_bytes = 4;
};

struct CollectiveStepTime {
  std::string phase;
  uint32_t repeat = 1;
  double network_s = 0;  // per repetition
  double reduce_s = 0;   // per repetition
  double codec_s = 0;    // per repetition
  uint64_t wire_bytes = 0;
};

struct CollectiveReport {
  double time_s = 0;
  uint64_t steps = 0;
  uint64_t bytes_on_wire = 0;  // summed over all transfers
  uint64_t payload_bytes = 0;  // FP32 bytes the transfers carried before encoding
  uint64_t packets_trimmed = 0;
  uint64_t packets_dropped = 0;
  double codec_time_s = 0;
  // Steps timed as NCCL pipelines (docs/collectives.md): loops per message and slices per loop
  // chunk of the last pipelined phase (0 when none).
  uint64_t pipeline_loops = 0;
  uint64_t pipeline_slices = 0;
  // Per step, bulk-synchronous figures (a pipelined phase's total is less than their sum). A
  // backend that times flow graphs (packet) times pipelined steps only as slices, within their
  // chain: their network_s is 0.
  std::vector<CollectiveStepTime> step_timings;
};

// buffers[r] is rank r's buffer (plan.count elements), updated in place. Pass an empty vector to
// time the plan only (no data plane): then every transfer is charged time_only_element_bytes per
// element (the codec is not run: what it would give is unknown, so codecs need buffers).
CollectiveReport execute_plan(const Plan& plan, std::vector<std::span<float>> buffers,
                              const ExecutorOptions& options);

// One pipelined step as the pipeline sees a slice of it: `link_s` is how long the slice occupies
// the sender (bytes / bandwidth), `arrive_s` how long after its start it has arrived and been
// reduced at the receiver (latency + link_s + reduction + codec).
struct SliceCost {
  double link_s = 0;
  double arrive_s = 0;
  uint32_t repeat = 1;
  // The connections ((sender, receiver, phase), densely numbered) this step sends on; empty when
  // every rank sends (a ring). A connection is busy only with its own slices, so steps on other
  // connections overlap: a tree's levels, and its reduce going up beside its broadcast coming
  // down (NCCL runs both at once); a ring's steps all share the ranks.
  std::vector<int> senders;
};
// Completion time of `loops` loops, each running the steps in order on `slices` slices: slice k
// of step j starts when the sender has finished slice k-1 (program order) and slice k of step j-1
// has arrived; a loop starts when the previous loop's last slice has arrived. For identical steps
// of the same senders (D in all, link b, arrival a = alpha + b) this is
// loops * max(D K b + alpha, D a + (K-1) b).
double pipeline_time(std::span<const SliceCost> steps, uint64_t loops, uint64_t slices);

}  // namespace commlab
