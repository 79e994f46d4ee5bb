#include "views/view_settings.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "collective/skip.h"
#include "io/size_parse.h"
#include "network/packet_config.h"
#include "scenario/run_config.h"
#include "workload/catalog/catalog.h"

namespace commlab::views {

static_assert(kTeachingSeeds.hi == kMaxSeed, "the random policy takes the scenarios' seeds");

namespace {

// `parse()` run for its refusal only, which then names `field`.
template <typename Parse>
std::optional<Status> refusal_of(const char* field, Parse parse) {
  try {
    parse();
  } catch (const std::invalid_argument& e) {
    return invalid_input(field, e.what());
  }
  return std::nullopt;
}

// "expected a byte size in [4B, 1T], got 3B": the words of the size flags (--bytes, --min-bytes).
std::optional<Status> size_out_of_range(const char* field, uint64_t v, uint64_t lo, uint64_t hi) {
  if (v >= lo && v <= hi) return std::nullopt;
  return invalid_input(field, "expected a byte size in [" + format_size(lo) + ", " +
                                  format_size(hi) + "], got " + format_size(v));
}

// The first refusal among `checks`, in order.
std::optional<Status> first(std::initializer_list<std::optional<Status>> checks) {
  for (const std::optional<Status>& c : checks)
    if (c) return c;
  return std::nullopt;
}

// SkipReduce on the teaching algorithm: only where its descriptor registers a skip limit, and
// within that limit on these ranks.
std::optional<Status> teaching_skip_problem(const TeachingSettings& s, const Algorithm& a) {
  if (s.skip > 0 && !a.skips())
    return invalid_input("skip", "SkipReduce runs on " + skipping_algorithms_text() + ", not " +
                                     s.algorithm + ", got " + std::to_string(s.skip));
  return skip_problem(s.algorithm, s.ranks, s.skip);
}

}  // namespace

StatusOr<TeachingSettings> check_teaching(const TeachingSettings& s) {
  if (auto bad = first({out_of_range("ranks", s.ranks, kTeachingRanks),
                        refusal_of("algorithm", [&] { find_algorithm(s.algorithm); }),
                        out_of_range("ranks_per_node", s.ranks_per_node, kTeachingRanksPerNode),
                        out_of_range("skip", s.skip, kTeachingSkip),
                        refusal_of("policy", [&] { parse_skip_policy(s.policy); })}))
    return *bad;
  const Algorithm& algorithm = find_algorithm(s.algorithm);
  if (algorithm.whole_nodes && s.ranks % s.ranks_per_node != 0)
    return invalid_input("ranks_per_node", algorithm.name + " groups ranks into whole nodes: " +
                                               std::to_string(s.ranks) + " ranks are not a " +
                                               "multiple of " + std::to_string(s.ranks_per_node));
  const Bounds<uint64_t> seeds{0, static_cast<uint64_t>(kTeachingSeeds.hi)};
  if (auto bad =
          first({teaching_skip_problem(s, algorithm), out_of_range("iteration", s.iteration, seeds),
                 out_of_range("seed", s.seed, seeds),
                 out_of_range("trim_rate", s.trim_rate, kTeachingTrimRate)}))
    return *bad;
  return s;
}

StatusOr<TopologySettings> check_topology(const TopologySettings& s) {
  if (auto bad = first({refusal_of("algorithm", [&] { find_algorithm(s.algorithm); }),
                        size_out_of_range("message_bytes", s.message_bytes,
                                          kTopologyMessageBytes.lo, kTopologyMessageBytes.hi),
                        out_of_range("step", s.step, kTopologyStep),
                        out_of_range("max_endpoints", s.max_endpoints, kTopologyBoxes),
                        out_of_range("max_servers", s.max_servers, kTopologyBoxes),
                        out_of_range("max_links", s.max_links, kTopologyLinkBudget),
                        out_of_range("max_transfers", s.max_transfers, kTopologyPlanBudget),
                        out_of_range("max_flows", s.max_flows, kTopologyPlanBudget)}))
    return *bad;
  if (std::find(kTopologyBackends.begin(), kTopologyBackends.end(), s.backend) ==
      kTopologyBackends.end())
    return invalid_input("backend", "expected analytical or packet, got '" + s.backend + "'");
  // The scenario files spell tail-drop "droptail" (run_config.h); both are the same admission.
  const std::string admission = s.admission == "droptail" ? "tail-drop" : s.admission;
  if (auto bad = first({refusal_of("admission", [&] { parse_admission(admission); }),
                        out_of_range("queue_packets", s.queue_packets, kTopologyQueuePackets)}))
    return *bad;
  return s;
}

StatusOr<WorkloadSettings> check_workload(const WorkloadSettings& s) {
  if (s.source == WorkloadSettings::Source::kTrace) {
    if (s.trace_prefix.empty())
      return invalid_input("trace_prefix", "choose a Chakra trace (PREFIX.0.et, PREFIX.1.et, ...)");
  } else if (auto bad = refusal_of("model", [&] { find_workload(s.model); })) {
    return *bad;
  }
  if (auto bad =
          first({out_of_range("dp", s.dp, kWorkloadDp), out_of_range("tp", s.tp, kWorkloadTp),
                 out_of_range("pp", s.pp, kWorkloadPp),
                 out_of_range("micro_batch", s.micro_batch, kWorkloadMicroBatch),
                 out_of_range("global_batch", s.global_batch, kWorkloadGlobalBatch),
                 out_of_range("gbps", s.gbps, kWorkloadGbps),
                 out_of_range("gpus_per_server", s.gpus_per_server, kWorkloadGpusPerServer),
                 out_of_range("dp_ratio", s.dp_ratio, kWorkloadDpRatio),
                 out_of_range("skip", s.skip, kWorkloadSkip),
                 out_of_range("max_ranks", s.max_ranks, kWorkloadMaxRanks),
                 out_of_range("max_graph_nodes", s.max_graph_nodes, kWorkloadGraphNodeBudget)}))
    return *bad;
  return s;
}

StatusOr<ThroughputSettings> check_throughput(const ThroughputSettings& s) {
  const Bounds<uint64_t>& sizes = kThroughputBytes;
  if (auto bad = first({out_of_range("ranks", s.ranks, kThroughputRanks),
                        out_of_range("bw_gbps", s.bw_gbps, kThroughputBwGbps),
                        out_of_range("alpha_us", s.alpha_us, kThroughputAlphaUs),
                        size_out_of_range("slice_bytes", s.pipeline.slice_bytes,
                                          kThroughputPipelineBytes.lo, kThroughputPipelineBytes.hi),
                        size_out_of_range("chunk_bytes", s.pipeline.chunk_bytes,
                                          kThroughputPipelineBytes.lo, kThroughputPipelineBytes.hi),
                        out_of_range("channels", s.channels, kThroughputChannels),
                        size_out_of_range("min_bytes", s.min_bytes, sizes.lo, sizes.hi)}))
    return *bad;
  // The largest size: from the smallest up (0, the page's default, when not given).
  if (s.max_bytes != 0)
    if (auto bad = size_out_of_range("max_bytes", s.max_bytes, s.min_bytes, sizes.hi)) return *bad;
  if (s.min_bytes > s.largest_bytes())
    return size_out_of_range("min_bytes", s.min_bytes, sizes.lo, s.largest_bytes()).value();
  if (s.proto != "auto" && s.proto != "simple" && s.proto != "ll" && s.proto != "ll128")
    return invalid_input("proto", "expected auto, simple, ll or ll128, got '" + s.proto + "'");
  return s;
}

}  // namespace commlab::views
