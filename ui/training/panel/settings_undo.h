#pragma once
// Undo / redo of the Training tab's settings (QUndoStack): each edit of a panel control is one
// command holding the run's settings before and after; consecutive edits of the same setting of
// the same run merge into one (a spin box stepped ten times is one undo). The stack's clean state
// is the saved document (MainWindow marks the title modified when it is not clean).
#include <QUndoCommand>
#include <functional>

#include "scenario/run_config.h"

namespace commlab::ui {

class SettingsCommand : public QUndoCommand {
 public:
  // `apply(run, config)` shows `config` as the settings of the scenario's run `run`. The edit is
  // already on screen when the command is pushed, so the first redo does nothing.
  using Apply = std::function<void(int run, const RunConfig& config)>;
  SettingsCommand(int run, RunConfig before, RunConfig after, Apply apply);
  void undo() override;
  void redo() override;
  int id() const override { return 1; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  int run_;
  RunConfig before_, after_;
  Apply apply_;
  QString key_;  // the changed settings' labels (merge only edits of the same ones)
  bool first_ = true;
};

}  // namespace commlab::ui
