#pragma once
// Throughput view: bus bandwidth vs message size, one series per algorithm, computed by the engine
// (core/views/busbw_model.h) on a worker thread; the chart only draws what came back: the flat
// alpha-beta network of the controls, or a cluster as NCCL runs it, the tuner's choice per size
// marked on the curve by algorithm and protocol; protocol and channels can be forced.
#include <QWidget>
#include <string>
#include <vector>

#include "background_jobs.h"
#include "chart_export.h"
#include "views/busbw_model.h"

class QChartView;
class QChart;
class QAbstractAxis;
class QSpinBox;
class QDoubleSpinBox;
class QLabel;
class QComboBox;
class QTimer;

namespace commlab::ui {

using views::BusbwPoint;
using views::BusbwSeries;

class BusbwView : public QWidget, public Exportable {
  Q_OBJECT
 public:
  explicit BusbwView(QWidget* parent = nullptr);
  bool idle() const { return jobs_.idle() && !debounce_active(); }
  int series_count() const;
  QChart* chart() const;
  // The cluster chooser: 0 is the flat network of the controls, then the NCCL clusters.
  int cluster_count() const;
  int cluster_index() const;
  // Chooses the cluster at `index` (recomputes); false, and nothing changes, outside
  // [0, cluster_count()).
  bool choose_cluster(int index);
  // What the controls say now (compute_throughput's input) and the curves the chart shows.
  views::ThroughputSettings settings() const;
  const std::vector<BusbwSeries>& series() const { return last_; }

  QString export_name() const override { return "busbw"; }
  QSize export_size() const override;
  void export_render(QPainter& painter) const override;
  CsvTable export_data() const override;

 public slots:
  void recompute();
  // Coalesces bursts of edits (typing, spinning) into one recompute after a short pause.
  void schedule_recompute();

 signals:
  void computed();

 private:
  bool debounce_active() const;
  void show_result(const std::vector<BusbwSeries>& result);
  void add_choice_markers(QChart* chart, const BusbwSeries& series, QAbstractAxis* x,
                          QAbstractAxis* y);
  std::vector<BusbwSeries> last_;  // what the chart shows

  QChartView* view_;
  QSpinBox* ranks_;
  QDoubleSpinBox* bw_;
  QDoubleSpinBox* alpha_;
  QSpinBox* slice_kib_;  // ring slicing (PipelineConfig), KiB; 0 turns it off
  QSpinBox* chunk_kib_;
  QComboBox* cluster_;  // "flat" or an NCCL cluster
  QComboBox* proto_;
  QSpinBox* channels_;
  bool nccl_mode() const;
  void update_controls();
  QLabel* status_;
  QTimer* debounce_;
  BackgroundJobs jobs_;  // last: destroying the page first waits for its jobs
};

}  // namespace commlab::ui
