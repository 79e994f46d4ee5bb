#include "compare_view.h"

#include <QAbstractButton>
#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>
#include <mutex>
#include <thread>

#include "chart_hover.h"
#include "compare_figures.h"
#include "run_charts.h"
#include "scenario/run/experiment_runner.h"

namespace commlab::ui {

// The worker's state, shared with the GUI thread: the cancel flag and progress are atomics, the
// evaluated samples of every replica are kept under the mutex, the outcome is read after `done`.
struct CompareView::Job {
  std::atomic<bool> cancel{false};
  std::atomic<bool> done{false};
  std::atomic<int64_t> total{0}, iterations{0};
  std::atomic<bool> tuning{false};  // the learning-rate tuning phase (training.lr_grid) runs
  std::mutex mutex;
  std::vector<std::vector<Sample>> evaluated;  // per replica, evaluated samples only
  std::vector<std::string> replica_run;        // per replica, its run's name (from its samples)
  std::vector<char> finished;                  // per replica: it ran all its iterations
  std::atomic<int> finished_count{0};
  ExperimentOutcome outcome;
  std::string error;
  std::thread thread;
};

namespace {

void run_job(const std::shared_ptr<CompareView::Job>& job, Experiment exp, int seeds) {
  try {
    RunnerOptions options;
    options.seeds = seeds;
    options.cancel = &job->cancel;
    RunnerCallbacks callbacks;
    callbacks.on_start = [&](int64_t total) {
      job->tuning.store(false);
      job->iterations.store(0);
      job->total.store(total);
    };
    // Runs with training.lr_grid are tuned first (scenario/run/lr_tuning.h): the same counter.
    callbacks.on_tuning_start = [&](int64_t total) {
      job->tuning.store(true);
      job->total.store(total);
    };
    callbacks.on_tuning_sample = [&](const std::string&) { job->iterations.fetch_add(1); };
    callbacks.on_sample = [&](int replica, const std::string& name, const Sample& s) {
      job->iterations.fetch_add(1);
      if (!s.evaluated()) return;
      std::lock_guard<std::mutex> lock(job->mutex);
      if (job->evaluated.size() <= static_cast<size_t>(replica))
        job->evaluated.resize(static_cast<size_t>(replica) + 1);
      Sample kept;  // the band needs the iteration, time and accuracy only
      kept.iteration = s.iteration;
      kept.sim_time_s = s.sim_time_s;
      kept.test_accuracy = s.test_accuracy;
      kept.test_loss = s.test_loss;
      job->evaluated[static_cast<size_t>(replica)].push_back(kept);
      if (job->replica_run.size() <= static_cast<size_t>(replica))
        job->replica_run.resize(static_cast<size_t>(replica) + 1);
      job->replica_run[static_cast<size_t>(replica)] = name;
    };
    // A finished seed's curve joins the partial bands the chart shows while the rest run.
    callbacks.on_replica_done = [&](int replica, const RunSession&) {
      std::lock_guard<std::mutex> lock(job->mutex);
      if (job->finished.size() <= static_cast<size_t>(replica))
        job->finished.resize(static_cast<size_t>(replica) + 1, 0);
      job->finished[static_cast<size_t>(replica)] = 1;
      job->finished_count.fetch_add(1);
    };
    job->outcome = run_experiment(exp, options, callbacks);
    if (job->outcome.error) std::rethrow_exception(job->outcome.error);
  } catch (const std::exception& e) {
    job->error = e.what();
  }
  job->done.store(true);
}

}  // namespace

CompareView::CompareView(std::function<std::vector<RunConfig>()> runs, QWidget* parent)
    : QWidget(parent), runs_(std::move(runs)) {
  seeds_ = new QSpinBox;
  seeds_->setRange(2, 50);
  seeds_->setValue(5);
  seeds_->setToolTip(
      "Every run is repeated over seeds seed, seed+1, ...; arms are paired by seed (same "
      "initialisation, data order and evaluation rows).");
  run_ = new QPushButton("Run comparison");
  run_->setToolTip("Run the Training tab's scenario (with its edits) over the seeds.");
  cancel_ = new QPushButton("Cancel");
  cancel_->setEnabled(false);
  cancel_->setToolTip("Stop every seed at its next iteration; finished runs are kept.");
  status_ = new QLabel(
      "Runs the Training tab's runs over several seeds and reports paired "
      "intervals, as commlab-cli run --seeds does.");
  status_->setWordWrap(true);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel("Seeds"));
  bar->addWidget(seeds_);
  bar->addWidget(run_);
  bar->addWidget(cancel_);
  bar->addWidget(status_, 1);

  chart_ = new QChartView(new QChart);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(260);
  table_ = new QTableWidget(0, 8);
  table_->setHorizontalHeaderLabels({"run", "seeds", "final accuracy", "time / iteration",
                                     "time to target", "speedup vs baseline",
                                     "accuracy vs baseline", "wire bytes / iteration"});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->setToolTip(
      "One row per run: the engine's summary, the one commlab-cli writes as summary.json for "
      "the same runs and seeds; the intervals are 95%.");
  if (auto* corner = table_->findChild<QAbstractButton*>())  // Qt's select-all corner button
    corner->setToolTip("Select the whole table (to copy it).");
  auto* race = new QWidget;
  auto* race_row = new QHBoxLayout(race);
  race_row->setContentsMargins(0, 0, 0, 0);
  race_row->addWidget(chart_, 1);
  race_row->addWidget(make_race_panel());
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(race);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);

  poll_timer_ = new QTimer(this);
  poll_timer_->setInterval(100);
  connect(poll_timer_, &QTimer::timeout, this, &CompareView::poll);
  connect(run_, &QPushButton::clicked, this, [this] { run(); });
  connect(cancel_, &QPushButton::clicked, this, &CompareView::cancel);
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) { set_race_run(row); });
  draw_chart();
  show_race();
}

CompareView::~CompareView() {
  if (job_) {
    job_->cancel.store(true);
    if (job_->thread.joinable()) job_->thread.join();
  }
}

void CompareView::set_colors(std::function<std::vector<int>()> colors) {
  colors_ = std::move(colors);
}

QColor CompareView::color_of(size_t k, bool running) const {
  const std::vector<int>& colors = running ? running_colors_ : compared_colors_;
  return run_color(k < colors.size() ? colors[k] : static_cast<int>(k));
}

void CompareView::set_seeds(int seeds) {
  seeds_->setValue(seeds);
}

int CompareView::seeds() const {
  return seeds_->value();
}

bool CompareView::idle() const {
  return !job_;
}

QString CompareView::status_text() const {
  return status_->text();
}

QChart* CompareView::chart() const {
  return chart_->chart();
}

bool CompareView::run() {
  if (job_) return false;
  std::vector<RunConfig> runs = runs_ ? runs_() : std::vector<RunConfig>{};
  if (runs.empty()) {
    status_->setText("Nothing to compare: open a scenario in the Training tab.");
    return false;
  }
  Experiment exp;
  exp.name = "compare";
  exp.runs = std::move(runs);
  running_ = exp.runs;
  running_colors_ = colors_ ? colors_() : std::vector<int>{};
  job_ = std::make_shared<Job>();
  job_->thread = std::thread(run_job, job_, std::move(exp), seeds());
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  status_->setText(QString("Starting: 0 of %1 seeds done...").arg(running_.size() * seeds()));
  partial_finished_ = -1;  // the first poll draws the (empty) partial chart
  show_race();
  emit progress(status_->text());
  poll_timer_->start();
  return true;
}

void CompareView::cancel() {
  if (job_) job_->cancel.store(true);
}

void CompareView::poll() {
  if (!job_) return;
  if (!job_->done.load()) {
    const int64_t total = job_->total.load(), done = job_->iterations.load();
    const int finished = job_->finished_count.load();
    const int replicas = static_cast<int>(running_.size()) * seeds();
    status_->setText(QString("%1%2 of %3 seeds done (%4 / %5 iterations)%6")
                         .arg(job_->tuning.load() ? "tuning learning rates: " : "")
                         .arg(finished)
                         .arg(replicas)
                         .arg(done)
                         .arg(total)
                         .arg(job_->cancel.load() ? " (cancelling)" : ""));
    if (finished != partial_finished_) show_partial(finished, replicas);
    emit progress(status_->text());
    return;
  }
  poll_timer_->stop();
  job_->thread.join();
  partial_ = false;
  partial_finished_ = 0;
  show_result();
  job_.reset();
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  emit finished();
}

void CompareView::show_partial(int finished, int replicas) {
  // Every run's seeds that finished so far, grouped by run in the comparison's order.
  partial_finished_ = finished;
  partial_bands_.assign(running_.size(), {});
  {
    std::lock_guard<std::mutex> lock(job_->mutex);
    for (size_t k = 0; k < running_.size(); ++k) {
      std::vector<std::vector<Sample>> replicas_of_run;
      for (size_t i = 0; i < job_->finished.size(); ++i)
        if (job_->finished[i] && i < job_->replica_run.size() &&
            job_->replica_run[i] == running_[k].name && i < job_->evaluated.size())
          replicas_of_run.push_back(job_->evaluated[i]);
      if (!replicas_of_run.empty()) partial_bands_[k] = accuracy_band(replicas_of_run);
    }
  }
  partial_names_.clear();
  for (const RunConfig& r : running_) partial_names_.push_back(QString::fromStdString(r.name));
  partial_title_ = QString("Test accuracy: %1 of %2 seeds done, mean and 95% band so far")
                       .arg(finished)
                       .arg(replicas);
  partial_ = true;
  draw_chart();
}

void CompareView::show_result() {
  Job& job = *job_;
  complete_ = job.error.empty() && !job.outcome.stopped;
  if (!job.error.empty()) {  // the previous table and chart stay
    status_->setText("Failed: " + QString::fromStdString(job.error));
    draw_chart();
    return;
  }
  summary_ = job.outcome.summary;
  compared_ = running_;
  compared_colors_ = running_colors_;
  bands_.clear();
  names_.clear();
  const ExperimentOutcome& out = job.outcome;
  for (size_t k = 0; k < out.results.size(); ++k) {
    // The replicas of result k are first_replica[j] .. first_replica[j+1] for the run j it came
    // from.
    const size_t first = out.result_replica[k];
    size_t end = first + 1;
    for (size_t j = 0; j + 1 < out.first_replica.size(); ++j)
      if (out.first_replica[j] == first) end = out.first_replica[j + 1];
    std::vector<std::vector<Sample>> replicas;
    for (size_t i = first; i < end && i < job.evaluated.size(); ++i)
      replicas.push_back(job.evaluated[i]);
    bands_.push_back(accuracy_band(replicas));
    names_.push_back(QString::fromStdString(out.results[k].summary.name));
  }
  fill_table();
  race_row_ = -1;  // a new comparison: the fastest arm, until a row is chosen
  show_race();
  draw_chart();
  status_->setText(QString("%1 runs over %2 seeds%3.")
                       .arg(out.results.size())
                       .arg(seeds())
                       .arg(out.stopped ? " (cancelled: incomplete runs)" : ""));
}

void CompareView::fill_table() {
  table_->setRowCount(static_cast<int>(summary_.runs.size()));
  int row = 0;
  for (const RunStats& r : summary_.runs) {
    const QStringList cells = compare_row_cells(r);
    for (int c = 0; c < cells.size(); ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
    // The run's colour on the chart: the table is the legend when the chart's does not fit.
    QPixmap swatch(12, 12);
    swatch.fill(color_of(static_cast<size_t>(row), false));
    table_->item(row, 0)->setIcon(QIcon(swatch));
    ++row;
  }
}

void CompareView::draw_chart() {
  auto* chart = new QChart;
  // summary_ has no runs before the first comparison.
  const RunStats* first = summary_.runs.empty() ? nullptr : &summary_.runs.front();
  const int seeds = first ? static_cast<int>(first->seeds.seeds.size()) : 0;
  const std::vector<std::vector<BandPoint>>& bands = partial_ ? partial_bands_ : bands_;
  const std::vector<QString>& names = partial_ ? partial_names_ : names_;
  chart->setTitle(partial_ ? partial_title_
                  : bands.empty()
                      ? "Test accuracy over seeds (press Run comparison)"
                      : QString("Test accuracy: mean over %1 seeds, 95% band").arg(seeds));
  auto* x = new QValueAxis;
  x->setTitleText("simulated time (ms)");
  auto* y = new QValueAxis;
  y->setTitleText("test accuracy");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  double lo = 1, hi = 0, right = 0;
  bool any = false;
  for (size_t k = 0; k < bands.size(); ++k) {
    if (bands[k].empty()) continue;  // no seed of this run finished yet
    any = true;
    const QColor color = color_of(k, partial_);
    auto* mean = new QLineSeries;
    auto* upper = new QLineSeries;
    auto* lower = new QLineSeries;
    for (const BandPoint& p : bands[k]) {
      const double t = 1e3 * p.sim_time_s;
      mean->append(t, p.mean);
      upper->append(t, p.hi);
      lower->append(t, p.lo);
      lo = std::min(lo, p.lo);
      hi = std::max(hi, p.hi);
      right = std::max(right, t);
    }
    auto* band = new QAreaSeries(upper, lower);
    QColor fill = color;
    fill.setAlpha(50);
    band->setBrush(fill);
    band->setPen(Qt::NoPen);
    mean->setName(names[k]);
    mean->setPen(QPen(color, 2));
    chart->addSeries(band);
    chart->addSeries(mean);
    for (QAbstractSeries* s :
         {static_cast<QAbstractSeries*>(band), static_cast<QAbstractSeries*>(mean)}) {
      s->attachAxis(x);
      s->attachAxis(y);
    }
    for (QLegendMarker* m : chart->legend()->markers(band)) m->setVisible(false);
  }
  const double target = partial_ && !running_.empty() ? running_.front().training.target_accuracy
                        : first && first->tta.time_to_accuracy ? first->tta.time_to_accuracy->target
                                                               : NAN;
  if (any && std::isfinite(target)) {  // the accuracy that defines time to target
    auto* line = new QLineSeries;
    line->setName("target " + QString::number(100 * target, 'f', 1) + "%");
    line->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    line->append(0, target);
    line->append(right, target);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    if (!partial_) add_finish_marks(chart, target);
  }
  // Ticks at nice numbers (1, 2 or 5 times a power of ten) from 0, not at a fifth of the span.
  x->setLabelFormat("%g");
  y->setLabelFormat("%g");
  for (size_t k = 0; any && !partial_ && k < names_.size(); ++k)  // the finish marks too
    if (const double t = race_finish_s(summary_, static_cast<int>(k)); std::isfinite(t))
      right = std::max(right, 1e3 * t);
  if (any) {
    // The upper part of the curves, where the runs reach their targets, not the first evaluation.
    set_nice_axis_range(x, 0, right > 0 ? right : 1);
    set_nice_axis_range(y, std::max(0.0, std::max(lo, hi - 0.25)), std::min(1.0, hi + 0.01));
  } else {
    set_nice_axis_range(x, 0, 1);
    set_nice_axis_range(y, 0, 1);
  }
  chart->legend()->setAlignment(Qt::AlignBottom);
  // A legend row too narrow for every name whole would elide them all ("algori..."): then none is
  // drawn and the table below, each run with its colour's swatch, is the legend.
  const QFontMetricsF fm(chart->legend()->font());
  double needed = 48;  // the legend's margins; each entry: marker, gaps and label
  for (QLegendMarker* m : chart->legend()->markers())
    if (m->isVisible()) needed += fm.horizontalAdvance(m->label()) + fm.height() + 22;
  chart->legend()->setVisible(needed <= chart_->width());
  // Hover: a run's mean accuracy at the evaluation nearest the pointer, exactly.
  add_hover_readouts(chart, chart_);
  QChart* old = chart_->chart();
  chart_->setChart(chart);
  delete old;
}

QSize CompareView::export_size() const {
  return size().isValid() && !size().isEmpty() ? size() : QSize(1200, 800);
}

void CompareView::export_render(QPainter& painter) const {
  render_widget(this, painter);
}

CsvTable CompareView::export_data() const {
  CsvTable t;
  for (int c = 0; c < table_->columnCount(); ++c)
    t.header << table_->horizontalHeaderItem(c)->text();
  for (int r = 0; r < table_->rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < table_->columnCount(); ++c)
      row << (table_->item(r, c) ? table_->item(r, c)->text() : QString());
    t.rows.push_back(row);
  }
  return t;
}

}  // namespace commlab::ui
