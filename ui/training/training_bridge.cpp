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

#include "scenario/runner.h"
#include "scenario/scenario.h"

namespace commlab::ui {

struct TrainingBridge::Run {
  std::mutex mutex;
  std::condition_variable wake;
  bool paused = false;
  int step_requests = 0;
  bool cancel = false;
  std::vector<Sample> queue;
  std::optional<RunSummary> summary;  // set when the run completed
  std::atomic<int> completed{0};
  std::atomic<bool> ended{false};
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

void TrainingBridge::start(const RunConfig& config, bool paused) {
  reset();
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
  threads_.emplace_back(run_, std::thread(&TrainingBridge::worker, this, run_, config));
}

void TrainingBridge::worker(std::shared_ptr<Run> run, RunConfig config) {
#ifdef __linux__
  // The engine yields to the GUI: this thread and the OpenMP threads it starts (they inherit the
  // nice value) run at nice +5, so on a busy machine the GUI thread is scheduled first and keeps
  // its 50 ms promise (bench/gui/gui_responsiveness). Results do not depend on scheduling.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 5);
#endif
  // Messages go back as queued calls; the bridge outlives this thread (its destructor joins).
  auto report = [this, run](QString error) {
    QMetaObject::invokeMethod(
        this,
        [this, run, error] {
          if (run != run_) return;  // a dropped run's news is stale
          if (error.isEmpty())
            emit finished();
          else
            emit failed(error);
        },
        Qt::QueuedConnection);
  };
  std::unique_ptr<RunSession> session;
  try {
    // The cross-field checks build the cluster, which for a large spec takes longer than the GUI
    // thread may block: they run here, and come back as failed() with one line per field.
    std::vector<std::string> problems = check_run_config(config);
    if (!problems.empty()) {
      QStringList lines;
      for (const std::string& p : problems) lines << QString::fromStdString(p);
      run->ended = true;
      report(lines.join('\n'));
      return;
    }
    session = std::make_unique<RunSession>(config);
  } catch (const std::exception& e) {
    run->ended = true;
    report(QString::fromUtf8(e.what()));
    return;
  }
  QString error;
  while (!session->done()) {
    {
      std::unique_lock lock(run->mutex);
      run->wake.wait(lock, [&] { return run->cancel || !run->paused || run->step_requests > 0; });
      if (run->cancel) break;
      if (run->paused) --run->step_requests;
    }
    try {
      Sample sample = session->step();
      std::lock_guard lock(run->mutex);
      run->queue.push_back(sample);
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
      break;
    }
    // The first sample is news at once (Live mode's change -> first point); later ones wait for
    // the view's redraw timer.
    if (++run->completed == 1)
      QMetaObject::invokeMethod(
          this,
          [this, run] {
            if (run == run_) emit first_sample();
          },
          Qt::QueuedConnection);
  }
  bool cancelled;
  {
    std::lock_guard lock(run->mutex);
    cancelled = run->cancel;
    if (error.isEmpty() && session->done()) run->summary = session->summary();
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

void TrainingBridge::reset() {
  if (!run_) return;
  {
    std::lock_guard lock(run_->mutex);
    run_->cancel = true;
  }
  run_->wake.notify_all();
  run_.reset();
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
