#pragma once
// The four pages' settings (what each GUI page and `commlab-cli view PAGE` draw), checked once for
// every door: the view command's flags, the desktop app's command line, the pages' controls and
// the compute_* functions, which refuse what these checks refuse. The ranges are named here; the
// flags (cli/util/flag_parse_util.h in_range) and the spin boxes are set from the same constants,
// so a value is refused with the same words wherever it is typed.
//
// The settings types are their own requests (their fields are the user's words and numbers):
// check_* returns them unchanged when every field is good, else the first problem, naming the field
// as the settings spell it ("trim_rate", "message_bytes"); each door prints its own flag for it.
#include <cstdint>
#include <string>
#include <vector>

#include "collective/algorithms.h"
#include "collective/collective_settings.h"
#include "io/bounds.h"
#include "io/status.h"
#include "views/busbw_model.h"
#include "views/teaching_model.h"
#include "views/topology_model.h"
#include "views/workload_model.h"
#include "workload/catalog/catalog_graph.h"

namespace commlab::views {

// The algorithms the Teaching page offers (its chooser, view teaching --algorithm, the app's
// --teach-algo), and the Topology page's backends (--backend, the app's --topology-backend).
inline const std::vector<std::string> kTeachingAlgorithms{"ring", "tree", "hd", "hier", "direct"};
inline const std::vector<std::string> kTopologyBackends{"analytical", "packet"};

// Teaching: 2 to 16 ranks (kTeachingMaxRanks: a cell's value is a bitmask of ranks), SkipReduce
// within the algorithm's own limit (at most N-1), a trimmed fraction of packets.
inline constexpr Bounds<int> kTeachingRanks{2, kTeachingMaxRanks, "ranks"};
inline constexpr Bounds<int> kTeachingRanksPerNode{1, kTeachingMaxRanks};
inline constexpr Bounds<int> kTeachingSkip{0, kTeachingMaxRanks - 1};
inline constexpr Bounds<double> kTeachingTrimRate{0.0, 1.0};
// The random policy's iteration and seed: the scenarios' seed range (2^53, exact in a double).
inline constexpr Bounds<int64_t> kTeachingSeeds{0, int64_t{1} << 53};
// The frame shown (0: before the first step; beyond the last step, the last).
inline constexpr Bounds<int> kTeachingFrame{0, 1000000};

// Topology: the step timed (clamped to the collective's steps), the packet backend's queue, the
// boxes drawn before aggregating, the message, and the work budgets' own ranges.
inline constexpr Bounds<int> kTopologyStep{1, 1 << 20};
inline constexpr Bounds<int> kTopologyQueuePackets{0, 4096};
inline constexpr Bounds<int> kTopologyBoxes{1, 1 << 20};  // max_endpoints, max_servers
inline constexpr Bounds<uint64_t> kTopologyMessageBytes{4, kMaxCollectiveBytes};
inline constexpr Bounds<uint64_t> kTopologyLinkBudget{1, uint64_t{1} << 32};
inline constexpr Bounds<uint64_t> kTopologyPlanBudget{1, kMaxPlanTransfers};  // transfers, flows

// Workload: a split the page can replay and draw in seconds.
inline constexpr Bounds<int> kWorkloadDp{1, 1024};
inline constexpr Bounds<int> kWorkloadTp{1, 64};
inline constexpr Bounds<int> kWorkloadPp{1, 64};
inline constexpr Bounds<int> kWorkloadMicroBatch{1, 64};
inline constexpr Bounds<int> kWorkloadGlobalBatch{1, 65536};
inline constexpr Bounds<double> kWorkloadGbps{1.0, 3200.0};
inline constexpr Bounds<int> kWorkloadGpusPerServer{1, 8};
inline constexpr Bounds<double> kWorkloadDpRatio{0.05, 1.0};
inline constexpr Bounds<int> kWorkloadSkip{0, 63};
inline constexpr Bounds<int> kWorkloadMaxRanks{1, 32};
// The graph-node budget's range (its default is kWorkloadMaxGraphNodes).
inline constexpr Bounds<uint64_t> kWorkloadGraphNodeBudget{1, workload::kMaxCatalogGraphNodes};

// Throughput: a flat network of up to 256 ranks, or NCCL's channels on a cluster; sizes as
// collectives take them.
inline constexpr Bounds<int> kThroughputRanks{2, 256, "ranks"};
inline constexpr Bounds<double> kThroughputBwGbps{0.1, 2000.0};
inline constexpr Bounds<double> kThroughputAlphaUs{0.0, 1000.0};
inline constexpr Bounds<int> kThroughputChannels{0, 64};
inline constexpr Bounds<uint64_t> kThroughputBytes{4, kMaxCollectiveBytes};  // min and max size
inline constexpr Bounds<uint64_t> kThroughputPipelineBytes{0, kMaxCollectiveBytes};  // 0: off

// Each checks every field the page's controls set; the first problem found, naming its field.
StatusOr<TeachingSettings> check_teaching(const TeachingSettings& settings);
StatusOr<TopologySettings> check_topology(const TopologySettings& settings);
StatusOr<WorkloadSettings> check_workload(const WorkloadSettings& settings);
StatusOr<ThroughputSettings> check_throughput(const ThroughputSettings& settings);

}  // namespace commlab::views
