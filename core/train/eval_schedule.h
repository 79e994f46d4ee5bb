#pragma once
// When the trainers evaluate the test set. Evaluation is most of a small model's CPU time (every 2
// iterations on 2,500 rows it is half of an 8-rank MLP run), yet a time-to-accuracy crossing is
// decided only by the evaluations around it. The adaptive cadence evaluates every `far_every`
// iterations while the accuracy is far below the target band, every `every` iterations from the
// first evaluation at or above `fine_from`, and every `far_every` again once the crossing of
// `fine_until` is settled: the mean accuracy of the fine evaluations over the last `window`
// iterations is >= fine_until. That mean is the trailing smoothed value of the newest evaluation
// (scenario/run/tta_stats.h, smoothed_crossing_over_iterations, when window / 2 is a multiple of
// `every`; otherwise the one of an evaluation up to window / 2 iterations back), so the first
// smoothed crossing of any target up to fine_until lies inside the fine phase with every
// evaluation its window reads: it equals the crossing of a run evaluated every `every` iterations
// throughout, provided the accuracy passes fine_from more than `window` iterations before it
// crosses the target.
#include <utility>
#include <vector>

namespace commlab {

struct EvalCadence {
  int every = 50;     // iterations between evaluations (0: only after the last iteration)
  int far_every = 0;  // > 0: the adaptive cadence above; 0: `every` throughout
  double fine_from = 0;
  double fine_until = 1;
  int window = 0;  // iterations (training.tta_window); > 0 when far_every > 0
};

class EvalSchedule {
 public:
  EvalSchedule(EvalCadence cadence, int iterations);

  // Whether the test set is evaluated after `iterations_done` iterations (always after the last).
  bool due(int iterations_done) const;
  // The accuracy of the evaluation after `iterations_done` iterations (call in iteration order).
  void record(int iterations_done, double accuracy);
  // A fork (DataParallelTrainer::continue_from): the parent's evaluations so far, replayed through
  // this schedule's own band (a fork may change the target).
  void continue_from(const EvalSchedule& parent);

  enum class Phase { kFar, kFine, kSettled };
  Phase phase() const { return phase_; }

 private:
  void advance(int iterations_done, double accuracy);

  EvalCadence cadence_;
  int iterations_ = 0;
  Phase phase_ = Phase::kFar;
  int fine_start_ = 0;                         // iteration of the first fine-phase evaluation
  std::vector<std::pair<int, double>> evals_;  // every recorded (iteration, accuracy)
};

}  // namespace commlab
