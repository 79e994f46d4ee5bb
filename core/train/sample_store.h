#pragma once
// A run's samples for charts in O(budget) memory, whatever the run's length: with a budget, only
// iterations that are multiples of a stride are kept, and a full store drops every other kept
// sample and doubles the stride. RunSession (what commlab-cli charts) and the GUI's Training tab
// keep their samples this way; the numbers a run reports never depend on it.
#include <cstddef>
#include <vector>

#include "train/trainer.h"

namespace commlab {

class SampleStore {
 public:
  // budget 0 keeps every sample. keep_latest: the newest sample is always the last element, even
  // when the rule would not keep it (it is replaced by the next one), so a live chart ends at the
  // latest iteration.
  explicit SampleStore(size_t budget = 0, bool keep_latest = false);
  void set_budget(size_t budget);
  void add(const Sample& sample);
  const std::vector<Sample>& samples() const { return samples_; }
  size_t stride() const { return stride_; }
  void clear();

 private:
  size_t budget_ = 0;
  bool keep_latest_ = false;
  bool provisional_tail_ = false;  // samples_.back() is the latest, not kept by the rule
  size_t stride_ = 1;
  std::vector<Sample> samples_;
};

}  // namespace commlab
