#pragma once
// What a run is, in words: the settings that differ from a baseline ("lr 0.08, skip 4"), used for
// run names and the runs list; and whether a configuration is light enough to re-train live on
// every change (TrainingView's Live mode).
#include <QString>
#include <QStringList>

#include "scenario/run_config.h"

namespace commlab::ui {

// One "label value" per setting of `config` that differs from `base` (run names ignored), in the
// order of the scenario schema; e.g. {"lr 0.08", "skip 4"}. Labels are short ("lr", "skip",
// "trim", "batch") or the field's last name with spaces ("background load").
QStringList changed_settings(const RunConfig& base, const RunConfig& config);

// A run's name: `config.name` when it equals `as_loaded` (the scenario's run it came from), else
// its differences from `baseline` (the scenario's first run) joined by ", " (at most four, then
// "+N more"), or "baseline" when there are none.
QString describe_run(const RunConfig& baseline, const RunConfig& as_loaded,
                     const RunConfig& config);

// Empty when `config` can re-train live (its first points come within a few hundred ms); else the
// reason it needs an explicit Run ("catalog workloads time every message of a large model").
QString live_blocker(const RunConfig& config);

}  // namespace commlab::ui
