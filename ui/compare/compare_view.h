#pragma once
// Compare tab: runs the scenario's runs (with the Training tab's edits) over N seeds
// through the engine's experiment runner (scenario/run/experiment_runner.h, the code behind
// `commlab-cli run --seeds N`) on a worker thread, then draws every run's mean test accuracy with
// its 95% band (scenario/run/seed_curves.h) and a results table read from the runner's summary
// (scenario/run/experiment_summary.h), the one the CLI writes as summary.json: final accuracy, time
// per iteration, time to the target (reached k/N, censored median and interval), speedup against
// the baseline with its paired interval and verdict, accuracy change against the baseline, bytes on
// the wire per iteration. So the GUI's intervals are the CLI's for the same scenario and seeds.
//
// The chart is a race: accuracy against simulated time, each run's median time to the target
// marked where its curve crosses the target line, and beside it the race headline
// (compare_figures.h): one run's speedup over the baseline to the target as one large number with
// its 95% interval, the fastest arm's until a row of the table is selected.
#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "chart_export.h"
#include "compare_figures.h"
#include "scenario/run/seed_curves.h"
#include "scenario/run_config.h"

class QChart;
class QChartView;
class QLabel;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTableWidget;
class QTimer;

namespace commlab::ui {

class CompareView : public QWidget, public Exportable {
  Q_OBJECT
 public:
  // `runs` gives the runs to compare when Run is pressed (the Training tab's scenario and edits).
  explicit CompareView(std::function<std::vector<RunConfig>()> runs, QWidget* parent = nullptr);
  ~CompareView() override;  // cancels and joins the worker

  // The run_color index of each run `runs` gives, in its order (the Training tab's colours);
  // without it run k is drawn in colour k.
  void set_colors(std::function<std::vector<int>()> colors);
  void set_seeds(int seeds);
  int seeds() const;
  // Starts the comparison (false: one is running or there is nothing to run).
  bool run();
  void cancel();
  bool idle() const;
  // The last comparison's summary, as the runner returned it (no runs before the first one ends).
  const ExperimentSummary& summary() const { return summary_; }
  // The runs summary() is of, as compared (the Training tab matches its rows to them).
  const std::vector<RunConfig>& compared_runs() const { return compared_; }
  // The last comparison ran every seed of every run (false: cancelled, failed or none yet); a
  // cancelled one's summary() holds incomplete runs whose times to target are not results.
  bool last_complete() const { return complete_; }
  // Each run's accuracy band, in the order of summary().runs.
  const std::vector<std::vector<BandPoint>>& bands() const { return bands_; }
  QTableWidget* table() const { return table_; }
  QString status_text() const;
  // The chart shown (while a comparison runs: its finished seeds' bands).
  QChart* chart() const;
  // The race headline shown beside the chart: of summary()'s run `row` (set_race_run; -1, the
  // default and after each comparison: the fastest arm).
  RaceHeadline race() const;
  void set_race_run(int row);

  QString export_name() const override { return "compare"; }
  QSize export_size() const override;
  void export_render(QPainter& painter) const override;
  CsvTable export_data() const override;

 signals:
  void finished();                       // a comparison ended (done, cancelled or failed)
  void progress(const QString& status);  // a comparison runs: its status line (~10 per second)

 public:
  struct Job;  // the worker's shared state (compare_view.cpp)

 protected:
  // A comparison that ended while the tab was hidden (Run seeds on the Training tab) fits its
  // table when the tab is shown: a hidden tab is not laid out.
  void showEvent(QShowEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void poll();
  void show_result();
  void fill_table();
  // Gives the table the height of all its rows, as far as the chart keeps its minimum.
  void fit_table();
  void draw_chart();
  // Shows the chart's legend if every entry fits the chart's width whole (else the table is the
  // legend and the title names the dashed target line).
  void fit_legend();
  // While a comparison runs: the bands of the seeds finished so far (`finished` of `replicas`).
  void show_partial(int finished, int replicas);
  // The race headline of summary_ for race_row_.
  void show_race();
  QWidget* make_race_panel();
  // Each run's median time to the target, as a point on the target line in the run's colour.
  void add_finish_marks(QChart* chart, double target);

  // The colour of run k of the comparison running (`running`) or shown.
  QColor color_of(size_t k, bool running) const;

  std::function<std::vector<RunConfig>()> runs_;
  std::function<std::vector<int>()> colors_;
  std::vector<int> running_colors_, compared_colors_;  // colors_() of running_ and compared_
  QSpinBox* seeds_;
  QPushButton* run_;
  QPushButton* cancel_;
  QLabel* status_;
  QChartView* chart_;
  QTableWidget* table_;
  QSplitter* split_;  // the chart and race above, the table below
  QTimer* poll_timer_;
  QLabel* race_caption_;  // "Race to the target: RUN"
  QLabel* race_number_;   // the speedup, large
  QLabel* race_text_;     // verdict, interval, times to target
  int race_row_ = -1;
  std::shared_ptr<Job> job_;
  ExperimentSummary summary_;
  std::vector<RunConfig> running_, compared_;  // the comparison under way, the one shown
  std::vector<std::vector<BandPoint>> bands_;
  std::vector<QString> names_;
  bool complete_ = false;
  // The chart while a comparison runs: per run of running_, the band of its finished seeds.
  bool partial_ = false;
  int partial_finished_ = 0;
  std::vector<std::vector<BandPoint>> partial_bands_;
  std::vector<QString> partial_names_;
  QString partial_title_;
  // The chart drawn last: its legend entries, its title, the target line's name.
  QStringList legend_labels_;
  QString chart_title_, target_name_;
};

}  // namespace commlab::ui
