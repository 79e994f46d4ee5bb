#pragma once
// Scenario files for the GUI's File menu: the same JSON the CLI runs. Loading goes through
// load_scenario (every problem as "FILE:JSON.PATH: message"); saving writes the panel's settings as
// the base and every run as a merge patch of it, so load(save(x)) gives the same runs.
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

#include "scenario/run_config.h"

namespace commlab::ui {

struct LoadedScenario {
  QString name, description;
  std::vector<RunConfig> runs;  // sweeps expanded
  QStringList problems;         // non-empty: the file was rejected (runs is empty)
};

LoadedScenario load_scenario_file(const QString& path);

// The scenario document: `base` (its name dropped) plus "runs", one {"name", "set": patch} per
// run. An empty `runs` saves `base` alone as a one-run scenario named `name`.
std::string scenario_text(const QString& name, const QString& description, const RunConfig& base,
                          const std::vector<RunConfig>& runs);
// Writes scenario_text to `path`; empty string on success, else what went wrong.
QString save_scenario_file(const QString& path, const QString& name, const QString& description,
                           const RunConfig& base, const std::vector<RunConfig>& runs);

// The samples/ folder: $COMMLAB_SOURCE_DIR/samples, next to or above the executable, or the source
// tree this binary was built from. Empty when none exists.
QString samples_dir();
// samples/*.json, sorted by name (absolute paths).
QStringList preset_files();

}  // namespace commlab::ui
