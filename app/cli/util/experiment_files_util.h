#pragma once
// What `run` and `reproduce` both do around the core experiment runner
// (scenario/run/experiment_runner.h): the command-line overrides of a loaded scenario, and the
// results folder's files (docs/cli.md, `run`): summary.json, series.csv, scenario.json, VERSION and
// charts/.
#include <cstdint>
#include <string>

#include "scenario/run/experiment_runner.h"

namespace commlab::cli {

// --seed (>= 0), --seeds (> 0) and --exec ("", simulated or mpi; else InvalidInput) applied to the
// runs and to the scenario as run (scenario.json).
// The largest seed a scenario file can hold exactly (2^53, the schema's bound).
using commlab::kMaxSeed;

// The value of `--exec` (run and collective): the scenario's `execution` words (simulated, mpi),
// or sim, the word `collective --exec` took first (docs/cli.md). InvalidInput otherwise.
ExecutionMode parse_exec_flag(const std::string& value);

void apply_run_overrides(Experiment& exp, int64_t seed, int seeds, const std::string& exec);

// Writes DIR/summary.json, joins DIR/series.csv from the parts the runner streamed into DIR,
// DIR/scenario.json, DIR/VERSION and, with `charts`, DIR/charts/*.png and *.svg. Returns the note
// on charts for the final line (", 4 chart files in charts/").
std::string write_experiment_files(const std::string& dir, const Experiment& exp,
                                   const ExperimentOutcome& outcome, bool charts);

}  // namespace commlab::cli
