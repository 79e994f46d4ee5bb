#include "training_bridge.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "scenario/run/fork.h"
#include "scenario/runner.h"
#include "scenario/scenario.h"

namespace commlab::ui {

struct TrainingBridge::Run {
  std::mutex mutex;
  std::condition_variable wake;
  bool paused = false;
  bool held = false;  // a newer run is being built (TrainingBridge::hold)
  int step_requests = 0;
  bool cancel = false;
  std::vector<Sample> queue;
  std::optional<RunSummary> summary;  // set when the run completed
  std::atomic<int> completed{0};
  std::atomic<bool> ended{false};
  // The engine built this run's session: from then on a live edit may fork it, and an edit holds
  // it until the new run is built. Set by the worker, so a run stepped before the GUI thread
  // heard of the build is still a fork parent.
  std::atomic<bool> built{false};
  // The worker steps the session under step_mutex, so a fork copies it between two iterations.
  std::mutex step_mutex;
  std::unique_ptr<RunSession> session;
  std::atomic<int> forked_at{0};
};

TrainingBridge::TrainingBridge(QObject* parent) : QObject(parent) {}

TrainingBridge::~TrainingBridge() {
  for (auto& [run, thread] : threads_) {
    {
      std::lock_guard lock(run->mutex);
      run->cancel = true;
    }
    run->wake.notify_all();
  }
  for (auto& [run, thread] : threads_) thread.join();
}

void TrainingBridge::start(const RunConfig& config, bool paused, bool fork) {
  const bool running = run_ && run_->built && !run_->ended;
  std::shared_ptr<Run> parent = fork && running ? run_ : nullptr;
  // The running run stays until the new one is built: a refused edit never stops it. It waits
  // meanwhile, so the new run's build and first iteration have the cores.
  if (running) {
    cancel(previous_);
    previous_ = run_;
    hold(previous_, true);
  } else {
    cancel(run_);
  }
  run_.reset();
  // Join the threads of runs that already ended (never blocks: they are past their last step).
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (it->first->ended) {
      it->second.join();
      it = threads_.erase(it);
    } else {
      ++it;
    }
  }
  run_ = std::make_shared<Run>();
  run_->paused = paused;
  threads_.emplace_back(
      run_, std::thread(&TrainingBridge::worker, this, run_, config, std::move(parent)));
}

std::unique_ptr<RunSession> TrainingBridge::fork_or_start(Run& run, const RunConfig& config,
                                                          const std::shared_ptr<Run>& parent) {
  if (parent) {
    std::lock_guard step_lock(parent->step_mutex);  // between two of the parent's iterations
    const RunSession* from = parent->session.get();
    if (from && !from->done() && from->iteration() > 0 &&
        fork_problem(from->config(), config).empty()) {
      auto session = std::make_unique<RunSession>(config, *from);
      run.forked_at = session->iteration();
      return session;
    }
  }
  return std::make_unique<RunSession>(config);
}

void TrainingBridge::worker(std::shared_ptr<Run> run, RunConfig config,
                            std::shared_ptr<Run> parent) {
  // Messages go back as queued calls; the bridge outlives this thread (its destructor joins).
  auto report = [this, run](ConfigProblems error) {
    QMetaObject::invokeMethod(
        this,
        [this, run, error] {
          if (run == previous_ && error.empty()) previous_done_ = true;
          if (run != run_) return;  // a dropped run's news is stale
          if (error.empty()) {
            emit finished();
            return;
          }
          // Refused before it ran: the previous run, still going, is the current one again.
          const bool refused = !run->built;
          const bool restored = refused && previous_;
          if (restored) {
            run_ = std::move(previous_);
            hold(run_, false);
          }
          previous_.reset();
          emit failed(error);
          // The restored run ended while the refused one was being checked: say so now.
          if (restored && previous_done_) emit finished();
          previous_done_ = false;
        },
        Qt::QueuedConnection);
  };
#ifdef __linux__
  // The engine yields to the GUI: this thread and the OpenMP threads it starts (they inherit the
  // nice value) run at nice +5, so on a busy machine the GUI thread is scheduled first and keeps
  // its 50 ms promise (bench/gui/gui_responsiveness). Results do not depend on scheduling.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 5);
#endif
  RunSession* session = nullptr;
  try {
    // The cross-field checks build the cluster, which for a large spec takes longer than the GUI
    // thread may block: they run here, and come back as failed() with one line per field.
    ConfigProblems problems = check_run_config(config);
    if (!problems.empty()) {
      run->ended = true;
      report(std::move(problems));
      return;
    }
    std::unique_ptr<RunSession> made = fork_or_start(*run, config, parent);
    parent.reset();
    {
      std::lock_guard step_lock(run->step_mutex);
      run->session = std::move(made);
      session = run->session.get();
    }
    run->built = true;
    if (run->forked_at > 0) {  // the parent's iterations come first, as if this run made them
      std::lock_guard lock(run->mutex);
      run->queue = session->samples();
      run->completed = run->forked_at.load();
    }
    if (run->forked_at > 0) notify_first_sample(run);
    // Built: the previous run ends now (on the GUI thread, which owns run_ and previous_).
    QMetaObject::invokeMethod(
        this,
        [this, run] {
          if (run != run_) return;
          cancel(previous_);
          previous_.reset();
          previous_done_ = false;
        },
        Qt::QueuedConnection);
  } catch (const std::exception& e) {
    run->ended = true;
    report({problem_of(e)});
    return;
  }
  ConfigProblems error;
  while (!session->done()) {
    {
      std::unique_lock lock(run->mutex);
      run->wake.wait(lock, [&] {
        return run->cancel || (!run->held && (!run->paused || run->step_requests > 0));
      });
      if (run->cancel) break;
      if (run->paused) --run->step_requests;
    }
    try {
      Sample sample;
      {
        std::lock_guard step_lock(run->step_mutex);
        sample = session->step();
      }
      std::lock_guard lock(run->mutex);
      run->queue.push_back(sample);
    } catch (const std::exception& e) {
      error = {problem_of(e)};
      break;
    }
    // The first sample is news at once (Live mode's change -> first point); later ones wait for
    // the view's redraw timer.
    if (++run->completed == 1) notify_first_sample(run);
  }
  bool cancelled;
  {
    std::lock_guard lock(run->mutex);
    cancelled = run->cancel;
    if (error.empty() && session->done()) run->summary = session->summary();
  }
  run->ended = true;
  if (!cancelled) report(error);
}

void TrainingBridge::pause() {
  if (!run_) return;
  std::lock_guard lock(run_->mutex);
  run_->paused = true;
}

void TrainingBridge::resume() {
  if (!run_) return;
  {
    std::lock_guard lock(run_->mutex);
    run_->paused = false;
  }
  run_->wake.notify_all();
}

void TrainingBridge::step() {
  if (!run_) return;
  {
    std::lock_guard lock(run_->mutex);
    run_->paused = true;
    ++run_->step_requests;
  }
  run_->wake.notify_all();
}

void TrainingBridge::hold(const std::shared_ptr<Run>& run, bool held) {
  if (!run) return;
  {
    std::lock_guard lock(run->mutex);
    run->held = held;
  }
  run->wake.notify_all();
}

void TrainingBridge::cancel(const std::shared_ptr<Run>& run) {
  if (!run) return;
  {
    std::lock_guard lock(run->mutex);
    run->cancel = true;
  }
  run->wake.notify_all();
}

void TrainingBridge::reset() {
  cancel(previous_);
  previous_.reset();
  cancel(run_);
  run_.reset();
}

void TrainingBridge::notify_first_sample(const std::shared_ptr<Run>& run) {
  QMetaObject::invokeMethod(
      this,
      [this, run] {
        if (run == run_) emit first_sample();
      },
      Qt::QueuedConnection);
}

int TrainingBridge::forked_at() const {
  return run_ ? run_->forked_at.load() : 0;
}

bool TrainingBridge::pending() const {
  return previous_ != nullptr;
}

bool TrainingBridge::active() const {
  return run_ && !run_->ended;
}

bool TrainingBridge::paused() const {
  if (!run_) return false;
  std::lock_guard lock(run_->mutex);
  return run_->paused;
}

int TrainingBridge::completed() const {
  return run_ ? run_->completed.load() : 0;
}

std::optional<RunSummary> TrainingBridge::summary() const {
  if (!run_) return std::nullopt;
  std::lock_guard lock(run_->mutex);
  return run_->summary;
}

std::vector<Sample> TrainingBridge::take_samples() {
  std::vector<Sample> out;
  if (!run_) return out;
  std::lock_guard lock(run_->mutex);
  out.swap(run_->queue);
  return out;
}

}  // namespace commlab::ui
