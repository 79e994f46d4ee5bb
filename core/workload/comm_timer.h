#pragma once
// How the scheduler times communication (docs/workload.md, "The graph engine"): collective
// instances that start at the same instant with the same shape (op, wire elements, group size,
// SkipReduce decision) are planned once by the collective planner, mapped onto every group's global
// ranks and timed as ONE plan on the backend, so they share links as they would; matched
// send/recv pairs that start together are one step of flows, each with its own finish. On a
// stateless backend (analytical) a class's time is cached by its shape and groups.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "collective/plan.h"
#include "collective/skip.h"
#include "network/backend.h"
#include "workload/graph.h"

namespace commlab::workload {

struct CollectiveShape {
  CommOp op = CommOp::kAllReduce;
  uint64_t elements = 0;  // wire bytes / 4 per rank (time-only plans charge 4 B per element)
  int group_size = 0;
  SkipDecision skip;
  bool operator<(const CollectiveShape& o) const {
    return std::tie(op, elements, group_size, skip.skip, skip.rotation) <
           std::tie(o.op, o.elements, o.group_size, o.skip.skip, o.skip.rotation);
  }
};

struct CommTiming {
  double time_s = 0;
  uint64_t bytes_on_wire = 0;  // summed over the class's groups
};

// True when every rank of `ranks` (global ranks of `topology`) sits in the same server (box): their
// traffic stays on the server's NVLink / PCIe fabric and never reaches a NIC. A codec of the
// network (NetZIP's, in the NIC or as GPU kernels before the NIC) does not touch it. GPUs without
// a server (-1) count as apart.
bool within_one_server(const Topology& topology, const std::vector<int>& ranks);
bool within_one_server(const Topology& topology, int a, int b);

// Throws std::invalid_argument naming the ranks, the transfers and the cap when an all-to-all over
// `groups` concurrent groups of `group_size` ranks would exceed kMaxPlanTransfers.
void check_all_to_all_transfers(int group_size, size_t groups);

class CommTimer {
 public:
  CommTimer(NetworkBackend& backend, std::string algorithm, PipelineConfig pipeline);
  // One class of concurrent collectives: the same shape in every listed group (graph.groups
  // indices, sorted).
  CommTiming time_collectives(const CollectiveShape& shape, const std::vector<int>& groups,
                              const std::vector<std::vector<int>>& group_ranks);
  // Point-to-point flows that start together; returns each flow's finish (seconds from start).
  std::vector<double> time_flows(const std::vector<Flow>& flows);
  uint64_t cache_hits() const { return hits_; }

 private:
  Plan local_plan(const CollectiveShape& shape) const;

  NetworkBackend& backend_;
  std::string algorithm_;
  PipelineConfig pipeline_;
  std::map<std::pair<CollectiveShape, std::vector<int>>, CommTiming> cache_;
  uint64_t hits_ = 0;
};

}  // namespace commlab::workload
