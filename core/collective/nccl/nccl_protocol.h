#pragma once
// NCCL's three protocols and its channels on the time plane (docs/collectives.md, "NCCL's model").
// A protocol changes what a transfer costs, never what it carries: LL sends 8 bytes of data in
// every 16-byte line (the other 8 are flags), LL128 120 of every 128, Simple the data alone but
// behind a fence per step. A collective runs over C channels: every transfer is split into C
// flows, and channel c's inter-node hop leaves on local GPU c's rail (as NCCL's rail-aligned
// rings and PXN do), so the channels spread over the node's NICs. ChannelBackend applies both to
// any backend; the plan and its data plane are untouched.
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "network/backend.h"
#include "topology/routing.h"

namespace commlab {

// NCCL's order (NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE) and algorithms.
enum class NcclProtocol : uint8_t { kLL = 0, kLL128 = 1, kSimple = 2 };
enum class NcclAlgo : uint8_t { kTree = 0, kRing = 1 };
inline constexpr int kNcclProtocols = 3;
inline constexpr int kNcclAlgos = 2;

const char* protocol_name(NcclProtocol p);  // "ll", "ll128", "simple"
const char* nccl_algo_name(NcclAlgo a);     // "tree", "ring" (the plan builders' names)
// The plan that runs it: "ring" or "nccl-tree" (a chain per node, a tree over the nodes).
const char* nccl_plan_name(NcclAlgo a);
NcclProtocol parse_protocol(std::string_view text);  // throws std::invalid_argument

struct ProtocolTraits {
  double wire_factor = 1;    // wire bytes per data byte
  uint64_t slice_bytes = 0;  // data bytes of one pipeline slice, per channel
  uint64_t chunk_bytes = 0;  // data bytes of one loop's chunk, per channel
};
// Sources (NCCL src/include/device.h, comm.h): LL buffer 8 lines x 512 threads x 8 steps x 16 B
// = 512 KiB, one step (64 KiB of lines, 32 KiB of data) per slice and chunk; LL128 buffer
// 120 x 640 threads x 8 steps x 8 B = 4.7 MiB, a step carries 576,000 data bytes; Simple keeps
// CommLab's PipelineConfig defaults (512 KiB slices of a 2 MiB chunk, plan.h).
ProtocolTraits protocol_traits(NcclProtocol p);

struct ChannelConfig {
  NcclProtocol protocol = NcclProtocol::kSimple;
  int channels = 1;
  // Ceiling of a rank's data rate over all its channels (NCCL's llMaxBw, per-channel LL128 and
  // tree limits times C), bytes/s; 0: none. It stands for the SMs, not the links.
  double rate_cap_Bps = 0;
  // NCCL's per-step latency (hwLat) for flows inside a node and for flows between nodes; the
  // topology's own hop latencies along the path count towards it (never added twice).
  double intra_step_s = 0;
  double inter_step_s = 0;
};

class ChannelBackend : public NetworkBackend {
 public:
  ChannelBackend(NetworkBackend& inner, const ChannelConfig& config);
  std::string name() const override { return inner_.name(); }
  const Topology& topology() const override { return inner_.topology(); }
  bool stateful() const override { return inner_.stateful(); }
  StepResult time_step(std::span<const Flow> flows, const StepOptions& options = {}) override;
  const ChannelConfig& config() const { return config_; }

 private:
  double path_latency_s(int src, int dst, uint64_t id);

  NetworkBackend& inner_;
  ChannelConfig config_;
  Router router_;
  std::vector<int> server_;                  // per rank
  std::vector<std::vector<int>> by_server_;  // ranks of each server, in rank order
  std::vector<int> local_;                   // rank's index within its server
  std::unordered_map<uint64_t, double> latency_cache_;
  std::vector<Flow> expanded_;
};

}  // namespace commlab
