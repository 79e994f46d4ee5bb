#pragma once
// NCCL's tuning model (src/graph/tuning.cc, NCCL 2.28; constants and what differs in
// docs/collectives.md): for every (operation, algorithm, protocol) a latency in us and a bandwidth
// in GB/s, the predicted time lat + bytes / bw, and the choice of the smallest; then, as
// enqueue.cc does, fewer channels for small messages. nccl_setup() turns a choice into what the
// time plane runs: the plan's name, its slicing, and the ChannelBackend settings.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "collective/nccl/nccl_protocol.h"
#include "collective/plan.h"

namespace commlab {

class Topology;

// The communicator as NCCL's model sees it.
struct NcclTunerInputs {
  int ranks = 1;
  int nodes = 1;
  double intra_Bps = 0;  // one GPU's bandwidth inside its node, one direction (NVLink / PCIe)
  double inter_Bps = 0;  // a node's network bandwidth per GPU (its NICs' sum / GPUs), 0: one node
  bool nvlink = true;    // intra-node hardware class: NVLink, else PCI
  int channels = 16;     // the communicator's channels (nChannels)
  bool ll128 = true;     // LL128 enabled (NCCL: Hopper/Blackwell, NVLink, net within PXN)
};

// From a topology: nodes are servers, GPUs outside servers are a node each; the bandwidths are
// the links leaving a GPU towards an NVSwitch/GPU and from its node's NICs.
NcclTunerInputs tuner_inputs(const Topology& topology, int channels = 16);

struct NcclOverrides {
  std::optional<NcclAlgo> algo;
  std::optional<NcclProtocol> proto;
  int channels = 0;  // 0: NCCL's choice for the size
};

// --algo / --proto / --channels as given by the CLI: algo auto | ring | tree, proto empty | auto |
// simple | ll | ll128, channels 0 (NCCL's choice) or C. Throws std::invalid_argument.
NcclOverrides parse_nccl_overrides(std::string_view algo, std::string_view proto, int channels);

struct NcclChoice {
  NcclAlgo algo = NcclAlgo::kRing;
  NcclProtocol proto = NcclProtocol::kSimple;
  int channels = 1;
  double predicted_s = 0;  // NCCL's model
};

class NcclTuner {
 public:
  explicit NcclTuner(const NcclTunerInputs& inputs);
  const NcclTunerInputs& inputs() const { return in_; }
  // comm->bandwidths / comm->latencies; bandwidth 0 = not available for that combination.
  double bandwidth_GBps(CollectiveOp op, NcclAlgo a, NcclProtocol p) const;
  double latency_us(CollectiveOp op, NcclAlgo a, NcclProtocol p) const;
  // ncclTopoGetAlgoTime (tree correction, ring plateau); < 0 when not available.
  double predict_s(CollectiveOp op, NcclAlgo a, NcclProtocol p, uint64_t bytes) const;
  // Channels enqueue.cc keeps for `bytes`: drop one while bytes < nc * threads * threshold.
  int channels_for(NcclAlgo a, NcclProtocol p, uint64_t bytes) const;
  // The fastest available combination (the forced parts fixed); throws std::invalid_argument
  // when the forced combination is not available (e.g. tree for all-gather).
  NcclChoice choose(CollectiveOp op, uint64_t bytes, const NcclOverrides& force = {}) const;
  // The GPU-side ceilings of the time plane for a choice: NCCL's min() terms, not the links.
  ChannelConfig channel_config(CollectiveOp op, const NcclChoice& choice) const;
  double base_latency_s(NcclAlgo a, NcclProtocol p) const;

 private:
  double bus_bw(CollectiveOp op, NcclAlgo a, NcclProtocol p) const;
  NcclTunerInputs in_;
};

// What the time plane runs for one size.
struct NcclSetup {
  NcclChoice choice;
  PipelineConfig pipeline;  // per-channel slices and chunks times the channels
  ChannelConfig channel;
  double base_latency_s = 0;  // once per collective (NCCL's baseLat)
};
NcclSetup nccl_setup(const NcclTuner& tuner, CollectiveOp op, uint64_t bytes,
                     const NcclOverrides& force = {});
// Tree plans are built bulk-synchronous; NCCL pipelines its tree by chunks: mark the steps.
void mark_pipelined(Plan& plan);

}  // namespace commlab
