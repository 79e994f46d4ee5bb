#pragma once
// Runs of one experiment that are the same computation: two arms whose first seed produced the
// identical series (every sample's values but wall time, learning rate, gradient norm and NMSE,
// and the same summary) ran the same
// arithmetic, whatever their settings say (SkipReduce's paper semantics at 2x lr and unbiased
// skipping at lr, under SGD with momentum and no weight decay, update identically). They are one
// experiment, not two confirmations: summary.json lists them ("equivalent_runs"), `run` says so,
// and the report shows them as one row; the multiplicity correction counts them once.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/run/results_io.h"

namespace commlab {

struct EquivalentRun {
  size_t run = 0;      // index in the results: the later of the two
  size_t same_as = 0;  // the first earlier run it equals
  uint64_t seed = 0;   // the seed compared (the first)
};

// Every run whose first seed's series equals an earlier run's (each run against the first earlier
// run it equals). Runs without samples are never equal.
std::vector<EquivalentRun> equivalent_runs(const std::vector<RunResult>& runs);

// Whether two results' first seeds computed the same: the same number of samples, every sample's
// series.csv values equal but wall time, learning rate, gradient norm and NMSE (a run at 2x lr
// whose gradient is halved updates identically), and the summaries' values equal but name and wall
// time.
bool identical_series(const RunResult& a, const RunResult& b);

// summary.json's "equivalent_runs": [{"run", "equals", "seed", "why": "identical series"}].
// `names`: the runs' names, in results order.
nlohmann::json equivalent_runs_json(const std::vector<std::string>& names,
                                    const std::vector<EquivalentRun>& same);

// "arm X equals arm Y on seed S (identical series)" for one entry of equivalent_runs_json.
std::string equivalence_text(const nlohmann::json& entry);

}  // namespace commlab
