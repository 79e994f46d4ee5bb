#pragma once
// Number fields that answer without Enter: an arrow key or the wheel applies at once (Qt emits
// valueChanged for a step), and typed digits apply after a short pause in the typing, once, as
// one edit ("128" is not 1, 12 and 128); Enter or leaving the field still applies at once.
#include <QAbstractSpinBox>
#include <QLineEdit>
#include <QTimer>

namespace commlab::ui {

inline constexpr int kTypingPauseMs = 300;

inline void apply_after_typing_pause(QAbstractSpinBox* box, int pause_ms = kTypingPauseMs) {
  box->setKeyboardTracking(false);
  auto* timer = new QTimer(box);
  timer->setSingleShot(true);
  timer->setInterval(pause_ms);
  // interpretText() emits valueChanged when the typed text is a new value; text that is not a
  // value yet (empty, "0.") waits for more typing, Enter or leaving the field.
  QObject::connect(timer, &QTimer::timeout, box, [box] {
    if (box->hasAcceptableInput()) box->interpretText();
  });
  // The editor's textEdited: typing only (a QDoubleSpinBox without keyboard tracking emits no
  // textChanged while typing).
  if (auto* editor = box->findChild<QLineEdit*>())
    QObject::connect(editor, &QLineEdit::textEdited, timer, [timer] { timer->start(); });
}

}  // namespace commlab::ui
