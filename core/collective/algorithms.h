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

// What SkipReduce may skip in an algorithm's plan over N ranks (docs/collectives.md): ring at most
// N-1 reduce-scatter steps, tree its depth floor(log2 N) of reduce levels, hd its floor(log2 N)
// halving rounds; beyond that a plan would clamp the value and report a collective that did not
// run.
struct SkipLimit {
  int max = 0;
  const char* what = "";  // what is skipped and why that many: "steps (N-1)"
};

// How an algorithm's ranks are best drawn (the Teaching page, docs' figures): on a circle, as a
// binary tree, on a grid of partners (halving-doubling's hypercube), or grouped by node.
enum class RankLayout { kRing, kTree, kGrid, kNodes };

// One algorithm, described once: callers ask the descriptor, never the name.
struct Algorithm {
  std::string name;
  std::string description;
  Plan (*build)(const PlanRequest&);
  std::vector<CollectiveOp> ops;  // the ops build() implements
  // Upper bound of the transfers build() materialises (time-only rings of equal chunks fold).
  uint64_t (*transfers)(const PlanRequest&);
  // SkipReduce's limit on `ranks` ranks; nullptr: the plan has no steps to skip.
  SkipLimit (*skip_limit)(int ranks) = nullptr;
  // True when the plan is built of whole nodes (PlanRequest::ranks_per_node consecutive ranks
  // each), so the ranks must be a multiple of ranks_per_node. NCCL's tree reads ranks_per_node too
  // but takes any remainder as a short last node.
  bool whole_nodes = false;
  RankLayout layout = RankLayout::kRing;

  bool supports(CollectiveOp op) const;
  bool skips() const { return skip_limit != nullptr; }
};

const std::vector<Algorithm>& algorithms();
// Plans are materialised; beyond this many transfers build_plan refuses instead of exhausting
// memory (a 200,000-rank direct all-reduce would need 4e10).
inline constexpr uint64_t kMaxPlanTransfers = 50'000'000;
// Throws std::invalid_argument listing the known names.
const Algorithm& find_algorithm(const std::string& name);
// nullptr for an unknown name.
const Algorithm* lookup_algorithm(const std::string& name);
// The algorithms SkipReduce applies to, as a list for messages: "ring, tree or hd".
std::string skipping_algorithms_text();
// Refuses (std::invalid_argument) an unknown name, an op the algorithm does not implement, a skip
// on an algorithm without steps to skip or on broadcast, and a plan over kMaxPlanTransfers.
Plan build_plan(const std::string& algorithm, const PlanRequest& request);
// Refuses, with build_plan's message, a plan over kMaxPlanTransfers at any size of the doubling
// sweep [min_bytes, max_bytes] (FP32 elements: bytes / 4), `request` giving the rest; counts
// transfers only, so it is cheap. Callers run it before timing a sweep, whose smaller sizes (and
// NCCL's tuner set-up) would otherwise take minutes before the refusal on a huge cluster.
void check_plan_sizes(const std::string& algorithm, PlanRequest request, uint64_t min_bytes,
                      uint64_t max_bytes);

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
