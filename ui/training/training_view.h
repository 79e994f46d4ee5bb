#pragma once
// Training tab: the scenario panel, Run / Pause / Step / Reset / Pin, and the run charts
// (run_chart_pages.h: convergence, time split, codec, SkipReduce, trimming) of the current and
// pinned runs. Samples arrive through the TrainingBridge; the charts redraw from a snapshot every
// ~40 ms when something changed. A scenario with several runs fills the run chooser; Run all
// runs them one after the other as pinned comparisons.
#include <QString>
#include <QWidget>
#include <deque>
#include <vector>

#include "chart_export.h"
#include "run_charts.h"
#include "scenario/run_config.h"
#include "scenario/runner.h"
#include "train/sample_store.h"
#include "train/trainer.h"

class QChart;
class QComboBox;
class QLabel;
class QPushButton;
class QTimer;

namespace commlab::ui {

class RunChartPages;
class TrainingBridge;
class TrainingPanel;

class TrainingView : public QWidget, public Exportable {
  Q_OBJECT
 public:
  explicit TrainingView(QWidget* parent = nullptr);
  ~TrainingView() override;
  TrainingPanel* panel() const { return panel_; }
  TrainingBridge* bridge() const { return bridge_; }
  RunChartPages* charts() const { return charts_; }
  // No run is active or queued and every sample that came back is drawn.
  bool idle() const;
  // The current run's samples: all of them up to kChartSamples, then thinned like commlab-cli's
  // (train/sample_store.h), the latest always last.
  const std::vector<Sample>& samples() const { return samples_.samples(); }
  // Summaries of the completed runs, pinned ones first, in the order they ended.
  const std::vector<RunSummary>& summaries() const { return summaries_; }
  int pinned_count() const { return static_cast<int>(pinned_.size()); }
  QStringList pinned_names() const;
  // Points in the loss chart's current-run series (what is drawn, not what was received).
  int drawn_points() const;
  // Chart redraws so far (bench/gui measures how often a run refreshes its charts).
  int redraw_count() const { return redraw_count_; }
  // Starts a run of the panel's settings, capped at `iterations` when > 0.
  bool run(int iterations = 0);

  // The runs of a loaded scenario: the chooser lists them and the panel shows the first.
  void set_runs(const std::vector<RunConfig>& runs);
  // The scenario's runs with the chosen one replaced by the panel's settings (what Save writes).
  std::vector<RunConfig> runs() const;
  int chosen_run() const;
  void choose_run(int index);
  // Runs every run of the scenario in turn, each pinned when it ends (capped like run()).
  bool run_all(int iterations = 0);

  QString export_name() const override { return "training"; }
  QSize export_size() const override;
  void export_render(QPainter& painter) const override;
  CsvTable export_data() const override;

 public slots:
  void pause_or_resume();
  void step();
  void reset();
  void pin();

 private:
  struct Pinned {
    QString name;
    std::vector<Sample> samples;
    double ratio = -1;  // RunSummary::mean_ratio when the run completed
  };
  bool start(RunConfig config, int iterations);
  void drain();   // takes queued samples (redraw timer)
  void redraw();  // hands the snapshot to the chart pages
  void finished();
  void update_buttons();

  TrainingPanel* panel_;
  TrainingBridge* bridge_;
  QComboBox* run_choice_;
  QPushButton* run_all_;
  QPushButton* run_;
  QPushButton* pause_;
  QPushButton* step_;
  QPushButton* reset_;
  QPushButton* pin_;
  QComboBox* x_axis_;
  QLabel* status_;
  RunChartPages* charts_;
  QTimer* redraw_timer_;
  static constexpr size_t kChartSamples = 4096;
  SampleStore samples_{kChartSamples, true};
  std::vector<Pinned> pinned_;
  std::vector<RunSummary> summaries_;
  double ratio_ = -1;            // the current run's summary ratio once it completed
  std::vector<RunConfig> runs_;  // the loaded scenario's runs (edits of each kept)
  int chosen_ = 0;
  std::deque<RunConfig> queue_;  // Run all: the runs still to start
  int queue_iterations_ = 0;
  QString run_name_;
  int run_iterations_ = 0;
  bool dirty_ = false;
  bool awaiting_end_ = false;  // a run started whose finished / failed report has not come yet
  int run_counter_ = 0;
  int redraw_count_ = 0;
};

}  // namespace commlab::ui
