#pragma once
// What a run is, in words: the settings that differ from a baseline ("lr 0.08, skip 4"), used for
// run names and the runs list; and whether a configuration is light enough to re-train live on
// every change (TrainingView's Live mode).
#include <QString>
#include <QStringList>
#include <vector>

#include "scenario/run_config.h"
#include "scenario/scenario.h"

namespace commlab::ui {

// One setting that differs: its JSON path ("training.ranks"), short label ("ranks") and both
// values as text; `text` when the value is a string (a spec, a codec name).
struct SettingChange {
  QString path, label, before, after;
  bool text = false;
};
// The settings of `config` that differ from `base` (run names ignored), in the schema's order.
std::vector<SettingChange> setting_changes(const RunConfig& base, const RunConfig& config);

// One "label value" per setting of `config` that differs from `base` (run names ignored), in the
// order of the scenario schema; e.g. {"lr 0.08", "skip 4"}. Labels are short ("lr", "skip",
// "trim", "batch") or the field's last name with spaces ("background load").
QStringList changed_settings(const RunConfig& base, const RunConfig& config);

// What Save writes as the scenario's description: `description` (the file's prose, as loaded)
// unchanged when every run of `saved` equals the same run of `loaded`, else followed by a line
// that lists every changed field so the prose cannot lie about the saved settings: "Edited from
// tiny.json: training.ranks 8 -> 4, cluster.spec 'flat:8' -> 'flat:4'." (with several runs each
// edited run's list starts "run NAME: "). `source` is the file the runs were loaded from; empty
// (nothing loaded) leaves the description as it is.
QString edited_description(const QString& description, const QString& source,
                           const std::vector<RunConfig>& loaded,
                           const std::vector<RunConfig>& saved);

// A run's name: `config.name` when it equals `as_loaded` (the scenario's run it came from), else
// its differences from `baseline` (the scenario's first run), short ("flat:16" for a cluster, a
// codec's name, "skip 4"), as many as fit in kRunNameChars with "+N" for the rest (those edited
// against `as_loaded` taken first), joined by ", " in the schema's order; "baseline" when there
// are none. changed_settings gives the whole list (the runs table's tooltip).
inline constexpr int kRunNameChars = 24;
QString describe_run(const RunConfig& baseline, const RunConfig& as_loaded,
                     const RunConfig& config);

// A live fork's provenance as the runs table says it: "forked from 'lr 0.05' at iteration 86".
QString fork_text(const QString& parent, int iteration);
// A scenario file's forked_from of a run that is trained here from iteration 1 (the GUI cannot
// replay the fork): "saved as a fork of 'lr 0.05' at iteration 86; trained here from iteration 1".
QString saved_fork_text(const ForkedFrom& forked_from);

// Empty when `config` can re-train live (its first points come within a few hundred ms); else the
// reason it needs an explicit Run ("catalog workloads time every message of a large model").
QString live_blocker(const RunConfig& config);

}  // namespace commlab::ui
