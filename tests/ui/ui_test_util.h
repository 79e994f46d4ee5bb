#pragma once
// One offscreen QApplication for the whole test binary, created on first use.
#include <QApplication>
#include <QTest>
#include <functional>
#include <string>

#include "scenario/run_config.h"

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

// Small and fast: 4 ranks learn the spiral data set (MLP 32) over a flat network, 64 rows per
// iteration, 200 evaluation rows.
inline RunConfig spiral_run(const std::string& name, int iterations, int eval_every) {
  RunConfig c;
  c.name = name;
  c.cluster.spec = "flat:4";
  c.workload.dataset = "spiral";
  c.workload.hidden = {32};
  c.training.ranks = 4;
  c.training.iterations = iterations;
  c.training.global_batch = 64;
  c.training.eval_every = eval_every;
  c.training.eval_rows = 200;
  return c;
}

}  // namespace commlab::ui::test
