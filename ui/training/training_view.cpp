#include "training_view.h"

#include <QChart>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "run_chart_pages.h"
#include "training_bridge.h"
#include "training_panel.h"

namespace commlab::ui {

namespace {
constexpr int kSideWidth = 340;  // the scenario panel column
constexpr int kRedrawMs = 40;    // DESIGN.md: redraw from a snapshot every ~30-40 ms
}  // namespace

TrainingView::TrainingView(QWidget* parent) : QWidget(parent) {
  panel_ = new TrainingPanel;
  bridge_ = new TrainingBridge(this);
  run_choice_ = new QComboBox;
  run_choice_->setToolTip("The scenario's runs: pick one to edit and run it.");
  run_all_ = new QPushButton("Run all");
  run_all_->setToolTip("Run every run of the scenario in turn, each pinned for comparison.");
  run_ = new QPushButton("Run");
  run_->setToolTip("Start a new run with these settings (the current one is dropped).");
  pause_ = new QPushButton("Pause");
  pause_->setToolTip("Pause the run between iterations, or resume it.");
  step_ = new QPushButton("Step");
  step_->setToolTip("Run exactly one more iteration, then pause.");
  reset_ = new QPushButton("Reset");
  reset_->setToolTip("Stop the run and clear its charts (pinned runs stay).");
  pin_ = new QPushButton("Pin");
  pin_->setToolTip("Keep this run's curves to compare the next runs against (compare mode).");
  x_axis_ = new QComboBox;
  x_axis_->addItems({"iteration", "simulated time"});
  x_axis_->setToolTip("Plot convergence against iterations or against simulated time.");
  auto* choice = new QHBoxLayout;
  choice->addWidget(new QLabel("Run"));
  choice->addWidget(run_choice_, 1);
  choice->addWidget(run_all_);
  auto* buttons = new QGridLayout;
  buttons->addWidget(run_, 0, 0);
  buttons->addWidget(pause_, 0, 1);
  buttons->addWidget(step_, 0, 2);
  buttons->addWidget(reset_, 1, 0);
  buttons->addWidget(pin_, 1, 1);
  buttons->addWidget(x_axis_, 1, 2);
  status_ = new QLabel("Press Run to train with these settings.");
  status_->setObjectName("status");
  status_->setWordWrap(true);
  // A fixed size: a label whose size may change asks its parents to lay out again on every
  // setText, and the status changes ~20 times a second during a run; re-laying out the scenario
  // panel cost up to 50 ms of GUI thread each time (bench/gui/gui_responsiveness).
  status_->setFixedSize(kSideWidth, status_->fontMetrics().lineSpacing() * 6);
  status_->setAlignment(Qt::AlignLeft | Qt::AlignTop);

  auto* scroll = new QScrollArea;
  scroll->setWidget(panel_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* side = new QWidget;
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  side_layout->addLayout(choice);
  side_layout->addWidget(scroll, 1);
  side_layout->addLayout(buttons);
  side_layout->addWidget(status_);
  side->setFixedWidth(kSideWidth);

  charts_ = new RunChartPages;
  auto* layout = new QHBoxLayout(this);
  layout->addWidget(side);
  layout->addWidget(charts_, 1);

  redraw_timer_ = new QTimer(this);
  redraw_timer_->setInterval(kRedrawMs);
  connect(redraw_timer_, &QTimer::timeout, this, [this] {
    drain();
    if (dirty_) redraw();
    if (!bridge_->active()) {
      drain();
      if (dirty_) redraw();
      redraw_timer_->stop();
      update_buttons();
    }
  });
  connect(run_, &QPushButton::clicked, this, [this] { run(); });
  connect(run_all_, &QPushButton::clicked, this, [this] { run_all(); });
  connect(pause_, &QPushButton::clicked, this, &TrainingView::pause_or_resume);
  connect(step_, &QPushButton::clicked, this, &TrainingView::step);
  connect(reset_, &QPushButton::clicked, this, &TrainingView::reset);
  connect(pin_, &QPushButton::clicked, this, &TrainingView::pin);
  connect(x_axis_, &QComboBox::currentIndexChanged, this,
          [this](int i) { charts_->set_by_time(i == 1); });
  connect(run_choice_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) choose_run(i);
  });
  connect(bridge_, &TrainingBridge::failed, this, [this](const QString& message) {
    awaiting_end_ = false;
    queue_.clear();
    panel_->show_problems(message.split('\n'));
    status_->setText(
        "The engine refused or failed the run (the reasons are marked on the "
        "settings); your settings are kept.");
    update_buttons();
  });
  connect(bridge_, &TrainingBridge::finished, this, &TrainingView::finished);
  // A settings change restarts a live run at once.
  connect(panel_, &TrainingPanel::changed, this, [this] {
    if (bridge_->active() && queue_.empty()) run();
  });
  set_runs({panel_->config()});
  update_buttons();
  redraw();
}

TrainingView::~TrainingView() = default;

bool TrainingView::idle() const {
  return !bridge_->active() && !redraw_timer_->isActive() && queue_.empty() && !awaiting_end_;
}

QStringList TrainingView::pinned_names() const {
  QStringList names;
  for (const Pinned& p : pinned_) names << p.name;
  return names;
}

int TrainingView::drawn_points() const {
  QChart* chart = charts_->chart(RunChart::kLossIteration);
  if (samples_.samples().empty() || !chart || chart->series().isEmpty()) return 0;
  return static_cast<int>(qobject_cast<QLineSeries*>(chart->series().back())->count());
}

bool TrainingView::run(int iterations) {
  queue_.clear();
  return start(panel_->config(), iterations);
}

bool TrainingView::start(RunConfig config, int iterations) {
  if (iterations > 0) config.training.iterations = std::min(config.training.iterations, iterations);
  const QStringList problems = panel_->check(config);
  panel_->show_problems(problems);
  if (!problems.isEmpty()) {
    queue_.clear();
    status_->setText("Fix the marked settings to run; nothing was lost.");
    return false;
  }
  samples_.clear();
  ratio_ = -1;
  ++run_counter_;
  run_name_ = QString::fromStdString(config.name);
  if (run_name_.isEmpty() || pinned_names().contains(run_name_))
    run_name_ = QString("run %1").arg(run_counter_) +
                (run_name_.isEmpty() ? QString() : " (" + run_name_ + ")");
  run_iterations_ = config.training.iterations;
  bridge_->start(config);
  awaiting_end_ = true;
  status_->setText("starting " + run_name_ + " (loading the data set)...");
  dirty_ = true;
  redraw_timer_->start();
  update_buttons();
  return true;
}

void TrainingView::set_runs(const std::vector<RunConfig>& runs) {
  runs_ = runs.empty() ? std::vector<RunConfig>{panel_->config()} : runs;
  chosen_ = 0;
  {
    const QSignalBlocker block(run_choice_);
    run_choice_->clear();
    for (const RunConfig& r : runs_) run_choice_->addItem(QString::fromStdString(r.name));
    run_choice_->setCurrentIndex(0);
  }
  panel_->set_config(runs_.front());
  panel_->show_problems({});
  update_buttons();
}

std::vector<RunConfig> TrainingView::runs() const {
  std::vector<RunConfig> out = runs_;
  out[chosen_] = panel_->config();
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
  queue_.assign(all.begin() + 1, all.end());  // start() clears it when a run is refused
  queue_iterations_ = iterations;
  return start(all.front(), iterations);
}

void TrainingView::finished() {
  awaiting_end_ = false;
  if (auto summary = bridge_->summary()) {
    summaries_.push_back(*summary);
    ratio_ = summary->mean_ratio;
  }
  drain();
  redraw();
  update_buttons();
  if (queue_.empty()) return;
  pin();
  RunConfig next = queue_.front();
  queue_.pop_front();
  start(next, queue_iterations_);
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
    if (!run()) return;
    bridge_->pause();  // the session is still being built: the first iteration waits for step()
  }
  bridge_->step();
  redraw_timer_->start();
  update_buttons();
}

void TrainingView::reset() {
  queue_.clear();
  awaiting_end_ = false;  // a dropped run reports nothing
  bridge_->reset();
  samples_.clear();
  dirty_ = true;
  redraw();
  status_->setText("Reset. Press Run to train again.");
  update_buttons();
}

void TrainingView::pin() {
  if (samples_.samples().empty()) return;
  pinned_.push_back(Pinned{run_name_, samples_.samples(), ratio_});
  dirty_ = true;
  redraw();
}

void TrainingView::drain() {
  std::vector<Sample> fresh = bridge_->take_samples();
  if (fresh.empty()) return;
  for (const Sample& sample : fresh) samples_.add(sample);
  dirty_ = true;
}

void TrainingView::redraw() {
  dirty_ = false;
  ++redraw_count_;
  // Pinned runs first (dashed, in the order pinned), the current run last (solid): a run keeps
  // its colour when it is pinned.
  std::vector<RunSeries> series;
  for (const Pinned& p : pinned_)
    series.push_back({p.name.toStdString(), &p.samples, p.ratio, true});
  if (!samples_.samples().empty() || pinned_.empty())
    series.push_back({(run_name_.isEmpty() ? QString("current") : run_name_).toStdString(),
                      &samples_.samples(), ratio_, false});
  charts_->set_runs(std::move(series));

  if (!samples_.samples().empty()) {
    const Sample& last = samples_.samples().back();
    QString acc;
    for (auto it = samples_.samples().rbegin(); it != samples_.samples().rend(); ++it)
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
    status_->setText(QString("%1: iteration %2/%3, simulated %4 s, %5.%6")
                         .arg(run_name_)
                         .arg(last.iteration)
                         .arg(run_iterations_)
                         .arg(last.sim_time_s, 0, 'g', 4)
                         .arg(progress)
                         .arg(queued));
  }
}

void TrainingView::update_buttons() {
  const bool active = bridge_->active();
  pause_->setEnabled(active);
  pause_->setText(active && bridge_->paused() ? "Resume" : "Pause");
  pin_->setEnabled(!samples_.samples().empty());
  run_all_->setEnabled(runs_.size() > 1);
  run_choice_->setEnabled(runs_.size() > 1);
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
  for (const Pinned& p : pinned_) add(p.name, p.samples);
  add(run_name_, samples_.samples());
  return table;
}

}  // namespace commlab::ui
