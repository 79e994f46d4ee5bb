#pragma once
// Engine bridge of the Training tab (docs/architecture.md): a worker thread builds a
// RunSession and calls step() one iteration at a time, queueing the Samples; the GUI takes them
// from its redraw timer, never per sample. Pause, step and reset are cooperative: the worker looks
// at them between iterations, and reset never waits for it (the old run winds down on its own).
#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "scenario/config_problem.h"
#include "scenario/run_config.h"
#include "scenario/runner.h"
#include "train/trainer.h"

namespace commlab::ui {

class TrainingBridge : public QObject {
  Q_OBJECT
 public:
  explicit TrainingBridge(QObject* parent = nullptr);
  ~TrainingBridge() override;  // cancels every run and joins its thread

  // Starts a fresh run. The current one stays until the engine accepts the new one (its checks
  // pass and its session is built): a refused run leaves it current, as if never started. It is
  // held between two iterations meanwhile, so the new run's build and first iteration (what a
  // live change waits for) do not share the cores with it; a refusal lets it go on.
  // `paused`: wait for resume() or step(). `fork`: when the current run is still going and the
  // new settings may fork from it (scenario/run/fork.h), the new run continues its training from
  // the iteration it has reached (its samples so far come first in take_samples()); otherwise,
  // or when the fork is refused, the new run starts from the beginning.
  void start(const RunConfig& config, bool paused = false, bool fork = false);
  // The iteration the current run forked from its predecessor at (0: it started afresh).
  int forked_at() const;
  // A started run awaits the engine's verdict while the previous one still runs.
  bool pending() const;
  void pause();
  void resume();
  void step();          // one iteration, then paused
  void reset();         // drop the current run
  bool active() const;  // a run exists and has not ended
  bool paused() const;
  int completed() const;  // iterations done by the current run
  // Samples of the current run that arrived since the last call.
  std::vector<Sample> take_samples();
  // The engine's summary of the current run once it has done all its iterations (the numbers
  // commlab-cli writes to summary.json), else nothing.
  std::optional<RunSummary> summary() const;

 signals:
  // The engine refused the configuration (each problem with the field it concerns) or the run
  // failed (a problem without a field).
  void failed(const commlab::ConfigProblems& problems);
  void finished();      // the current run did all its iterations
  void first_sample();  // the current run's first sample is queued

 private:
  struct Run;
  void worker(std::shared_ptr<Run> run, RunConfig config, std::shared_ptr<Run> parent);
  static std::unique_ptr<RunSession> fork_or_start(Run& run, const RunConfig& config,
                                                   const std::shared_ptr<Run>& parent);
  static void cancel(const std::shared_ptr<Run>& run);
  void notify_first_sample(const std::shared_ptr<Run>& run);  // from a worker: queued to the GUI
  // Holds `run` between two iterations (true) or lets it go on (false).
  static void hold(const std::shared_ptr<Run>& run, bool held);

  std::shared_ptr<Run> run_;
  std::shared_ptr<Run> previous_;  // held until run_ is built (then cancelled) or refused
  bool previous_done_ = false;     // previous_ did all its iterations meanwhile
  std::vector<std::pair<std::shared_ptr<Run>, std::thread>> threads_;
};

}  // namespace commlab::ui
