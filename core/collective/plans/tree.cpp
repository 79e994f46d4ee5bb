// Double binary tree (NCCL): two complete binary trees over the ranks, the second the mirror image
// of the first (position i is rank i in tree 0 and rank n-1-i in tree 1), so most ranks that are
// interior in one tree are leaves in the other. Each tree carries half of the buffer.
//   all-reduce:     reduce the half up to the root level by level, then broadcast it back down
//                   (per rank about 2S, latency O(log n)).
//   reduce-scatter: the same reduce, then a scatter down: each parent sends a child only the
//                   chunks owned by ranks of the child's subtree (rank r owns chunk r of n).
//   all-gather:     a gather up (each child sends its subtree's chunks), then the broadcast down.
//   broadcast:      one tree from rank 0 over the whole buffer.
// NCCL's tree does all-reduce only; RS/AG here reuse its two halves so they keep its log-depth
// latency (docs/collectives.md). SkipReduce analogue: the s deepest reduce levels are not run, so
// every rank deeper than max_depth - s is missing from its tree's sums; for all-gather the s
// deepest broadcast levels are not run and those ranks keep their own copy of the chunks outside
// their subtree.
#include <algorithm>
#include <bit>

#include "collective/algorithms.h"

namespace commlab {

namespace {

int depth_of(int position) {
  return std::bit_width(static_cast<unsigned>(position + 1)) - 1;
}

struct Region {
  uint64_t begin = 0;
  uint64_t end = 0;
};

class DoubleTree {
 public:
  DoubleTree(int n, uint64_t count, bool one_tree) : n_(n), count_(count) {
    max_depth_ = depth_of(n - 1);
    const uint64_t half = one_tree ? count : count / 2;
    range_[0] = {0, half};
    range_[1] = {half, count};
    trees_ = one_tree ? 1 : 2;
  }
  int trees() const { return trees_; }
  int max_depth() const { return max_depth_; }
  int rank(int t, int i) const { return t == 0 ? i : n_ - 1 - i; }
  int position(int t, int r) const { return t == 0 ? r : n_ - 1 - r; }
  Region range(int t) const { return range_[t]; }
  bool empty(int t) const { return range_[t].begin == range_[t].end; }
  // Elements of tree t's half owned (chunk r of n belongs to rank r) by ranks in the subtree of
  // position i: the subtree's positions at each depth below i are contiguous, so are its ranks.
  std::vector<Region> subtree_regions(int t, int i) const {
    std::vector<Region> runs;
    for (uint64_t k = 0;; ++k) {
      uint64_t lo = (static_cast<uint64_t>(i) + 1) * (1ull << k) - 1;
      if (lo >= static_cast<uint64_t>(n_)) break;
      uint64_t hi = std::min<uint64_t>(lo + (1ull << k) - 1, n_ - 1);
      uint64_t rlo = t == 0 ? lo : n_ - 1 - hi, rhi = t == 0 ? hi : n_ - 1 - lo;
      Region r{std::max(chunk_start(count_, n_, rlo), range_[t].begin),
               std::min(chunk_start(count_, n_, rhi + 1), range_[t].end)};
      if (r.begin < r.end) runs.push_back(r);
    }
    std::sort(runs.begin(), runs.end(), [](Region a, Region b) { return a.begin < b.begin; });
    std::vector<Region> merged;
    for (Region r : runs) {
      if (!merged.empty() && merged.back().end == r.begin)
        merged.back().end = r.end;
      else
        merged.push_back(r);
    }
    return merged;
  }
  bool in_subtree(int t, int i, int r) const {
    int p = position(t, r);
    while (p > i) p = (p - 1) / 2;
    return p == i;
  }

 private:
  int n_;
  uint64_t count_;
  int max_depth_ = 0;
  int trees_ = 2;
  Region range_[2];
};

// Whole-half transfers between every node of `level` and its parent (up: child -> parent).
std::vector<Transfer> level_step(const DoubleTree& tree, int n, int level, bool up, bool reduce) {
  std::vector<Transfer> step;
  for (int t = 0; t < tree.trees(); ++t)
    for (int i = 0; i < n; ++i)
      if (depth_of(i) == level && !tree.empty(t)) {
        Region g = tree.range(t);
        int child = tree.rank(t, i), parent = tree.rank(t, (i - 1) / 2);
        step.push_back(
            {up ? child : parent, up ? parent : child, g.begin, g.end - g.begin, reduce});
      }
  return step;
}

// Subtree-chunk copies between every node of `level` and its parent (scatter down / gather up).
std::vector<Transfer> subtree_step(const DoubleTree& tree, int n, int level, bool up) {
  std::vector<Transfer> step;
  for (int t = 0; t < tree.trees(); ++t)
    for (int i = 0; i < n; ++i)
      if (depth_of(i) == level)
        for (Region g : tree.subtree_regions(t, i)) {
          int child = tree.rank(t, i), parent = tree.rank(t, (i - 1) / 2);
          step.push_back(
              {up ? child : parent, up ? parent : child, g.begin, g.end - g.begin, false});
        }
  return step;
}

}  // namespace

Plan build_tree(const PlanRequest& req) {
  Plan plan;
  const int n = req.ranks;
  const bool broadcast = req.op == CollectiveOp::kBroadcast;
  DoubleTree tree(std::max(n, 1), req.count, broadcast);
  const int skip = std::clamp(req.skip.skip, 0, tree.max_depth());
  const bool per_rank_chunks =
      req.op == CollectiveOp::kReduceScatter || req.op == CollectiveOp::kAllGather;
  // Chunks: the two halves (all-reduce, broadcast), or rank r's chunk r of n split at the halves'
  // boundary so that every chunk travels in exactly one tree (reduce-scatter, all-gather).
  std::vector<int> chunk_tree;
  if (per_rank_chunks) {
    const uint64_t half = tree.range(0).end;
    for (int c = 0; c < n; ++c) {
      uint64_t b = chunk_start(req.count, n, c), e = chunk_start(req.count, n, c + 1);
      plan.chunk_begin.push_back(b);
      plan.chunk_owner.push_back(c);
      chunk_tree.push_back(b < half ? 0 : 1);
      if (b < half && half < e) {
        plan.chunk_begin.push_back(half);
        plan.chunk_owner.push_back(c);
        chunk_tree.push_back(1);
      }
    }
    plan.chunk_begin.push_back(req.count);
  } else {
    plan.chunk_begin = {0, tree.range(0).end, req.count};
    plan.chunk_owner = {tree.rank(0, 0), tree.rank(1, 0)};
    chunk_tree = {0, 1};
    if (broadcast) {
      plan.chunk_begin = {0, req.count};
      plan.chunk_owner = {0};
      chunk_tree = {0};
    }
  }
  if (n < 2) return plan;
  const int deepest_kept = tree.max_depth() - skip;  // levels below this one are skipped

  if (req.op == CollectiveOp::kAllReduce || req.op == CollectiveOp::kReduceScatter) {
    for (int level = deepest_kept; level >= 1; --level)
      plan.steps.push_back(PlanStep{level_step(tree, n, level, true, true), 1, "tree-reduce"});
    for (size_t c = 0; c < chunk_tree.size(); ++c)
      for (int r = 0; r < n; ++r)
        if (depth_of(tree.position(chunk_tree[c], r)) > deepest_kept)
          plan.dropped.push_back({static_cast<int>(c), r});
  }
  if (req.op == CollectiveOp::kReduceScatter) {
    for (int level = 1; level <= tree.max_depth(); ++level)
      plan.steps.push_back(PlanStep{subtree_step(tree, n, level, false), 1, "tree-scatter"});
  }
  if (req.op == CollectiveOp::kAllGather) {
    for (int level = tree.max_depth(); level >= 1; --level)
      plan.steps.push_back(PlanStep{subtree_step(tree, n, level, true), 1, "tree-gather"});
  }
  if (req.op != CollectiveOp::kReduceScatter) {
    const int last = req.op == CollectiveOp::kAllGather ? deepest_kept : tree.max_depth();
    for (int level = 1; level <= last; ++level)
      plan.steps.push_back(PlanStep{level_step(tree, n, level, false, false), 1, "tree-broadcast"});
  }
  if (req.op == CollectiveOp::kAllGather) {
    // Ranks deeper than the last broadcast level miss every chunk outside their own subtree.
    for (size_t c = 0; c < chunk_tree.size(); ++c) {
      const int t = chunk_tree[c];
      for (int r = 0; r < n; ++r) {
        int p = tree.position(t, r);
        if (depth_of(p) > deepest_kept && !tree.in_subtree(t, p, plan.chunk_owner[c]))
          plan.dropped.push_back({static_cast<int>(c), r});
      }
    }
  }
  return plan;
}

}  // namespace commlab
