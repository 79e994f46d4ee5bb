// A group's collective is timed the same whether or not other groups run one at the same instant
// (on a non-blocking switch disjoint groups share no link), and never faster than the bandwidth
// its ranks' links allow. Eight ranks on a flat switch at 53.687 GB/s and 1 us, NCCL's slicing
// (the workload command's default), groups of 2 and 4.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "network/analytical.h"
#include "topology/topology.h"
#include "workload/scheduler.h"

namespace commlab::workload {
namespace {

constexpr int kRanks = 8;
constexpr double kB = 53.6870912e9;  // bytes/s per rank (ASTRA-sim's 50 "GB/s" = 50 x 2^30 B/s)
constexpr double kAlpha = 1e-6;
constexpr uint64_t kBytes = 64ull << 20;

Node collective(uint64_t id, CommOp op, uint64_t bytes, int group) {
  Node n;
  n.id = id;
  n.kind = NodeKind::kCollective;
  n.op = op;
  n.bytes = bytes;
  n.group_or_peer = group;
  n.comm = CommKind::kTp;
  n.stream = 1;
  return n;
}

// `ranks` ranks split into groups of `group_size` in rank order; the groups listed in `running`
// each run `calls` chained collectives; the time per call.
double time_per_call(int ranks, int group_size, CommOp op, const std::vector<int>& running,
                     int calls = 1) {
  Graph g;
  g.ranks.resize(ranks);
  for (int first = 0; first < ranks; first += group_size) {
    g.groups.emplace_back();
    for (int r = first; r < first + group_size; ++r) g.groups.back().push_back(r);
  }
  for (int group : running)
    for (int r : g.groups[group]) {
      uint32_t prev = 0;
      for (int c = 0; c < calls; ++c)
        prev = c == 0 ? g.ranks[r].add(collective(1, op, kBytes, group))
                      : g.ranks[r].add(collective(c + 1, op, kBytes, group), {prev});
    }
  AnalyticalBackend backend(make_flat(ranks, kB, kAlpha));
  return schedule(g, backend, SchedulerOptions{}).iteration_s / calls;
}

// The bytes each rank's link must carry at least, over its bandwidth, for a buffer of S bytes per
// rank (the gathered output for all-gather) over n ranks.
double bandwidth_bound(CommOp op, int n) {
  const double s = static_cast<double>(kBytes), share = (n - 1.0) / n;
  switch (op) {
    case CommOp::kAllReduce: return 2 * share * s / kB;  // reduce-scatter, then all-gather
    case CommOp::kReduceScatter:                         // (n-1) of n chunks leave each rank
    case CommOp::kAllGather:
    case CommOp::kAllToAll: return share * s / kB;
    case CommOp::kBroadcast: return s / kB;  // the root sends all of it once
  }
  return 0;
}

TEST(SubgroupTiming, AGroupAloneTakesAsLongAsBesideADisjointBusyGroupAndRespectsItsBound) {
  for (CommOp op : {CommOp::kAllReduce, CommOp::kAllGather, CommOp::kReduceScatter,
                    CommOp::kAllToAll, CommOp::kBroadcast})
    for (int n : {2, 4}) {
      SCOPED_TRACE(std::string(comm_op_name(op)) + " over " + std::to_string(n) + " of 8 ranks");
      const int groups = kRanks / n;
      std::vector<int> all;
      for (int i = 0; i < groups; ++i) all.push_back(i);
      const double alone = time_per_call(kRanks, n, op, {groups - 1});  // the last group only
      const double beside = time_per_call(kRanks, n, op, all);          // every group at once
      const double own_cluster = time_per_call(n, n, op, {0});          // `collective --ranks n`
      EXPECT_NEAR(alone / beside, 1.0, 0.01) << "alone " << alone << " s, beside " << beside;
      EXPECT_NEAR(alone / own_cluster, 1.0, 0.01)
          << "alone " << alone << " s, on " << n << " ranks " << own_cluster;
      // bound = bytes through one rank's link / B (bandwidth_bound above), latency not counted
      EXPECT_GE(alone, bandwidth_bound(op, n)) << "alone " << alone << " s";
      EXPECT_GE(beside, bandwidth_bound(op, n)) << "beside " << beside << " s";
    }
}

TEST(SubgroupTiming, TenChainedAllReducesOfOneGroupOfFourMatchBothGroupsRunningThem) {
  // 2 x 3/4 x 64 MiB / 53.687 GB/s = 1.875 ms per all-reduce at least.
  const double bound = 2 * 0.75 * static_cast<double>(kBytes) / kB;
  const double alone = time_per_call(kRanks, 4, CommOp::kAllReduce, {1}, 10);
  const double both = time_per_call(kRanks, 4, CommOp::kAllReduce, {0, 1}, 10);
  EXPECT_GE(alone, bound);
  EXPECT_NEAR(alone / both, 1.0, 0.01) << "alone " << alone << " s, both " << both << " s";
}

}  // namespace
}  // namespace commlab::workload
