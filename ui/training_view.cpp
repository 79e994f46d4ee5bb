#include "training_view.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "scenario/scenario.h"
#include "training_bridge.h"
#include "training_panel.h"

namespace commlab::ui {

namespace {

constexpr int kRedrawMs = 40;  // DESIGN.md: redraw from a snapshot every ~30-40 ms

QChartView* make_chart(const QString& title, const QString& y_title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignBottom);
  auto* x = new QValueAxis;
  auto* y = new QValueAxis;
  y->setTitleText(y_title);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  chart->setMargins(QMargins(4, 4, 4, 4));
  auto* view = new QChartView(chart);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumSize(320, 220);
  return view;
}

// A fresh chart per redraw (as the busbw view does): the legend of a live chart whose series were
// removed and re-added stays empty in Qt 6.4.
QChart* renew_chart(QChartView* view) {
  QChart* old = view->chart();
  auto* chart = new QChart;
  chart->setTitle(old->title());
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(old->margins());
  auto* x = new QValueAxis;
  auto* y = new QValueAxis;
  y->setTitleText(old->axes(Qt::Vertical).front()->titleText());
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  view->setChart(chart);
  delete old;
  return chart;
}

QColor pinned_color(int i) {
  static const QColor colors[] = {QColor(0x88, 0x88, 0x88), QColor(0xe1, 0x57, 0x59),
                                  QColor(0x59, 0xa1, 0x4f), QColor(0xb0, 0x7a, 0xa1)};
  return colors[i % 4];
}

}  // namespace

TrainingView::TrainingView(QWidget* parent) : QWidget(parent) {
  panel_ = new TrainingPanel;
  bridge_ = new TrainingBridge(this);
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
  x_axis_->setToolTip("Plot against iterations or against simulated wall-clock time.");
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

  auto* scroll = new QScrollArea;
  scroll->setWidget(panel_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* side = new QWidget;
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  side_layout->addWidget(scroll, 1);
  side_layout->addLayout(buttons);
  side_layout->addWidget(status_);
  side->setFixedWidth(330);

  loss_ = make_chart("Training loss", "loss");
  accuracy_ = make_chart("Test accuracy", "accuracy");
  split_ = make_chart(
      "Iteration time: compute (green), exposed communication (orange), codec (purple)", "ms");
  charts_ = new QWidget;
  auto* grid = new QGridLayout(charts_);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(loss_, 0, 0);
  grid->addWidget(accuracy_, 0, 1);
  grid->addWidget(split_, 1, 0, 1, 2);
  grid->setRowStretch(0, 3);  // convergence charts carry legends: give them the larger row
  grid->setRowStretch(1, 2);
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
  connect(pause_, &QPushButton::clicked, this, &TrainingView::pause_or_resume);
  connect(step_, &QPushButton::clicked, this, &TrainingView::step);
  connect(reset_, &QPushButton::clicked, this, &TrainingView::reset);
  connect(pin_, &QPushButton::clicked, this, &TrainingView::pin);
  connect(x_axis_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(bridge_, &TrainingBridge::failed, this, [this](const QString& message) {
    panel_->show_problems(message.split('\n'));
    status_->setText("The run failed; your settings are kept.");
    update_buttons();
  });
  connect(bridge_, &TrainingBridge::finished, this, [this] { update_buttons(); });
  // A settings change restarts a live run at once.
  connect(panel_, &TrainingPanel::changed, this, [this] {
    if (bridge_->active()) run();
  });
  update_buttons();
  redraw();
}

TrainingView::~TrainingView() = default;

bool TrainingView::idle() const {
  return !bridge_->active() && !redraw_timer_->isActive();
}

int TrainingView::drawn_points() const {
  const auto series = loss_->chart()->series();
  if (series.isEmpty()) return 0;
  return static_cast<int>(qobject_cast<QLineSeries*>(series.front())->count());
}

bool TrainingView::run(int iterations) {
  RunConfig config = panel_->config();
  if (iterations > 0) config.training.iterations = std::min(config.training.iterations, iterations);
  QStringList problems;
  for (const std::string& p : check_run_config(config)) problems << QString::fromStdString(p);
  panel_->show_problems(problems);
  if (!problems.isEmpty()) {
    status_->setText("Fix the marked settings to run; nothing was lost.");
    return false;
  }
  samples_.clear();
  run_name_ = QString("run %1").arg(++run_counter_);
  bridge_->start(config);
  status_->setText("starting (loading the data set)...");
  dirty_ = true;
  redraw_timer_->start();
  update_buttons();
  return true;
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
  bridge_->reset();
  samples_.clear();
  dirty_ = true;
  redraw();
  status_->setText("Reset. Press Run to train again.");
  update_buttons();
}

void TrainingView::pin() {
  if (samples_.empty()) return;
  pinned_.push_back(Pinned{run_name_ + " (pinned)", samples_});
  dirty_ = true;
  redraw();
}

void TrainingView::drain() {
  std::vector<Sample> fresh = bridge_->take_samples();
  if (fresh.empty()) return;
  samples_.insert(samples_.end(), fresh.begin(), fresh.end());
  dirty_ = true;
}

void TrainingView::redraw() {
  dirty_ = false;
  const bool by_time = x_axis_->currentIndex() == 1;
  auto x_of = [by_time](const Sample& s) {
    return by_time ? s.sim_time_s : static_cast<double>(s.iteration);
  };
  const QString x_title = by_time ? "simulated time (s)" : "iteration";
  struct Curve {
    QString name;
    const std::vector<Sample>* samples;
    QPen pen;
  };
  std::vector<Curve> curves{{run_name_.isEmpty() ? "current" : run_name_, &samples_,
                             QPen(QColor(0x4e, 0x79, 0xa7), 2.2)}};
  for (size_t i = 0; i < pinned_.size(); ++i)
    curves.push_back({pinned_[i].name, &pinned_[i].samples,
                      QPen(pinned_color(static_cast<int>(i)), 1.6, Qt::DashLine)});

  auto fill = [&](QChartView* view, auto value, auto keep, bool zero_floor) {
    QChart* chart = renew_chart(view);
    auto* x = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).front());
    auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).front());
    double x_hi = 1e-9, y_lo = zero_floor ? 0 : 1e300, y_hi = 1e-9;
    for (const Curve& c : curves) {
      auto* line = new QLineSeries;
      line->setName(c.name);
      QList<QPointF> points;
      for (const Sample& s : *c.samples)
        if (keep(s)) {
          points.append({x_of(s), value(s)});
          x_hi = std::max(x_hi, x_of(s));
          y_hi = std::max(y_hi, value(s));
          y_lo = std::min(y_lo, value(s));
        }
      line->replace(points);
      chart->addSeries(line);
      line->attachAxis(x);
      line->attachAxis(y);
      line->setPen(c.pen);
    }
    x->setTitleText(x_title);
    x->setLabelFormat("%g");
    x->setTickCount(5);
    x->setRange(0, x_hi);
    y->setRange(std::min(y_lo, y_hi), y_hi * 1.05);
    x->applyNiceNumbers();
    y->applyNiceNumbers();
  };
  fill(
      loss_, [](const Sample& s) { return s.train_loss; }, [](const Sample&) { return true; },
      true);
  fill(
      accuracy_, [](const Sample& s) { return s.test_accuracy; },
      [](const Sample& s) { return s.evaluated(); }, false);

  // Time split of the current run only: three curves in milliseconds.
  QChart* chart = renew_chart(split_);
  auto* x = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).front());
  auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).front());
  const std::pair<const char*, double Sample::*> parts[] = {
      {"compute", &Sample::compute_time_s},
      {"exposed communication", &Sample::comm_time_s},
      {"codec", &Sample::codec_time_s}};
  const QColor part_colors[] = {QColor(0x59, 0xa1, 0x4f), QColor(0xf2, 0x8e, 0x2b),
                                QColor(0xb0, 0x7a, 0xa1)};
  double top = 1e-6, x_hi = 1e-9;
  for (int k = 0; k < 3; ++k) {
    auto* line = new QLineSeries;
    line->setName(parts[k].first);
    QList<QPointF> points;
    for (const Sample& s : samples_) {
      points.append({x_of(s), s.*(parts[k].second) * 1e3});
      top = std::max(top, s.*(parts[k].second) * 1e3);
      x_hi = std::max(x_hi, x_of(s));
    }
    line->replace(points);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    line->setPen(QPen(part_colors[k], 2));
  }
  x->setTitleText(x_title);
  x->setLabelFormat("%g");
  x->setRange(0, x_hi);
  y->setRange(0, top * 1.1);
  chart->legend()->setVisible(false);  // the title names the colours
  x->applyNiceNumbers();
  y->applyNiceNumbers();

  if (!samples_.empty()) {
    const Sample& last = samples_.back();
    QString acc;
    for (auto it = samples_.rbegin(); it != samples_.rend(); ++it)
      if (it->evaluated()) {
        acc = QString(", test accuracy %1 (iteration %2)")
                  .arg(it->test_accuracy, 0, 'f', 3)
                  .arg(it->iteration);
        break;
      }
    status_->setText(QString("%1: iteration %2/%3, simulated %4 s, loss %5%6.")
                         .arg(run_name_)
                         .arg(last.iteration)
                         .arg(panel_->config().training.iterations)
                         .arg(last.sim_time_s, 0, 'g', 4)
                         .arg(last.train_loss, 0, 'f', 4)
                         .arg(acc));
  }
}

void TrainingView::update_buttons() {
  const bool active = bridge_->active();
  pause_->setEnabled(active);
  pause_->setText(active && bridge_->paused() ? "Resume" : "Pause");
  pin_->setEnabled(!samples_.empty());
}

QSize TrainingView::export_size() const {
  return charts_->size();
}

void TrainingView::export_render(QPainter& painter) const {
  render_widget(charts_, painter);
}

CsvTable TrainingView::export_data() const {
  CsvTable table{{"run", "iteration", "sim_time_s", "train_loss", "test_accuracy", "compute_time_s",
                  "comm_time_s", "codec_time_s", "bytes_on_wire"},
                 {}};
  auto add = [&](const QString& name, const std::vector<Sample>& samples) {
    for (const Sample& s : samples)
      table.rows.push_back(
          {name, QString::number(s.iteration), QString::number(s.sim_time_s, 'g', 10),
           QString::number(s.train_loss, 'g', 8),
           s.evaluated() ? QString::number(s.test_accuracy, 'g', 6) : QString(),
           QString::number(s.compute_time_s, 'g', 8), QString::number(s.comm_time_s, 'g', 8),
           QString::number(s.codec_time_s, 'g', 8), QString::number(s.bytes_on_wire)});
  };
  for (const Pinned& p : pinned_) add(p.name, p.samples);
  add(run_name_, samples_);
  return table;
}

}  // namespace commlab::ui
