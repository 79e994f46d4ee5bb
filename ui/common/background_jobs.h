#pragma once
// Work a page computes off the GUI thread (a topology picture, a teaching trace, a throughput
// sweep, a workload replay). Each page owns its jobs: destroying the page waits for them, so no
// job runs on into the process's exit, where the engine's static tables it reads are being
// destroyed. Only the latest job's result reaches the GUI thread (an older one is stale), and only
// while its page lives; an engine error arrives as text, never as an exception escaping into a
// worker thread (which would terminate).
#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>
#include <exception>
#include <optional>
#include <utility>

namespace commlab::ui {

// What a job hands back: its value, or why there is none.
template <class T>
struct JobOutcome {
  std::optional<T> value;
  QString error;
};

class BackgroundJobs {
 public:
  BackgroundJobs() = default;
  BackgroundJobs(const BackgroundJobs&) = delete;
  BackgroundJobs& operator=(const BackgroundJobs&) = delete;
  ~BackgroundJobs() { pool_.waitForDone(); }

  // No job started and not yet delivered (or dropped as stale).
  bool idle() const { return pending_ == 0; }

  // Runs `compute()` on a worker, then `deliver(*owner, outcome)` on the GUI thread if `owner`
  // still lives and no job was started after this one. Both are copied into the job; `compute`
  // must not touch `owner`. `owner` holds this object, so it lives while `owner` does.
  template <class Owner, class Compute, class Deliver>
  void start(Owner* owner, Compute compute, Deliver deliver) {
    using Value = decltype(compute());
    const int generation = ++generation_;
    ++pending_;
    QPointer<Owner> self(owner);
    pool_.start([this, self, generation, compute, deliver] {
      JobOutcome<Value> outcome;
      try {
        outcome.value = compute();
      } catch (const std::exception& e) {
        outcome.error = QString::fromUtf8(e.what());
      }
      QMetaObject::invokeMethod(qApp, [this, self, generation, deliver, outcome] {
        if (!self) return;  // the page, and this object with it, is gone
        --pending_;
        if (generation == generation_) deliver(*self, outcome);
      });
    });
  }

  // Blocks until every started job has finished (its result may still be on its way).
  void wait() { pool_.waitForDone(); }

 private:
  int pending_ = 0;     // GUI thread only
  int generation_ = 0;  // of the latest job started
  QThreadPool pool_;
};

}  // namespace commlab::ui
