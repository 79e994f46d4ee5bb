#include "compare_view.h"

#include <QAbstractButton>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <thread>

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
  // Rows a line of text high (the style's default, 30 px, showed 4 of 12 runs at 1280x800).
  table_->verticalHeader()->setMinimumSectionSize(1);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
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
  split_ = new QSplitter(Qt::Vertical);
  split_->addWidget(race);
  split_->addWidget(table_);
  split_->setStretchFactor(0, 3);
  split_->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split_, 1);

  poll_timer_ = new QTimer(this);
  poll_timer_->setInterval(100);
  connect(poll_timer_, &QTimer::timeout, this, &CompareView::poll);
  connect(run_, &QPushButton::clicked, this, [this] { run(); });
  connect(cancel_, &QPushButton::clicked, this, &CompareView::cancel);
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) { set_race_run(row); });
  draw_chart();
  chart_->installEventFilter(this);  // after the first chart: fit_legend() needs it
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
  fit_table();
}

void CompareView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  // After the layout this show brings.
  QTimer::singleShot(0, this, [this] { fit_table(); });
}

void CompareView::fit_table() {
  const QList<int> sizes = split_->sizes();
  if (sizes.size() != 2) return;
  int needed = table_->horizontalHeader()->height() + 2 * table_->frameWidth() + 2;
  for (int r = 0; r < table_->rowCount(); ++r) needed += table_->rowHeight(r);
  const int total = sizes[0] + sizes[1];
  const int room = total - chart_->minimumHeight() - 30;  // the chart's minimum and its margins
  const int table = std::max(sizes[1], std::min(needed, room));
  if (table != sizes[1]) split_->setSizes({total - table, table});
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
