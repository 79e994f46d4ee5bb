#pragma once
// Scenario files for the GUI's File menu: the same JSON the CLI runs. Loading goes through
// load_scenario (every problem as "FILE:JSON.PATH: message"); saving writes the baseline run's
// settings as the base and every run as a merge patch of it (with its "forked_from" when it is a
// live fork), so load(save(x)) gives the same runs.
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

#include "scenario/run_config.h"
#include "scenario/scenario.h"

namespace commlab::ui {

struct LoadedScenario {
  QString name, description;
  std::vector<RunConfig> runs;          // sweeps expanded
  std::vector<ForkedFrom> forked_from;  // one per run (iteration 0: not a fork)
  std::vector<int> colors;              // one per run: its run_color index (-1: the file has none)
  QStringList problems;                 // non-empty: the file was rejected (runs is empty)
};

LoadedScenario load_scenario_file(const QString& path);

// One run as Save writes it: its settings, named as the runs table names it, and where it came
// from when it is a live fork (forked_from.iteration 0: it is not). `parent` is the index of the
// run it forked from among the runs saved with it (-1: none, or a run not saved; then
// forked_from.run names it as it was called).
struct SavedRun {
  RunConfig config;
  ForkedFrom forked_from;
  int parent = -1;
  int color = -1;  // its run_color index (-1: none written; opening the file picks one)
};

// What Save writes and what it had to change to say it in the file's terms.
struct SavePlan {
  std::vector<SavedRun> runs;
  QString note;  // a rename or a move Save made (empty: none), for the status bar
};

// The runs Save writes: the runs table's `rows` in its order, `baseline` the row the table
// compares against, then each of the scenario's runs (`scenario`) that no row has the settings of
// (edits not run yet, runs never started), so nothing on screen or in the file is lost. A file's
// baseline is its run named "baseline", else its first run (docs/scenario.md): when the table's
// baseline is neither, it moves first, and another run named "baseline" is saved as
// "baseline (earlier)". Names are made unique with " (2)", " (3)"; a fork's forked_from.run
// follows its parent's saved name. Every row keeps its colour; a scenario run added after the rows
// keeps its own unless a saved run holds it (or it has none), then takes the smallest colour no
// saved run holds, so no two saved runs share one.
SavePlan plan_save(std::vector<SavedRun> rows, int baseline, const std::vector<SavedRun>& scenario);

// The scenario document: the baseline run's settings (the run named "baseline", else the first;
// its name dropped) as the base, plus "runs", one {"name", "set": patch, "forked_from", "color"}
// per run.
// `runs` must not be empty.
std::string scenario_text(const QString& name, const QString& description,
                          const std::vector<SavedRun>& runs);
// Writes scenario_text to `path`; empty string on success, else what went wrong.
QString save_scenario_file(const QString& path, const QString& name, const QString& description,
                           const std::vector<SavedRun>& runs);

// The samples/ folder: $COMMLAB_SOURCE_DIR/samples, next to or above the executable, or the source
// tree this binary was built from. Empty when none exists.
QString samples_dir();
// samples/*.json, sorted by name (absolute paths).
QStringList preset_files();

}  // namespace commlab::ui
