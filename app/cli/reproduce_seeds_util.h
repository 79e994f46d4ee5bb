#pragma once
// Report rows for a sample run over seeds (scenario/seed_stats.h): SkipReduce's time-to-accuracy
// speedup and final accuracy for every skip count and policy, each with N and its 95% interval,
// next to the paper's 1.58x, "within noise" when the interval overlaps the baseline's.
#include <nlohmann/json.hpp>
#include <string>

#include "cli/reproduce_util.h"

namespace commlab::cli {

// `summary` is skipreduce_tta's summary.json (runs "baseline" and POLICY-sK), `command` the run
// command for the rows, `ranks` the ring's N, `target` training.target_accuracy as run.
void skipreduce_tta_rows(Report& r, const nlohmann::json& summary, const std::string& command,
                         int ranks, double target);

}  // namespace commlab::cli
