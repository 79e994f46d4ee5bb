#pragma once
// One offscreen QApplication for the whole test binary, created on first use.
#include <QApplication>
#include <QTest>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "scenario/run_config.h"
#include "scenario/scenario.h"

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

// Waits for a worker thread without running the GUI thread's event loop: the messages workers post
// (a session built, a first sample) stay unread, as while the GUI is busy drawing.
inline bool wait_without_events(const std::function<bool()>& done, int timeout_ms = 20000) {
  for (int waited = 0; waited < timeout_ms && !done(); waited += 10)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
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

// The spiral run named "baseline", evaluated every 5 iterations.
inline RunConfig small_run(int iterations) {
  return spiral_run("baseline", iterations, 5);
}

// A two-run scenario, "baseline" and "skip" (SkipReduce s = 2), on the spiral data set: 40
// iterations, evaluated every 2, to `target` test accuracy; what the seed comparisons run.
inline std::vector<RunConfig> spiral_pair_runs(double target) {
  std::vector<RunConfig> runs = parse_scenario_text(R"({"name": "cmp", "seed": 3,
    "cluster": {"spec": "flat:4,gbps=100"},
    "workload": {"model": "mlp", "hidden": [16], "dataset": "spiral"},
    "training": {"ranks": 4, "iterations": 40, "global_batch": 32, "eval_every": 2,
                 "eval_rows": 0, "target_accuracy": 0.6},
    "runs": [{"name": "baseline"},
             {"name": "skip", "set": {"techniques": {"skipreduce":
                 {"skip": 2, "policy": "random", "min_elements": 0, "lr_compensation": true}}}}]})",
                                                    "cmp.json")
                                    .runs;
  for (RunConfig& r : runs) r.training.target_accuracy = target;
  return runs;
}

}  // namespace commlab::ui::test
