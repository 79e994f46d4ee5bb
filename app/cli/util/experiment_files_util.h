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

// Pre-registration: the seeds of a finished result are fixed. When DIR holds a finished result
// (summary.json and no INCOMPLETE marker), every run of `exp` that the result also holds must be
// run over the same seeds; adding seeds to it (or changing them) after looking is refused with
// InvalidInput naming the folder, the run and the field (`seeds`, or --seeds / --seed;
// `seeds_override` > 0 is --seeds, as expand_seeds applies it). A run the result does not hold, an
// unfinished folder or a missing one are not checked.
void check_preregistered_seeds(const std::string& dir, const Experiment& exp, int seeds_override);

// Writes DIR/summary.json, joins DIR/series.csv from the parts the runner streamed into DIR,
// DIR/scenario.json, DIR/VERSION and, with `charts`, DIR/charts/*.png and *.svg. Returns the note
// on charts for the final line (", 4 chart files in charts/").
std::string write_experiment_files(const std::string& dir, const Experiment& exp,
                                   const ExperimentOutcome& outcome, bool charts);

}  // namespace commlab::cli
