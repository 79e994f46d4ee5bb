#pragma once
// The `reproduce` rows of SkipReduce's Dirichlet sweep (samples/skipreduce_dirichlet_sweep.json):
// how strong a label skew the naive policy needs before its bias shows, and where it lands (the
// worst class's test accuracy).
#include <string>

#include "cli/util/reproduce_util.h"
#include "scenario/run/experiment_summary.h"

namespace commlab::cli {

// `summary`: the sweep's summary, runs named POLICY-aALPHA or POLICY-iid with POLICY
// baseline, naive or random. Per skew, the baseline's row, then naive and random, each paired by
// seed with the baseline at the same skew: the speedup (paired log-t, or Hodges-Lehmann with a
// Wilcoxon interval when a pair is censored) with pairs used/run and Holm's adjustment over the
// sweep's arms, the final accuracy difference and the worst class's accuracy. Writes the sweep's
// chart (speedup, final and worst-class accuracy against alpha, iid at the right) to `chart_svg`.
void skipreduce_sweep_rows(Report& r, const ExperimentSummary& summary, const std::string& command,
                           const std::string& chart_svg);

}  // namespace commlab::cli
