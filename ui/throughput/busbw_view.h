#pragma once
// Throughput view: bus bandwidth vs message size, one series per algorithm, computed by the engine
// (time plane, analytical backend) on a worker thread; the chart only draws what came back.
#include <QWidget>
#include <vector>

#include "chart_export.h"
#include "collective/plan.h"

class QChartView;
class QChart;
class QSpinBox;
class QDoubleSpinBox;
class QLabel;
class QTimer;

namespace commlab::ui {

struct BusbwPoint {
  double bytes;
  double busbw_gbps;
};
struct BusbwSeries {
  QString algorithm;
  std::vector<BusbwPoint> points;
  // The algorithm's bandwidth ceiling: its busbw with no latency (alpha = 0) on a 1 GiB message.
  double ceiling_gbps = 0;
};

// Pure function of the settings (no Qt in the computation, so tests can call it too). `pipeline`
// is the NCCL-style slicing of ring steps (collective/plan.h; zeros turn it off).
std::vector<BusbwSeries> compute_busbw(int ranks, double bw_gbps, double alpha_us,
                                       uint64_t min_bytes, uint64_t max_bytes,
                                       PipelineConfig pipeline = {});

class BusbwView : public QWidget, public Exportable {
  Q_OBJECT
 public:
  explicit BusbwView(QWidget* parent = nullptr);
  bool idle() const { return pending_ == 0 && !debounce_active(); }
  int series_count() const;
  QChart* chart() const;

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

  QChartView* view_;
  QSpinBox* ranks_;
  QDoubleSpinBox* bw_;
  QDoubleSpinBox* alpha_;
  QSpinBox* slice_kib_;  // ring slicing (PipelineConfig), KiB; 0 turns it off
  QSpinBox* chunk_kib_;
  QLabel* status_;
  QTimer* debounce_;
  int pending_ = 0;
  int generation_ = 0;
};

}  // namespace commlab::ui
