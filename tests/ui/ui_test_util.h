#pragma once
// One offscreen QApplication for the whole test binary, created on first use.
#include <QApplication>
#include <QTest>
#include <functional>

namespace commlab::ui::test {

inline QApplication& app() {
  static int argc = 1;
  static char name[] = "commlab_ui_test";
  static char* argv[] = {name, nullptr};
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static QApplication* instance = new QApplication(argc, argv);
  return *instance;
}

// Runs the event loop until `done` holds (results come back from worker threads as events).
inline bool wait_for(const std::function<bool()>& done, int timeout_ms = 20000) {
  app();
  return QTest::qWaitFor(done, timeout_ms);
}

}  // namespace commlab::ui::test
