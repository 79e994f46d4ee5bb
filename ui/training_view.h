#pragma once
// Training tab: the scenario panel, Run / Pause / Step / Reset, and convergence charts (loss and
// accuracy vs iteration or simulated time, and the iteration time split into compute / exposed
// communication / codec). Samples arrive through the TrainingBridge; the charts redraw from a
// snapshot every ~40 ms when something changed. Pin keeps a run to overlay the next ones on.
#include <QString>
#include <QWidget>
#include <vector>

#include "chart_export.h"
#include "train/trainer.h"

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QPushButton;
class QTimer;

namespace commlab::ui {

class TrainingBridge;
class TrainingPanel;

class TrainingView : public QWidget, public Exportable {
  Q_OBJECT
 public:
  explicit TrainingView(QWidget* parent = nullptr);
  ~TrainingView() override;
  TrainingPanel* panel() const { return panel_; }
  TrainingBridge* bridge() const { return bridge_; }
  // No run is active and every sample that came back is drawn.
  bool idle() const;
  const std::vector<Sample>& samples() const { return samples_; }
  int pinned_count() const { return static_cast<int>(pinned_.size()); }
  // Points in the loss chart's current-run series (what is drawn, not what was received).
  int drawn_points() const;
  // Starts a run of the panel's settings, capped at `iterations` when > 0.
  bool run(int iterations = 0);

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
  };
  void drain();   // takes queued samples (redraw timer)
  void redraw();  // rebuilds the chart series from the snapshot
  void update_buttons();

  TrainingPanel* panel_;
  TrainingBridge* bridge_;
  QPushButton* run_;
  QPushButton* pause_;
  QPushButton* step_;
  QPushButton* reset_;
  QPushButton* pin_;
  QComboBox* x_axis_;
  QLabel* status_;
  QChartView* loss_;
  QChartView* accuracy_;
  QChartView* split_;
  QWidget* charts_;
  QTimer* redraw_timer_;
  std::vector<Sample> samples_;
  std::vector<Pinned> pinned_;
  QString run_name_;
  bool dirty_ = false;
  int run_counter_ = 0;
};

}  // namespace commlab::ui
