#include "train/sample_store.h"

#include <algorithm>

namespace commlab {

SampleStore::SampleStore(size_t budget, bool keep_latest) : keep_latest_(keep_latest) {
  set_budget(budget);
}

void SampleStore::set_budget(size_t budget) {
  budget_ = budget == 1 ? 2 : budget;  // one slot could never thin
}

void SampleStore::clear() {
  samples_.clear();
  provisional_tail_ = false;
  stride_ = 1;
}

void SampleStore::add(const Sample& sample) {
  if (provisional_tail_) {
    samples_.pop_back();
    provisional_tail_ = false;
  }
  const auto kept = [&](int iteration) { return iteration % static_cast<int>(stride_) == 0; };
  bool keep = budget_ == 0 || kept(sample.iteration);
  if (keep && budget_ > 0 && samples_.size() >= budget_) {
    stride_ *= 2;
    std::erase_if(samples_, [&](const Sample& s) { return !kept(s.iteration); });
    keep = kept(sample.iteration);
  }
  if (!keep && !keep_latest_) return;
  samples_.push_back(sample);
  provisional_tail_ = !keep;
}

}  // namespace commlab
