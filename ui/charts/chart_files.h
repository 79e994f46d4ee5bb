#pragma once
// Charts of finished runs as files, for commlab-cli (docs/cli.md, `run`: charts as PNG and SVG).
// This header includes no Qt header, so the CLI can call it without seeing Qt; the implementation
// (chart_files.cpp) draws with the same builders as the GUI's Training tab (run_charts.h).
#include <string>
#include <vector>

#include "scenario/runner.h"
#include "train/trainer.h"

namespace commlab {

struct ChartRun {
  std::string name;
  std::vector<Sample> samples;
  RunSummary summary;
};

// True when this build can draw charts (commlab_charts is linked).
bool charts_available();

// Writes DIR/<chart>.png (2x raster) and DIR/<chart>.svg for every chart that has data for these
// runs (convergence always; codec, SkipReduce and trimming charts only when some run used them).
// Returns the files written, in order. Creates DIR if needed. Without a QApplication it creates an
// offscreen one (kept for the life of the process); call it from the main thread. On failure
// returns what was written so far and sets *error (when not null) to a one-line message.
std::vector<std::string> write_run_charts(const std::vector<ChartRun>& runs, const std::string& dir,
                                          std::string* error = nullptr);

// The file stems write_run_charts may produce, in order (e.g. "loss_iteration", "codec").
std::vector<std::string> run_chart_names();

}  // namespace commlab
