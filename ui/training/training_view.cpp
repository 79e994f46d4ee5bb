#include "training_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QUndoStack>
#include <algorithm>
#include <tuple>

#include "axis_default.h"
#include "run_chart_pages.h"
#include "run_naming.h"
#include "runs_list.h"
#include "scenario/schema.h"
#include "settings_undo.h"
#include "training_bridge.h"
#include "training_panel.h"

namespace commlab::ui {

TrainingView::~TrainingView() = default;

bool TrainingView::idle() const {
  return !bridge_->active() && !redraw_timer_->isActive() && queue_.empty() && !awaiting_end_ &&
         !live_pending_;
}

void TrainingView::set_live(bool live) {
  live_->setChecked(live);
}

bool TrainingView::live() const {
  return live_->isChecked();
}

QString TrainingView::live_blocker_text() const {
  return live_blocker(panel_->config());
}

void TrainingView::remember_batch() {
  if (bridge_->active() && !bridge_->pending())  // what a refusal of the next run returns to
    before_start_ = {run_iterations_, batch_total_, batch_done_, batch_clock_};
}

bool TrainingView::run(int iterations) {
  remember_batch();
  queue_.clear();
  batch_total_ = 0;
  return start(panel_->config(), iterations, false);
}

bool TrainingView::start(RunConfig config, int iterations, bool from_run_all) {
  const RunConfig uncapped = config;  // named as set, not as capped (--iterations)
  if (iterations > 0) config.training.iterations = std::min(config.training.iterations, iterations);
  const ConfigProblems problems = panel_->check(config);
  panel_->show_problems(problems);
  if (!problems.empty()) {
    queue_.clear();
    status_->setText("Fix the marked settings to run; nothing was lost.");
    return false;
  }
  Run next;
  next.id = ++run_counter_;
  // Named against the scenario's run it came from: Run all's by name, Run's the chosen one.
  const RunConfig* as_loaded = &loaded_[std::min<size_t>(chosen_, loaded_.size() - 1)];
  if (from_run_all)
    for (const RunConfig& l : loaded_)
      if (l.name == config.name) as_loaded = &l;
  next.name = describe_run(loaded_.front(), *as_loaded, uncapped);
  next.changes = changed_settings(loaded_.front(), uncapped).join(", ");
  next.target = config.training.target_accuracy;
  next.tta_window = config.training.tta_window;
  next.settings = settings_key(uncapped);
  next.config = uncapped;
  next.scenario = scenario_;
  // A run of the file that was saved as a fork trains here from iteration 1: its row says so.
  for (size_t i = 0; i < loaded_.size(); ++i)
    if (loaded_forks_[i].iteration > 0 && to_json(loaded_[i]) == to_json(uncapped))
      next.saved_fork = saved_fork_text(loaded_forks_[i]);
  next.from_run_all = from_run_all;
  // The run the bridge is running now, which a live edit may fork: the one still starting (its
  // first samples not yet shown) or the current one. Its samples so far are taken first, so it is
  // normally the current run; promote() keeps this provenance only if the bridge did fork.
  drain();
  const Run& running = starting_ ? *starting_ : current_;
  next.parent = running.id;
  next.parent_name = display_name(running);
  // A live restart or a new Run of the current run keeps its colour; the old curve ghosts.
  if (from_run_all)
    next.color = take_color(next.settings);
  else if (starting_ && !starting_->from_run_all)
    next.color = starting_->color;
  else
    next.color = current_.id != 0 ? current_.color : take_color(next.settings);
  starting_ = next;
  starting_live_ = !from_run_all;
  run_iterations_ = config.training.iterations;
  if (batch_total_ == 0) {
    batch_total_ = run_iterations_;
    batch_done_ = 0;
    batch_clock_.start();
  }
  bridge_->start(config, start_paused_, live_fork_request_ && fork_->isChecked());
  awaiting_end_ = true;
  status_->setText("starting " + next.name + " (building the cluster and loading the data)...");
  redraw_timer_->start();
  update_buttons();
  update_progress();
  return true;
}

void TrainingView::refused(const ConfigProblems& problems) {
  // Refused: the run never started, so every result stays as it was, and a run that was going
  // on goes on (the bridge kept it).
  starting_.reset();
  queue_.clear();
  const bool going_on = bridge_->active();
  awaiting_end_ = going_on;
  if (going_on)
    std::tie(run_iterations_, batch_total_, batch_done_, batch_clock_) = before_start_;
  else
    batch_total_ = 0;
  panel_->show_problems(problems);
  status_->setText(going_on ? "The engine refused the new settings (marked above); the running "
                              "run goes on and your settings are kept."
                            : "The engine refused or failed the run (the reasons are marked on "
                              "the settings); your settings and every result are kept.");
  update_buttons();
  update_progress();
}

void TrainingView::set_runs(const std::vector<RunConfig>& runs, const QString& scenario,
                            const std::vector<ForkedFrom>& forked_from,
                            const std::vector<int>& colors) {
  runs_ = runs.empty() ? std::vector<RunConfig>{panel_->config()} : runs;
  loaded_ = runs_;
  loaded_forks_ = forked_from;
  loaded_forks_.resize(runs_.size());
  loaded_colors_ = colors;
  loaded_colors_.resize(runs_.size(), -1);
  seed_times_.clear();  // another scenario's comparison says nothing of these runs
  scenario_ = scenario.isEmpty() ? QString::fromStdString(runs_.front().name) : scenario;
  chosen_ = 0;
  {
    const QSignalBlocker block(run_choice_);
    run_choice_->clear();
    for (size_t i = 0; i < runs_.size(); ++i) {
      run_choice_->addItem(QString::fromStdString(runs_[i].name));
      if (loaded_forks_[i].iteration > 0)
        run_choice_->setItemData(static_cast<int>(i), saved_fork_text(loaded_forks_[i]),
                                 Qt::ToolTipRole);
    }
    run_choice_->setCurrentIndex(0);
  }
  panel_->set_config(runs_.front());
  panel_->show_problems({});
  undo_->clear();
  update_buttons();
  update_rows();
}

std::vector<RunConfig> TrainingView::runs() const {
  std::vector<RunConfig> out = runs_;
  out[chosen_] = panel_->config();
  return out;
}

std::vector<SavedRun> TrainingView::scenario_runs() const {
  std::vector<SavedRun> out;
  const std::vector<RunConfig> all = runs();
  for (size_t i = 0; i < all.size(); ++i) {
    out.push_back({all[i], loaded_forks_[i], -1, loaded_color(i)});
    // An edited run is no longer the run the file said was forked.
    if (to_json(all[i]) != to_json(loaded_[i])) out.back().forked_from = {};
  }
  return out;
}

int TrainingView::chosen_run() const {
  return chosen_;
}

void TrainingView::choose_run(int index) {
  if (index < 0 || index >= static_cast<int>(runs_.size()) || index == chosen_) return;
  runs_[chosen_] = panel_->config();  // keep the edits of the run we leave
  chosen_ = index;
  {
    const QSignalBlocker block(run_choice_);
    run_choice_->setCurrentIndex(index);
  }
  panel_->set_config(runs_[index]);
  panel_->show_problems({});
}

bool TrainingView::run_all(int iterations) {
  const std::vector<RunConfig> all = runs();
  remember_batch();
  queue_.assign(all.begin() + 1, all.end());  // start() clears it when a run is refused
  queue_iterations_ = iterations;
  batch_total_ = 0;
  for (const RunConfig& r : all)
    batch_total_ +=
        iterations > 0 ? std::min(r.training.iterations, iterations) : r.training.iterations;
  batch_done_ = 0;
  batch_clock_.start();
  return start(all.front(), iterations, true);
}

void TrainingView::finished() {
  awaiting_end_ = false;
  if (starting_) promote();
  if (auto summary = bridge_->summary()) {
    summaries_.push_back(*summary);
    current_.ratio = summary->mean_ratio;
  }
  drain();
  // The status names the run's last iteration and the accuracy of its last evaluation before a
  // Run all run is kept (keeping it clears the current run, and the status would stay as the
  // last redraw during the run left it: "199/200" with the accuracy of iteration 150).
  redraw();
  batch_done_ += run_iterations_;
  // Run all's results are kept, so a later Run or a live change never takes one away.
  if (current_.from_run_all) pin();
  redraw();
  if (queue_.empty()) {
    batch_total_ = 0;
  } else {
    RunConfig next = queue_.front();
    queue_.pop_front();
    start(next, queue_iterations_, true);
  }
  update_buttons();
  update_progress();
}

void TrainingView::pause_or_resume() {
  if (bridge_->paused())
    bridge_->resume();
  else
    bridge_->pause();
  update_buttons();
}

void TrainingView::step() {
  if (!bridge_->active()) {
    // Started paused, so the first iteration waits for the step below (pausing after the start
    // raced the worker: it could run an iteration of its own first).
    start_paused_ = true;
    const bool started = run();
    start_paused_ = false;
    if (!started) return;
  }
  bridge_->step();
  redraw_timer_->start();
  update_buttons();
}

void TrainingView::settings_edited() {
  const RunConfig now = panel_->config();
  if (to_json(now) == to_json(last_config_)) return;  // e.g. editing finished without an edit
  undo_->push(new SettingsCommand(chosen_, last_config_, now,
                                  [this](int run, const RunConfig& c) { apply_undo(run, c); }));
  last_config_ = now;
  if (!live_->isChecked()) return;
  // Throttled: the first change restarts at once, changes inside the window wait for its end.
  if (live_timer_->isActive()) {
    live_pending_ = true;
    return;
  }
  live_change();
}

void TrainingView::live_change() {
  if (!live_->isChecked()) return;
  if (!queue_.empty()) {
    status_->setText("Run all is in progress; press Run afterwards to train the new settings.");
    return;
  }
  const QString blocker = live_blocker_text();
  if (!blocker.isEmpty()) {
    status_->setText("Live re-training is off for these settings: " + blocker +
                     ". Press Run to train them.");
    update_buttons();
    return;
  }
  live_timer_->start();
  live_fork_request_ = true;  // this change may fork the running run (the Fork box decides)
  run();
  live_fork_request_ = false;
}

void TrainingView::apply_undo(int run, const RunConfig& config) {
  if (run != chosen_) choose_run(run);
  panel_->set_config(config);  // emits replaced(): last_config_ follows
  panel_->show_problems(panel_->check(config));
  if (live_->isChecked()) {
    if (live_timer_->isActive())
      live_pending_ = true;
    else
      live_change();
  }
}

bool TrainingView::runs_differ_in_time(const std::vector<RunSeries>& series) {
  std::vector<const std::vector<Sample>*> shown;
  for (const RunSeries& s : series) shown.push_back(s.samples);
  return time_per_iteration_differs(shown);
}

void TrainingView::follow_x_axis(bool time_differs) {
  if (x_axis_chosen_) return;  // the user's choice stands
  // Changes the chart pages through the combo's currentIndexChanged; only a choice in the combo
  // (activated) counts as the user's.
  const int by_time = time_differs ? 1 : 0;
  if (x_axis_->currentIndex() != by_time) x_axis_->setCurrentIndex(by_time);
}

void TrainingView::update_buttons() {
  const bool active = bridge_->active();
  pause_->setEnabled(active);
  pause_->setText(active && bridge_->paused() ? "Resume" : "Pause");
  pin_->setEnabled(!samples_.samples().empty());
  run_all_->setEnabled(runs_.size() > 1);
  run_choice_->setEnabled(runs_.size() > 1);
  const QString blocker = live_blocker_text();
  live_->setToolTip(blocker.isEmpty()
                        ? QString("Re-train at once when a setting changes; the previous curve "
                                  "stays faint until the new one passes it.")
                        : "Live re-training waits for Run with these settings: " + blocker + ".");
}

}  // namespace commlab::ui
