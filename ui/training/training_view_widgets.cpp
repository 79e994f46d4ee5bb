// TrainingView's widgets: the scenario column (run choice, run controls, description, the
// settings panel, progress and status), the charts over the runs table with its remembered
// divider, the redraw and live timers, and the signals between them and the bridge. What the
// view does with runs is training_view.cpp and training_runs.cpp.
#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

#include "run_chart_pages.h"
#include "runs_list.h"
#include "training_bridge.h"
#include "training_panel.h"
#include "training_view.h"

namespace commlab::ui {

namespace {
constexpr int kSideWidth = 340;  // the scenario panel column
constexpr int kRedrawMs = 40;    // redraw from a snapshot every ~30-40 ms
constexpr int kLiveMs = 250;     // Live mode: at most one restart per this many ms
constexpr char kSplitterKey[] = "training/runs_splitter";  // charts / runs table divider
}  // namespace

TrainingView::TrainingView(QWidget* parent) : QWidget(parent) {
  panel_ = new TrainingPanel;
  bridge_ = new TrainingBridge(this);
  undo_ = new QUndoStack(this);
  auto* layout = new QHBoxLayout(this);
  layout->addWidget(make_side_panel());
  layout->addWidget(make_charts_and_runs(), 1);
  make_timers();
  connect_controls();
  set_runs({panel_->config()});
  update_buttons();
  redraw();
}

// The run choice with Run all, and the grid of run controls.
void TrainingView::make_run_controls(QHBoxLayout*& choice, QGridLayout*& buttons) {
  run_choice_ = new QComboBox;
  run_choice_->setToolTip("The scenario's runs: pick one to edit and run it.");
  run_all_ = new QPushButton("Run all");
  run_all_->setToolTip("Run every run of the scenario in turn, each kept on the charts.");
  run_ = new QPushButton("Run");
  run_->setToolTip(
      "Start a new run with these settings (it replaces the current run once its first "
      "iteration is in; kept runs stay).");
  pause_ = new QPushButton("Pause");
  pause_->setToolTip("Pause the run between iterations, or resume it.");
  step_ = new QPushButton("Step");
  step_->setToolTip("Run exactly one more iteration, then pause.");
  reset_ = new QPushButton("Reset");
  reset_->setToolTip("Stop the run and clear its charts (kept runs stay).");
  pin_ = new QPushButton("Pin");
  pin_->setToolTip("Keep this run's curves to compare the next runs against.");
  live_ = new QCheckBox("Live");
  live_->setChecked(true);
  live_->setToolTip(
      "Re-train at once when a setting changes; the previous curve stays faint until the new "
      "one passes it. Heavy settings (catalog, packet backend with background) wait for Run.");
  fork_ = new QCheckBox("Live edits fork");
  fork_->setObjectName("fork");
  fork_->setToolTip(
      "On: a live change continues the running training from its current iteration with the new "
      "setting (a branch off the curve; commlab-cli run --fork-at K gives the same numbers). "
      "Changes a fork cannot make (ranks, batch, model, data, seed...) restart. Off: every "
      "change restarts from iteration 1.");
  x_axis_ = new QComboBox;
  x_axis_->addItems({"iteration", "simulated time"});
  x_axis_->setObjectName("x_axis");
  x_axis_->setToolTip(
      "Plot convergence against iterations or against simulated time. Until you choose, it is "
      "simulated time when the runs on the charts differ in time per iteration (a codec, "
      "SkipReduce, another cluster), else iterations.");
  choice = new QHBoxLayout;
  choice->addWidget(new QLabel("Run"));
  choice->addWidget(run_choice_, 1);
  choice->addWidget(run_all_);
  buttons = new QGridLayout;
  buttons->addWidget(run_, 0, 0);
  buttons->addWidget(pause_, 0, 1);
  buttons->addWidget(step_, 0, 2);
  buttons->addWidget(live_, 0, 3);
  buttons->addWidget(reset_, 1, 0);
  buttons->addWidget(pin_, 1, 1);
  buttons->addWidget(x_axis_, 1, 2, 1, 2);
  buttons->addWidget(fork_, 2, 0, 1, 4);
}

// The scenario column: description, run choice, problems, the scrolled settings, the controls,
// progress and status.
QWidget* TrainingView::make_side_panel() {
  QHBoxLayout* choice = nullptr;
  QGridLayout* buttons = nullptr;
  make_run_controls(choice, buttons);
  progress_ = new QProgressBar;
  progress_->setToolTip("Iterations done in this run (or in Run all) and the time left.");
  progress_->setFixedWidth(kSideWidth);  // a fixed size never re-lays out the panel
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setFormat("idle");
  status_ = new QLabel("Change a setting (Live) or press Run to train with these settings.");
  status_->setObjectName("status");
  status_->setWordWrap(true);
  // A fixed size: a label whose size may change asks its parents to lay out again on every
  // setText, and the status changes ~20 times a second during a run; re-laying out the scenario
  // panel cost up to 50 ms of GUI thread each time (bench/gui/gui_responsiveness).
  status_->setFixedSize(kSideWidth, status_->fontMetrics().lineSpacing() * 6);
  status_->setAlignment(Qt::AlignLeft | Qt::AlignTop);

  description_ = new QLabel;
  description_->setObjectName("description");
  description_->setWordWrap(true);
  description_->setStyleSheet("color: #444; font-style: italic;");
  description_->hide();

  auto* scroll = new QScrollArea;
  scroll->setObjectName("settings_scroll");
  scroll->setWidget(panel_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* side = new QWidget;
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  side_layout->addWidget(description_);
  side_layout->addLayout(choice);
  // Refusals stay in sight, above the scrolled settings (the marked control scrolls into view).
  side_layout->addWidget(panel_->problems_label());
  side_layout->addWidget(scroll, 1);
  side_layout->addLayout(buttons);
  side_layout->addWidget(progress_);
  side_layout->addWidget(status_);
  side->setFixedWidth(kSideWidth);

  return side;
}

QSplitter* TrainingView::make_charts_and_runs() {
  charts_ = new RunChartPages;
  runs_list_ = new RunsList;
  // Charts above, the runs table below with 3 parts in 7: at 1280x800 the charts stop at their
  // minimum height and the table shows 10 or more rows (a dozen runs is a lecture's comparison). A
  // dragged divider is remembered (QSettings kSplitterKey) and restored in the next session.
  auto* split = new QSplitter(Qt::Vertical);
  split->setObjectName("runs_splitter");
  split->addWidget(charts_);
  split->addWidget(runs_list_);
  split->setChildrenCollapsible(false);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 3);
  split->setSizes({400, 300});
  if (const QByteArray state = QSettings().value(kSplitterKey).toByteArray(); !state.isEmpty())
    split->restoreState(state);
  connect(split, &QSplitter::splitterMoved, this,
          [split] { QSettings().setValue(kSplitterKey, split->saveState()); });
  return split;
}

void TrainingView::make_timers() {
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
  live_timer_ = new QTimer(this);
  live_timer_->setSingleShot(true);
  live_timer_->setInterval(kLiveMs);
  connect(live_timer_, &QTimer::timeout, this, [this] {
    if (!live_pending_) return;
    live_pending_ = false;
    live_change();
  });
}

void TrainingView::connect_controls() {
  connect(run_, &QPushButton::clicked, this, [this] { run(); });
  connect(run_all_, &QPushButton::clicked, this, [this] { run_all(); });
  connect(pause_, &QPushButton::clicked, this, &TrainingView::pause_or_resume);
  connect(step_, &QPushButton::clicked, this, &TrainingView::step);
  connect(reset_, &QPushButton::clicked, this, &TrainingView::reset);
  connect(pin_, &QPushButton::clicked, this, &TrainingView::pin);
  connect(live_, &QCheckBox::toggled, this, [this] { update_buttons(); });
  connect(x_axis_, &QComboBox::currentIndexChanged, this,
          [this](int i) { charts_->set_by_time(i == 1); });
  connect(x_axis_, &QComboBox::activated, this, [this] { x_axis_chosen_ = true; });
  connect(run_choice_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) choose_run(i);
  });
  connect(runs_list_, &RunsList::visibility_changed, this, &TrainingView::set_run_visible);
  connect(runs_list_, &RunsList::renamed, this, &TrainingView::rename_run);
  connect(runs_list_, &RunsList::remove_requested, this, &TrainingView::remove_run);
  connect(runs_list_, &RunsList::clear_requested, this, &TrainingView::clear_runs);
  connect(runs_list_, &RunsList::undo_requested, this, &TrainingView::undo_remove);
  connect(runs_list_, &RunsList::baseline_requested, this, &TrainingView::set_baseline_run);
  connect(runs_list_, &RunsList::highlight_requested, this, &TrainingView::set_highlighted_run);
  connect(bridge_, &TrainingBridge::failed, this, &TrainingView::refused);
  connect(bridge_, &TrainingBridge::finished, this, &TrainingView::finished);
  connect(bridge_, &TrainingBridge::first_sample, this, [this] {
    drain();
    if (dirty_) redraw();
  });
  connect(panel_, &TrainingPanel::changed, this, &TrainingView::settings_edited);
  connect(panel_, &TrainingPanel::replaced, this, [this] { last_config_ = panel_->config(); });
}

void TrainingView::set_description(const QString& text) {
  // At most four lines above the settings; the whole text in the tooltip.
  const QFontMetrics fm(description_->font());
  QString shown = text.simplified();
  const int room = 4 * (kSideWidth - 8);
  if (fm.horizontalAdvance(shown) > room) shown = fm.elidedText(shown, Qt::ElideRight, room);
  description_->setText(shown);
  description_->setToolTip(text);
  description_->setVisible(!text.isEmpty());
}

QString TrainingView::description() const {
  return description_->toolTip();
}

}  // namespace commlab::ui
