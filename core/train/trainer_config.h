#pragma once
// What a data-parallel run trains with: ranks, batch, evaluation cadence, seed, optimizer,
// learning-rate schedule, compute model and sharding (both trainers, train/trainer.h and
// exec/runs/rank_trainer.h).
#include <cstdint>

#include "train/compute_model.h"
#include "train/data/sampler.h"
#include "train/optimizer.h"

namespace commlab {

struct TrainerConfig {
  int ranks = 1;
  int iterations = 100;
  int global_batch = 64;  // split evenly: each rank gets global_batch / ranks rows
  int eval_every = 50;    // test loss/accuracy every k iterations and after the last (0: last only)
  // The adaptive cadence (train/eval_schedule.h): > 0 evaluates every eval_every_far iterations
  // outside the band from eval_fine_from to the settled smoothed crossing of eval_fine_until
  // (smoothing window eval_window iterations); 0: eval_every throughout.
  int eval_every_far = 0;
  double eval_fine_from = 0;
  double eval_fine_until = 1;
  int eval_window = 0;
  int eval_rows = 0;  // 0: the whole test set; else a seeded random subset (eval_subset)
  uint64_t seed = 1;  // init (same for all replicas), data order, shards, eval subset
  int threads = 0;    // OpenMP threads for the ranks; 0: OpenMP default. Never changes results.
  OptimizerConfig optimizer;
  ScheduleConfig schedule;
  ComputeModel compute;
  Sharding sharding;  // which rows each rank sees (train/data/sampler.h)
};

}  // namespace commlab
