#pragma once
// What an experiment's results say, as typed values: per run its first seed's summary, its values
// over the seeds with 95% intervals, its time to the target accuracy with censoring, the paired
// comparison with the baseline (Holm-adjusted across the arms), and the runs that computed the
// same series. The runner returns it (ExperimentOutcome::summary); the GUI's Compare tab, `run`
// and `reproduce` read it directly, and summary.json is its serialization (summary_document), so
// every reader sees the same numbers.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "scenario/run/class_accuracy.h"
#include "scenario/run/equivalent_runs.h"
#include "scenario/run/lr_tuning.h"
#include "scenario/run/seed_stats.h"

namespace commlab {

// An "mpi" replica's measured wall-clock split across the processes and the simulator's
// prediction of the same run (summed over the samples). Wall-clock values are NaN in a
// reproducible run (written null).
struct MpiMeasure {
  int processes = 0;
  MpiRunStats mean, max;
  uint64_t mismatched = 0;
  uint64_t bytes_sent = 0;  // by all processes' collectives, on the wire as sent
  double predicted_compute_s = 0, predicted_comm_s = 0, predicted_codec_s = 0;
  double predicted_comm_total_s = 0, predicted_codec_total_s = 0;
};

// A run forked from the baseline (RunnerOptions::fork_at): its first `iteration` iterations are
// the baseline's.
struct ForkOrigin {
  std::string run;
  int64_t iteration = 0;
};

struct RunStats {
  RunSummary summary;                     // the first seed's
  bool complete = true;                   // every seed ran to its last iteration
  SeedStats seeds;                        // every seed's values against the baseline's
  TtaStats tta;                           // time to target; the comparison with the baseline
  std::optional<MpiMeasure> mpi;          // execution "mpi": the measured split
  std::optional<ForkOrigin> forked_from;  // a fork of the baseline
  // Per-class test accuracy (scenario/run/class_accuracy.h); none for catalog and language-model
  // runs.
  std::optional<ClassAccuracy> class_accuracy;
  const std::string& name() const { return summary.name; }
};

struct ExperimentSummary {
  std::string experiment;
  std::string version;
  std::vector<RunStats> runs;  // in scenario order
  size_t baseline = 0;         // index of the baseline run (baseline_run)
  // Runs whose first seed computed the same series as an earlier run (equivalent_runs).
  std::vector<EquivalentRun> equivalent_runs;
  // The learning-rate tuning before the runs, when any run was tuned (lr_tuning.h).
  std::optional<std::vector<RunTuning>> lr_tuning;
};

// The summary of `runs` (grouped over seeds, in scenario order): seed statistics and time to
// accuracy against the baseline run, Holm's adjustment across the distinct arms (an arm equal to
// an earlier one takes that one's p_holm and is counted once), the equivalent runs.
// `target_accuracy`: each run's training.target_accuracy (NaN or missing: unknown).
ExperimentSummary summarize_experiment(const std::string& experiment,
                                       const std::vector<RunResult>& runs,
                                       const std::vector<double>& target_accuracy);

// summary.json's document (docs/cli.md, `run`): {"experiment", "version", "runs": [one object per
// run: the first seed's values, "seeds" (seed_stats_json), the time-to-accuracy keys
// (tta_stats_json), "class_accuracy" (class_accuracy_json), "timed_as", "mpi" and "forked_from"
// when they apply], "equivalent_runs" when any, "lr_tuning" when tuned}.
nlohmann::json summary_document(const ExperimentSummary& summary);
// The file's text: the document indented by 2, with a final newline.
std::string summary_text(const ExperimentSummary& summary);

// summary.json's "mpi" object of a run.
nlohmann::json mpi_json(const MpiMeasure& m, double sim_time_s);

// "arm X equals arm Y on seed S (identical series)".
std::string equivalence_text(const ExperimentSummary& summary, const EquivalentRun& same);

}  // namespace commlab
