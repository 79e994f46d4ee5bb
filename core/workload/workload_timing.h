#pragma once
// Iteration time of a catalog workload (GPT-3 175B, Llama-3, ...) at real scale: every message the
// parallelism sends (workload/catalog/catalog.h) is timed as a collective on the cluster's network,
// with all groups of one kind running concurrently so they share links as they would. Ranks are
// laid out tp-innermost (a TP group sits in one server, on NVLink), then pp, then dp.
#include <functional>
#include <string>
#include <vector>

#include "network/analytical.h"
#include "network/backend.h"
#include "topology/routing.h"
#include "train/compute_model.h"
#include "workload/catalog/catalog.h"
#include "workload/scheduler.h"

namespace commlab {

// A codec of the network applies to traffic that leaves a server; TP groups and PP hand-offs
// inside one server (NVLink) keep their payload size and pay no codec time.
struct WorkloadTechniques {
  double tp_ratio = 1.0;  // wire bytes / payload bytes of TP activations (a codec's ratio)
  double dp_ratio = 1.0;  // same for DP gradients
  int dp_skip = 0;        // SkipReduce: DP reduce-scatter steps skipped
  std::string algorithm = "ring";
  // Encode + decode time per payload byte where the codec runs (0: in the NIC, at line rate;
  // 2 / throughput on a GPU or CPU, collective/codec_wire.h's PlacementModel), on TP and DP.
  double codec_s_per_byte = 0;
};

struct MessageTiming {
  MessageKind kind;
  uint64_t bytes = 0;      // payload per message per GPU group
  int64_t count = 0;       // per iteration
  double time_each_s = 0;  // one message, all groups concurrently
};

struct WorkloadTiming {
  double compute_s = 0;
  double tp_s = 0, dp_s = 0, pp_s = 0;  // per iteration, on the critical path
  double ep_s = 0;                      // graph engine only: expert all-to-alls
  // Graph engine only: communication of no kind (CommKind::kOther), e.g. every collective of a
  // third-party Chakra trace, which carries no commlab_comm_kind.
  double other_s = 0;
  double idle_s = 0;  // graph engine only: gaps on the critical path
  // Encode + decode on the critical path (WorkloadTechniques::codec_s_per_byte), not in tp_s /
  // dp_s / pp_s / ep_s; the graph engine splits each kind's exposed time in proportion to its
  // codec share of the kind's total.
  double codec_s = 0;
  double iteration_s = 0;
  std::vector<MessageTiming> messages;
};

// Throws std::invalid_argument when the cluster has fewer GPUs than dp * tp * pp.
WorkloadTiming time_workload(const TransformerSpec& spec, const Parallelism& p,
                             NetworkBackend& backend, const ComputeModel& compute,
                             const WorkloadTechniques& techniques = {});

// The graph engine's side (workload/scheduler.h), shared by catalog and trace runs and the
// `workload` command: the scheduler options that apply `techniques` as time_workload does (the
// codec ratio on TP and DP bytes that leave a server, SkipReduce on DP reduce-scatters), no
// timeline recorded.
workload::SchedulerOptions graph_options(const ComputeModel& compute,
                                         const WorkloadTechniques& techniques);
// A replay in WorkloadTiming's terms: compute and exposed TP/DP/PP/EP/other time on the critical
// path, its idle gaps; no messages.
WorkloadTiming timing_of(const workload::ScheduleResult& r);

// The leaf-spine ECMP penalty (docs/workload.md, "Routing: the leaf-spine ECMP penalty"), as
// `commlab-cli workload` writes it (routing_comparison) and the Workload page shows it. One
// baseline timing under a routing mode, with what that routing did to the links:
struct RoutedTiming {
  double dp_s = 0;                   // exposed DP time (timing_of or time_workload)
  std::vector<TierImbalance> tiers;  // link bytes per tier (analytical backend; else empty)
  bool ecmp_choices = false;         // some flow had several equal-cost paths
};
// The exposed DP time under the settings' routing and under the other mode, and the busiest link
// of the most imbalanced tier against the tier's mean under both.
struct RoutingComparison {
  bool ecmp_choices = false;  // the other mode was timed (else every flow had one path: they agree)
  RoutingMode other = RoutingMode::kIdeal;
  double dp_s = 0;
  double other_dp_s = 0;       // ecmp_choices only
  double ecmp_penalty_dp = 0;  // ECMP DP / ideal DP; 0 without a comparison or with ideal DP of 0
  TierImbalance load;          // most_imbalanced_tier under the settings' routing
  TierImbalance other_load;    // the same tier under the other mode (ecmp_choices only)
};
// `time_under(mode)` times the same baseline under the other mode; it is called only when
// `first` (timed under `routing`) had a choice of paths, since otherwise the modes agree.
RoutingComparison compare_routing(RoutingMode routing, const RoutedTiming& first,
                                  const std::function<RoutedTiming(RoutingMode)>& time_under);

}  // namespace commlab
