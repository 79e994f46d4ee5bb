#pragma once
// The collective algorithms, registered by name in one table (SimGrid style): ring, tree, hd,
// hier, direct. Each builds a Plan; none touches buffers or time.
#include <string>
#include <vector>

#include "collective/plan.h"
#include "collective/skip.h"

namespace commlab {

struct PlanRequest {
  CollectiveOp op = CollectiveOp::kAllReduce;
  int ranks = 2;
  uint64_t count = 0;      // elements per rank
  bool time_only = false;  // allow folding identical steps (no data plane will run)
  // SkipReduce: ring (paper rule; all-gather: beyond the paper), tree and hd (analogues,
  // docs/collectives.md); hier and direct reject s > 0.
  SkipDecision skip;
  bool unbiased_skip = false;  // reducing ops: rescale chunk c by ranks / contributors(c)
  int ranks_per_node = 1;      // hierarchical: consecutive ranks share a node
  PipelineConfig pipeline;     // ring slicing in the time plane
};

struct Algorithm {
  std::string name;
  std::string description;
  Plan (*build)(const PlanRequest&);
};

const std::vector<Algorithm>& algorithms();
// Plans are materialised; beyond this many transfers build_plan refuses instead of exhausting
// memory (a 200,000-rank direct all-reduce would need 4e10).
inline constexpr uint64_t kMaxPlanTransfers = 50'000'000;
uint64_t estimated_transfers(const std::string& algorithm, const PlanRequest& request);
// Throws std::invalid_argument listing the known names.
const Algorithm& find_algorithm(const std::string& name);
Plan build_plan(const std::string& algorithm, const PlanRequest& request);

// Building blocks shared by ring and hierarchical: the steps of a ring over `group` (ranks in ring
// order) on elements [begin, begin + count), split into group.size() chunks.
using StepList = std::vector<std::vector<Transfer>>;
struct RingRegion {
  std::vector<int> group;
  uint64_t begin = 0;
  uint64_t count = 0;
};
// Chunk c (local index) ends at group[(c + rotation) % n] after n-1-skip reduce steps.
StepList ring_reduce_scatter(const RingRegion& region, int skip = 0, int rotation = 0);
// All-gather; with skip > 0 only n-1-skip steps run.
StepList ring_all_gather(const RingRegion& region, int rotation = 0, int skip = 0);
// Run step lists side by side (concurrently): step i of the result holds step i of each.
StepList merge_concurrent(const std::vector<StepList>& lists);
void append_steps(Plan& plan, const StepList& steps, const std::string& phase);

// Per-algorithm builders (one file each).
Plan build_ring(const PlanRequest& request);
Plan build_direct(const PlanRequest& request);
Plan build_halving_doubling(const PlanRequest& request);
Plan build_tree(const PlanRequest& request);
Plan build_hierarchical(const PlanRequest& request);
Plan build_nccl_tree(const PlanRequest& request);  // nccl_tree.cpp

}  // namespace commlab
