#include "settings_undo.h"

#include "run_naming.h"

namespace commlab::ui {

namespace {

// "lr 0.08, skip 4" -> "lr|skip": which settings changed, not to what.
QString labels_of(const QStringList& changes) {
  QStringList labels;
  for (const QString& c : changes) labels << c.section(' ', 0, -2);
  return labels.join('|');
}

}  // namespace

SettingsCommand::SettingsCommand(int run, RunConfig before, RunConfig after, Apply apply)
    : run_(run), before_(std::move(before)), after_(std::move(after)), apply_(std::move(apply)) {
  const QStringList changes = changed_settings(before_, after_);
  key_ = labels_of(changes);
  setText(changes.isEmpty() ? QString("settings") : changes.join(", "));
}

void SettingsCommand::undo() {
  apply_(run_, before_);
}

void SettingsCommand::redo() {
  if (first_) {
    first_ = false;
    return;
  }
  apply_(run_, after_);
}

bool SettingsCommand::mergeWith(const QUndoCommand* other) {
  const auto* o = static_cast<const SettingsCommand*>(other);
  if (o->run_ != run_ || o->key_ != key_ || key_.isEmpty()) return false;
  after_ = o->after_;
  const QStringList changes = changed_settings(before_, after_);
  setText(changes.join(", "));
  if (changes.isEmpty()) setObsolete(true);  // stepped back to where it started
  return true;
}

}  // namespace commlab::ui
