// TrainingView's runs: the current run, the kept ones, the live ghost; what the charts, the runs
// list, the progress bar and the CSV export show of them.
#include <QChart>
#include <QLabel>
#include <QLineSeries>
#include <QPainter>
#include <QProgressBar>
#include <QTimer>
#include <algorithm>
#include <cmath>

#include "fork_figures.h"
#include "run_chart_pages.h"
#include "run_naming.h"
#include "runs_list.h"
#include "training_bridge.h"
#include "training_view.h"
#include "views/run_figures.h"

namespace commlab::ui {

QString TrainingView::display_name(const Run& r) const {
  // Runs of another scenario say which, so two "baseline"s never look like one.
  return r.scenario.isEmpty() || r.scenario == scenario_ ? r.name : r.scenario + ": " + r.name;
}

void TrainingView::promote() {
  if (!starting_) return;
  if (starting_live_ && !samples_.samples().empty()) {
    // The run just replaced stays, faint, until Reset or Clear all ("before": what it was).
    QString name = "before: " + display_name(current_);
    const auto same = std::count_if(ghosts_.begin(), ghosts_.end(), [&](const Ghost& g) {
      return g.name == name || g.name.startsWith(name + " (");
    });
    if (same > 0) name += QString(" (%1)").arg(same + 1);
    ghosts_.push_back({samples_.samples(), name});
    if (ghosts_.size() > kMaxGhosts) ghosts_.erase(ghosts_.begin());
  }
  current_ = std::move(*starting_);
  starting_.reset();
  // A live fork continued the run that was running when it started (start() named it).
  current_.forked_at = current_.parent != 0 ? bridge_->forked_at() : 0;
  if (current_.forked_at == 0) {
    current_.parent = 0;
    current_.parent_name.clear();
  }
  samples_.clear();
  announce_first_ = true;
  dirty_ = true;
}

void TrainingView::drain() {
  std::vector<Sample> fresh = bridge_->take_samples();
  if (fresh.empty()) return;
  if (starting_) promote();
  for (const Sample& sample : fresh) samples_.add(sample);
  dirty_ = true;
}

void TrainingView::reset() {
  queue_.clear();
  awaiting_end_ = false;  // a dropped run reports nothing
  live_pending_ = false;
  live_timer_->stop();
  bridge_->reset();
  starting_.reset();
  samples_.clear();
  current_ = Run{};
  ghosts_.clear();
  batch_total_ = 0;
  dirty_ = true;
  redraw();
  status_->setText("Reset. Change a setting (Live) or press Run to train again.");
  update_buttons();
  update_progress();
}

void TrainingView::pin() {
  if (samples_.samples().empty() || current_.id == 0) return;
  Run kept = current_;
  kept.samples = samples_.samples();
  if (bridge_->active() && !starting_) {
    // Still running: a snapshot is kept, the run goes on in a colour of its own.
    kept.name += QString(" (at iteration %1)").arg(samples_.samples().back().iteration);
    kept.id = ++run_counter_;
    current_.color = take_color(std::string());
  } else {
    current_ = Run{};
    samples_.clear();
  }
  kept_.push_back(std::move(kept));
  dirty_ = true;
  redraw();
  update_buttons();
}

QStringList TrainingView::pinned_names() const {
  QStringList names;
  for (const Run& r : kept_) names << display_name(r);
  return names;
}

std::vector<int> TrainingView::run_ids() const {
  std::vector<int> ids;
  for (const Run& r : kept_) ids.push_back(r.id);
  if (current_.id != 0 && !samples_.samples().empty()) ids.push_back(current_.id);
  return ids;
}

void TrainingView::set_run_visible(int id, bool visible) {
  for (Run& r : kept_)
    if (r.id == id) r.visible = visible;
  if (current_.id == id) current_.visible = visible;
  dirty_ = true;
  redraw();
}

void TrainingView::rename_run(int id, const QString& name) {
  if (name.trimmed().isEmpty()) return;
  for (Run& r : kept_)
    if (r.id == id) r.name = name.trimmed(), r.named_by_user = true;
  if (current_.id == id) current_.name = name.trimmed(), current_.named_by_user = true;
  dirty_ = true;
  redraw();
}

void TrainingView::set_seed_results(const ExperimentSummary& summary,
                                    const std::vector<RunConfig>& compared) {
  seed_times_ = seed_times_from_summary(summary, compared);
  update_rows();
}

void TrainingView::set_highlighted_run(int id) {
  if (id == highlighted_id_) return;
  highlighted_id_ = id;
  dirty_ = true;
  redraw();
}

void TrainingView::set_baseline_run(int id) {
  baseline_id_ = id;
  update_rows();
}

const std::vector<Sample>& TrainingView::ghost() const {
  static const std::vector<Sample> none;
  return ghosts_.empty() ? none : ghosts_.back().samples;
}

void TrainingView::remember_removal() {
  // The runs as they are, the current one as a kept curve (a removed run cannot go on training,
  // but its curves come back).
  std::vector<Run> snapshot = kept_;
  if (current_.id != 0 && !samples_.samples().empty()) {
    Run r = current_;
    r.samples = samples_.samples();
    snapshot.push_back(std::move(r));
  }
  removed_.push_back({std::move(snapshot), ghosts_});
  if (removed_.size() > 20) removed_.erase(removed_.begin());
}

void TrainingView::remove_run(int id) {
  remember_removal();
  if (current_.id == id) {
    reset();
  } else {
    std::erase_if(kept_, [id](const Run& r) { return r.id == id; });
    dirty_ = true;
    redraw();
  }
  status_->setText("Removed. Undo remove brings it back.");
}

void TrainingView::clear_runs() {
  remember_removal();
  kept_.clear();
  reset();
  status_->setText("Cleared. Undo remove brings every run back.");
}

bool TrainingView::can_undo_remove() const {
  return !removed_.empty();
}

void TrainingView::undo_remove() {
  if (removed_.empty()) return;
  Removal removal = std::move(removed_.back());
  removed_.pop_back();
  std::vector<Run>& back = removal.runs;
  const size_t restored = back.size();
  // The earlier curves come back too, before any left since.
  for (Ghost& g : ghosts_) removal.ghosts.push_back(std::move(g));
  ghosts_ = std::move(removal.ghosts);
  if (ghosts_.size() > kMaxGhosts) ghosts_.erase(ghosts_.begin(), ghosts_.end() - kMaxGhosts);
  // Runs kept since the removal stay, after the restored ones; the running run stays current.
  for (Run& r : kept_)
    if (std::none_of(back.begin(), back.end(), [&](const Run& b) { return b.id == r.id; }))
      back.push_back(std::move(r));
  std::erase_if(back, [this](const Run& r) { return current_.id != 0 && r.id == current_.id; });
  kept_ = std::move(back);
  dirty_ = true;
  redraw();
  update_buttons();
  // The line said "Removed." or "Cleared."; it says what the undo did instead.
  status_->setText(restored == 0   ? QString("Undo remove: the earlier curves are back.")
                   : restored == 1 ? QString("Undo remove: the run is back.")
                                   : QString("Undo remove: %1 runs are back.").arg(restored));
}

int TrainingView::drawn_points() const {
  QChart* chart = charts_->chart(RunChart::kLossIteration);
  if (samples_.samples().empty() || !current_.visible || !chart || chart->series().isEmpty())
    return 0;
  return static_cast<int>(qobject_cast<QLineSeries*>(chart->series().back())->count());
}

QStringList TrainingView::drawn_names() {
  QStringList names;
  if (QChart* chart = charts_->chart(RunChart::kLossIteration))
    for (QAbstractSeries* s : chart->series()) names << s->name();
  return names;
}

std::vector<const TrainingView::Run*> TrainingView::table() const {
  std::vector<const Run*> rows;
  for (const Run& r : kept_) rows.push_back(&r);
  if (current_.id != 0 && !samples_.samples().empty()) rows.push_back(&current_);
  return rows;
}

size_t TrainingView::baseline_row(const std::vector<const Run*>& rows) const {
  size_t base = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i]->name == "baseline") base = i;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i]->id == baseline_id_) base = i;
  return base;
}

std::vector<SavedRun> TrainingView::table_runs(int* baseline) const {
  const std::vector<const Run*> rows = table();
  if (baseline) *baseline = rows.empty() ? 0 : static_cast<int>(baseline_row(rows));
  std::vector<SavedRun> out;
  for (const Run* r : rows) {
    SavedRun s;
    s.config = r->config;
    s.config.name = r->name.toStdString();
    s.color = r->color;
    if (r->forked_at > 0) {
      s.forked_from = {r->parent_name.toStdString(), r->forked_at};
      for (size_t p = 0; p < rows.size(); ++p)
        if (rows[p]->id == r->parent) s.parent = static_cast<int>(p);
    }
    out.push_back(std::move(s));
  }
  return out;
}

void TrainingView::update_rows() {
  const std::vector<const Run*> runs = table();
  std::vector<RunRow> rows;
  std::vector<views::RunFigures> figures;
  std::vector<const SeedTimes*> seeds;  // null: no comparison of these settings
  for (const Run* r : runs) {
    const bool current = r == &current_;
    const std::vector<Sample>& samples = current ? samples_.samples() : r->samples;
    RunRow row;
    row.id = r->id;
    row.name = r->name;
    row.scenario = r->scenario;
    row.changes = r->changes;
    row.color = run_color(r->color);
    row.visible = r->visible;
    row.current = current;
    views::RunFigures f = views::run_figures(samples, r->target, r->tta_window);
    if (r->forked_at > 0) {
      // A fork's samples begin with its parent's iterations: per iteration, its own only.
      row.fork = fork_text(r->parent_name, r->forked_at);
      row.forked = true;
      const OwnIterations own = own_iterations(samples, r->forked_at);
      if (own.separated) {
        f.s_per_iteration = own.s_per_iteration;
        f.wire_bytes_per_iteration = own.wire_bytes_per_iteration;
      } else {
        row.mixed = true;
      }
    } else {
      row.fork = r->saved_fork;
    }
    rows.push_back(std::move(row));
    figures.push_back(f);
    const auto found = seed_times_.find(r->settings);
    seeds.push_back(found == seed_times_.end() ? nullptr : &found->second);
  }
  // The speedup's baseline: the run the user chose, else the row named "baseline", else the first.
  const size_t base = runs.empty() ? 0 : baseline_row(runs);
  if (!rows.empty()) rows[base].baseline = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    const views::RunFigures& f = figures[i];
    RunRow& row = rows[i];
    row.accuracy = f.final_accuracy < 0 ? "-" : QString::number(f.final_accuracy, 'f', 3);
    // Mixed: the fork point's sample is gone (thinned), so the parent's iterations are averaged in.
    const QString mixed = row.mixed ? " mixed" : "";
    row.per_iteration = QString::number(f.s_per_iteration * 1e3, 'g', 4) + mixed;
    const bool running = row.current && bridge_->active();
    row.tta = f.tta_s >= 0 ? QString::number(f.tta_s * 1e3, 'g', 4)
              : running    ? QString("not yet")
                           : QString("not reached");
    const double speedup = views::tta_speedup(figures[base], f);
    row.speedup = speedup < 0 ? "-" : QString::number(speedup, 'f', 2) + "x";
    row.wire = QString::number(f.wire_bytes_per_iteration / 1e6, 'g', 4) + mixed;
    row.tta_seeds = tta_over_seeds(seeds[i]);
    row.speedup_seeds = speedup_over_seeds(seeds[base], seeds[i], i == base);
  }
  runs_list_->set_rows(rows);
  runs_list_->set_undo_available(!removed_.empty());
}

void TrainingView::redraw() {
  dirty_ = false;
  ++redraw_count_;
  const std::vector<Sample>& current = samples_.samples();
  // Kept runs first (dashed, in the order kept), the earlier live curves, the current run last
  // (solid): a run keeps its colour when it is kept.
  std::vector<RunSeries> series;
  for (const Run& r : kept_)
    if (r.visible) {
      series.push_back({display_name(r).toStdString(), &r.samples, r.ratio, true, r.color});
      series.back().highlighted = r.id == highlighted_id_;
    }
  if (current_.visible)
    for (const Ghost& g : ghosts_)
      series.push_back({g.name.toStdString(), &g.samples, -1, false, current_.color, true});
  if ((!current.empty() && current_.visible) || series.empty()) {
    series.push_back(
        {(current_.id == 0 ? QString("current") : display_name(current_)).toStdString(), &current,
         current_.ratio, false, current_.color});
    series.back().highlighted = current_.id != 0 && current_.id == highlighted_id_;
  }
  // Decided on these runs, applied once the pages hold them (switching the axis redraws the pages,
  // and the runs they held may be gone: a removed run's samples).
  const bool time_differs = runs_differ_in_time(series);
  charts_->set_runs(std::move(series));
  follow_x_axis(time_differs);
  update_rows();
  update_progress();
  if (announce_first_ && !current.empty()) {
    announce_first_ = false;
    emit first_points_drawn();
  }

  if (!current.empty()) {
    const Sample& last = current.back();
    QString acc;
    for (auto it = current.rbegin(); it != current.rend(); ++it)
      if (it->evaluated()) {
        acc = QString(", test accuracy %1 (iteration %2)")
                  .arg(it->test_accuracy, 0, 'f', 3)
                  .arg(it->iteration);
        break;
      }
    QString queued = queue_.empty() ? QString() : QString(" (%1 more queued)").arg(queue_.size());
    // A catalog workload has no loss (time plane only): its news is the iteration time split.
    const QString progress =
        std::isnan(last.train_loss)
            ? QString("iteration time %1 s (compute %2 s, exposed communication %3 s)")
                  .arg(last.compute_time_s + last.comm_time_s + last.codec_time_s, 0, 'g', 4)
                  .arg(last.compute_time_s, 0, 'g', 4)
                  .arg(last.comm_time_s, 0, 'g', 4)
            : QString("loss %1%2").arg(last.train_loss, 0, 'f', 4).arg(acc);
    const int forked = bridge_->forked_at();
    status_->setText(
        QString("%1%2: iteration %3/%4, simulated %5 s, %6.%7")
            .arg(current_.name)
            .arg(forked > 0 ? QString(" (forked at iteration %1)").arg(forked) : QString())
            .arg(last.iteration)
            .arg(run_iterations_)
            .arg(last.sim_time_s, 0, 'g', 4)
            .arg(progress)
            .arg(queued));
  }
}

QString TrainingView::progress_text() const {
  return progress_->format();
}

void TrainingView::update_progress() {
  if (batch_total_ <= 0) {
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(awaiting_end_ ? "starting..." : "idle");
    return;
  }
  const int done = std::min(batch_total_, batch_done_ + (starting_ ? 0 : bridge_->completed()));
  progress_->setRange(0, batch_total_);
  progress_->setValue(done);
  QString text = QString("%1/%2 iterations").arg(done).arg(batch_total_);
  const double elapsed_s = batch_clock_.isValid() ? batch_clock_.elapsed() / 1e3 : 0;
  // Paused or stepping, the wall clock says nothing about the iterations left.
  if (bridge_->paused()) {
    text += ", paused";
  } else if (done > 0 && elapsed_s > 0.5) {
    const double left_s = elapsed_s / done * (batch_total_ - done);
    text += left_s < 60 ? QString(", about %1 s left").arg(std::ceil(left_s))
                        : QString(", about %1 min left").arg(std::ceil(left_s / 60));
  }
  progress_->setFormat(text);
}

QSize TrainingView::export_size() const {
  return charts_->currentWidget()->size();
}

void TrainingView::export_render(QPainter& painter) const {
  render_widget(charts_->currentWidget(), painter);
}

CsvTable TrainingView::export_data() const {
  CsvTable table{{"run", "iteration", "sim_time_s", "train_loss", "test_accuracy", "compute_time_s",
                  "comm_time_s", "codec_time_s", "bytes_on_wire", "skipped_contributions",
                  "trimmed_packets", "nmse"},
                 {}};
  auto add = [&](const QString& name, const std::vector<Sample>& samples) {
    for (const Sample& s : samples)
      table.rows.push_back(
          {name, QString::number(s.iteration), QString::number(s.sim_time_s, 'g', 10),
           QString::number(s.train_loss, 'g', 8),
           s.evaluated() ? QString::number(s.test_accuracy, 'g', 6) : QString(),
           QString::number(s.compute_time_s, 'g', 8), QString::number(s.comm_time_s, 'g', 8),
           QString::number(s.codec_time_s, 'g', 8), QString::number(s.bytes_on_wire),
           QString::number(s.skipped_contributions), QString::number(s.trimmed_packets),
           QString::number(s.nmse, 'g', 6)});
  };
  for (const Run& r : kept_) add(display_name(r), r.samples);
  if (current_.id != 0) add(display_name(current_), samples_.samples());
  return table;
}

}  // namespace commlab::ui
