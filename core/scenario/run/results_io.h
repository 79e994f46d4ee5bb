#pragma once
// What a run leaves on disk (docs/cli.md, `run`): summary.json (one object per run), series.csv
// (one row per sample, one column per metric, a `run` column), the scenario as run, and the
// version.
#include <string>
#include <vector>

#include "scenario/runner.h"

namespace commlab {

// CMake's PROJECT_VERSION (the one place the version is written), for --version, summary.json and
// the results folder's VERSION file.
const char* commlab_version();

struct RunResult {
  RunSummary summary;
  std::vector<Sample> samples;
  bool complete = true;  // false when the run was stopped (Ctrl-C) before its last iteration
  // A run repeated over seeds (scenario/run/seed_stats.h): every seed's summary, the first seed's
  // first (it is also `summary`, and `samples` are its samples). Empty: one seed, `summary`.
  std::vector<RunSummary> per_seed;
};

// Column names of series.csv, in order.
const std::vector<std::string>& series_columns();

// summary.json's text for `runs` (summarize_experiment and summary_text,
// scenario/run/experiment_summary.h). `target_accuracy`: each run's training.target_accuracy, in
// `runs` order (time_to_accuracy's "target"); without it (or NaN) "target" is null.
std::string summary_json(const std::string& experiment, const std::vector<RunResult>& runs,
                         const std::vector<double>& target_accuracy);
std::string summary_json(const std::string& experiment, const std::vector<RunResult>& runs);
std::string series_csv(const std::vector<RunResult>& runs);
// The same file a row at a time, for runs that stream their samples (series_csv = header + rows).
std::string series_header();
std::string series_row(const std::string& run, const Sample& s);
// Writes text to path atomically (io/staged_files.h: temp file, fsync, rename); throws
// std::runtime_error naming the path and the reason ("cannot write DIR/summary.json: No space left
// on device").
void write_file(const std::string& path, const std::string& text);
// Test hook for the write-failure tests (tests/cli/results_folder_test.cpp): when the environment
// variable COMMLAB_FAIL_WRITE equals the file name of `path`, throws as a full disk (ENOSPC) would.
void check_simulated_write_failure(const std::string& path);

}  // namespace commlab
