#pragma once
// The `reproduce` rows of SkipReduce's time-to-accuracy, read from the typed summary's paired
// statistics (ExperimentSummary, whose numbers summary.json holds; scenario/run/tta_stats.h): every
// arm's speedup over ring all-reduce as the geometric mean of per-seed ratios with its paired log-t
// interval and verdict, next to the paper's "up to 1.58x" and the communication-only formula
// 2(N-1)/(2(N-1)-s); the per-iteration gain as measured (simulated time per iteration, baseline
// over arm), the growth in iterations to the target, the paired accuracy change, and how many
// seeds reached the target.
#include <string>
#include <vector>

#include "cli/util/reproduce_util.h"
#include "scenario/run/experiment_summary.h"

namespace commlab::cli {

// `summary`: samples/skipreduce_tta.json's summary (runs "baseline" and
// POLICY-sS[-lrcomp|-unbiased]); `command` the run command of the rows; `ranks` the ring's N.
void skipreduce_tta_rows(Report& r, const ExperimentSummary& summary, const std::string& command,
                         int ranks);

// `summary`: samples/skipreduce_tuned.json's summary (each arm at its tuned learning rate,
// the summary's lr_tuning): every arm against the baseline, then the rate each arm chose with the
// tuning seeds' median times for every grid value.
void skipreduce_tuned_rows(Report& r, const ExperimentSummary& summary, const std::string& command,
                           int ranks);

// `summary`: a proxy-timed sample's summary (samples/skipreduce_vgg19.json: runs timed as
// another model, RunSummary::timed_as): SkipReduce arms (random/naive/selective-sS...) as in
// skipreduce_tta_rows, compression baselines (any other name) with their wire ratio, every row
// labelled with the model the time is of.
void skipreduce_proxy_rows(Report& r, const ExperimentSummary& summary, const std::string& command,
                           int ranks);

// How the speedup depends on the target: for each arm in `arms`, the paired log-t speedup over the
// baseline at every accuracy in `targets`, from the run's series.csv (each seed's smoothed
// crossing, tta_stats.h, recomputed at each target with the smoothing the runs used, from
// `summary`'s first run's TimeToAccuracy::window_iterations). One row per arm.
void skipreduce_target_profile_rows(Report& r, const ExperimentSummary& summary,
                                    const std::string& series_csv,
                                    const std::vector<std::string>& arms,
                                    const std::vector<double>& targets, const std::string& command);

// `summary`: samples/skipreduce_noniid.json's summary (baseline, naive-s4-lrcomp,
// random-s4-lrcomp on label-skewed shards): each arm against the baseline, then random against
// naive directly, paired by seed (speedup and final-accuracy difference).
void skipreduce_noniid_rows(Report& r, const ExperimentSummary& summary, const std::string& command,
                            int ranks);

}  // namespace commlab::cli
