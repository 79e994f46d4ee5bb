#include "scenario/run/equivalent_runs.h"

#include <cmath>

namespace commlab {

namespace {

// Equal as numbers, NaN equal to NaN (a metric a run does not measure).
bool same_number(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

bool same_summary(const RunSummary& a, const RunSummary& b) {
  return a.seed == b.seed && a.timed_as == b.timed_as && a.iterations == b.iterations &&
         same_number(a.sim_time_s, b.sim_time_s) &&
         same_number(a.final_train_loss, b.final_train_loss) &&
         same_number(a.final_test_accuracy, b.final_test_accuracy) &&
         a.bytes_on_wire == b.bytes_on_wire && same_number(a.mean_ratio, b.mean_ratio) &&
         same_number(a.effective_bits, b.effective_bits) &&
         a.trimmed_packets == b.trimmed_packets && a.skipped_steps == b.skipped_steps &&
         same_number(a.time_to_accuracy_s, b.time_to_accuracy_s) &&
         a.iterations_to_accuracy == b.iterations_to_accuracy;
}

// A sample's series.csv row without wall time, learning rate, gradient norm and NMSE: every other
// column the file holds, so a metric added to the series is compared without a change here. Wall
// time measures the host; a run at k times the learning rate whose reduced gradient is k times
// smaller updates identically (SGD with momentum, no weight decay), so the rate and what measures
// the gradient's scale (its norm, its error against the exact average) are how the same arithmetic
// is written, not what it computed: losses, accuracy, times and bytes are.
std::string outcome_row(Sample s) {
  s.wall_time_s = s.lr = s.grad_norm = s.nmse = Sample::kNaN;
  return series_row("", s);
}

}  // namespace

bool identical_series(const RunResult& a, const RunResult& b) {
  if (a.samples.empty() || a.samples.size() != b.samples.size()) return false;
  if (!same_summary(a.summary, b.summary)) return false;
  for (size_t i = 0; i < a.samples.size(); ++i)
    if (outcome_row(a.samples[i]) != outcome_row(b.samples[i])) return false;
  return true;
}

std::vector<EquivalentRun> equivalent_runs(const std::vector<RunResult>& runs) {
  std::vector<EquivalentRun> out;
  for (size_t j = 1; j < runs.size(); ++j)
    for (size_t i = 0; i < j; ++i)
      if (identical_series(runs[i], runs[j])) {
        out.push_back({j, i, runs[j].summary.seed});
        break;
      }
  return out;
}

nlohmann::json equivalent_runs_json(const std::vector<std::string>& names,
                                    const std::vector<EquivalentRun>& same) {
  nlohmann::json out = nlohmann::json::array();
  for (const EquivalentRun& e : same)
    out.push_back({{"run", names[e.run]},
                   {"equals", names[e.same_as]},
                   {"seed", e.seed},
                   {"why", "identical series"}});
  return out;
}

std::string equivalence_text(const nlohmann::json& entry) {
  return "arm " + entry["run"].get<std::string>() + " equals arm " +
         entry["equals"].get<std::string>() + " on seed " +
         std::to_string(entry["seed"].get<uint64_t>()) + " (" + entry["why"].get<std::string>() +
         ")";
}

}  // namespace commlab
