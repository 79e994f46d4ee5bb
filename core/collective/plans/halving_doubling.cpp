// Recursive halving-doubling (Rabenseifner): reduce-scatter by recursive halving (log2 p steps,
// each rank keeps half of its range and sends the other half to its partner r xor mask), then
// all-gather by recursive doubling. With n not a power of two, the n - p extra ranks first fold
// their data into ranks 0..n-p-1 and receive the result at the end (2 more steps). Chunk c of p
// ends at rank c. SkipReduce analogue (docs/collectives.md): skip s drops the last s halving rounds
// (the smallest exchanges), so chunk c only sums the ranks that agree with c on the low s bits:
// 1 - 2^-s of the contributions are lost. For a standalone all-gather the last s doubling rounds
// (the largest) are dropped and rank r only receives the chunks that agree with r on the high
// log2(p) - s bits.
#include <algorithm>
#include <bit>

#include "collective/algorithms.h"

namespace commlab {

Plan build_halving_doubling(const PlanRequest& req) {
  Plan plan;
  const int n = req.ranks;
  const int p = static_cast<int>(std::bit_floor(static_cast<unsigned>(n)));
  const int extra = n - p;
  for (int c = 0; c <= p; ++c) plan.chunk_begin.push_back(chunk_start(req.count, p, c));
  auto region = [&](int lo, int hi) {  // elements of chunks [lo, hi)
    return std::pair<uint64_t, uint64_t>{plan.chunk_begin[lo],
                                         plan.chunk_begin[hi] - plan.chunk_begin[lo]};
  };
  const bool reduce_phase =
      req.op == CollectiveOp::kAllReduce || req.op == CollectiveOp::kReduceScatter;
  const bool gather_phase = req.op != CollectiveOp::kReduceScatter;
  const int rounds = std::countr_zero(static_cast<unsigned>(p));
  const int skip = std::clamp(req.skip.skip, 0, rounds);

  if (req.op == CollectiveOp::kBroadcast) {  // binomial tree from rank 0, log2 n steps
    for (int mask = 1; mask < n; mask <<= 1) {
      std::vector<Transfer> step;
      for (int r = 0; r < mask && r + mask < n; ++r)
        step.push_back({r, r + mask, 0, req.count, false});
      plan.steps.push_back(PlanStep{step, 1, "broadcast"});
    }
    return plan;
  }
  if (extra > 0 && reduce_phase) {
    std::vector<Transfer> fold;
    for (int r = p; r < n; ++r) fold.push_back({r, r - p, 0, req.count, true});
    plan.steps.push_back(PlanStep{fold, 1, "fold"});
  }
  // lo/hi: the chunk range rank r is responsible for after each halving step.
  std::vector<int> lo(p, 0), hi(p, p);
  std::vector<int> masks;
  for (int mask = p >> 1; mask >= 1; mask >>= 1) masks.push_back(mask);
  for (size_t k = 0; k < masks.size(); ++k) {
    const int mask = masks[k];
    const bool skipped = static_cast<int>(k) >= rounds - skip;  // ranges halve, nothing is sent
    std::vector<Transfer> step;
    for (int r = 0; r < p; ++r) {
      int mid = (lo[r] + hi[r]) / 2;
      bool keep_low = (r & mask) == 0;
      auto [off, cnt] = keep_low ? region(mid, hi[r]) : region(lo[r], mid);
      if (reduce_phase) step.push_back({r, r ^ mask, off, cnt, true});
      if (keep_low)
        hi[r] = mid;
      else
        lo[r] = mid;
    }
    if (reduce_phase && !skipped) plan.steps.push_back(PlanStep{step, 1, "halving"});
  }
  for (int r = 0; r < p; ++r) plan.chunk_owner.push_back(-1);
  for (int r = 0; r < p; ++r) plan.chunk_owner[lo[r]] = r;
  if (gather_phase) {
    const int gather_rounds = req.op == CollectiveOp::kAllGather ? rounds - skip : rounds;
    for (int k = 0; k < gather_rounds; ++k) {
      const int mask = 1 << k;
      std::vector<Transfer> step;
      for (int r = 0; r < p; ++r) {
        auto [off, cnt] = region(lo[r], hi[r]);
        step.push_back({r, r ^ mask, off, cnt, false});
      }
      for (int r = 0; r < p; ++r) {  // both partners now hold the union of their ranges
        int q = r ^ mask;
        if (r < q) {
          int l = std::min(lo[r], lo[q]), h = std::max(hi[r], hi[q]);
          lo[r] = lo[q] = l;
          hi[r] = hi[q] = h;
        }
      }
      plan.steps.push_back(PlanStep{step, 1, "doubling"});
    }
    if (extra > 0) {
      std::vector<Transfer> unfold;
      for (int r = p; r < n; ++r) {  // what r - p holds: everything unless all-gather skipped
        auto [off, cnt] = region(lo[r - p], hi[r - p]);
        unfold.push_back({r - p, r, off, cnt, false});
      }
      plan.steps.push_back(PlanStep{unfold, 1, "unfold"});
    }
  }
  // Dropped pairs; an extra rank q >= p shares the fate of q - p (it folds into / copies from it).
  const unsigned low = (1u << skip) - 1, high_shift = static_cast<unsigned>(rounds - skip);
  for (int c = 0; c < p && skip > 0; ++c)
    for (int q = 0; q < n; ++q) {
      unsigned diff = static_cast<unsigned>(c ^ (q < p ? q : q - p));
      bool dropped =
          req.op == CollectiveOp::kAllGather ? (diff >> high_shift) != 0 : (diff & low) != 0;
      if (dropped) plan.dropped.push_back({c, q});
    }
  return plan;
}

}  // namespace commlab
