#pragma once
// Throughput view: bus bandwidth vs message size, one series per algorithm, computed by the engine
// (time plane, analytical backend) on a worker thread; the chart only draws what came back. On a
// flat alpha-beta network (link, latency, the ring's slice and chunk), or on an 8 x H100 cluster
// as NCCL runs it (collective/nccl/nccl_run.h): the tuner's choice per size, marked on the curve by
// algorithm and protocol, next to NCCL's ring and tree; protocol and channels can be forced.
#include <QWidget>
#include <string>
#include <vector>

#include "chart_export.h"
#include "collective/plan.h"

class QChartView;
class QChart;
class QAbstractAxis;
class QSpinBox;
class QDoubleSpinBox;
class QLabel;
class QComboBox;
class QTimer;

namespace commlab::ui {

struct BusbwPoint {
  double bytes;
  double busbw_gbps;
  std::string choice = {};  // NCCL mode: "ring ll128 x16" (algorithm, protocol, channels)
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
// NCCL mode on a cluster spec: "NCCL" (the tuner's choice per size), "ring (NCCL)" and "tree
// (NCCL)"; `proto` auto | simple | ll | ll128, `channels` 0 = NCCL's choice. Throws
// std::invalid_argument for what NCCL cannot run.
std::vector<BusbwSeries> compute_nccl_busbw(const std::string& cluster, const std::string& proto,
                                            int channels, uint64_t min_bytes, uint64_t max_bytes);

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
  int pending_ = 0;
  int generation_ = 0;
};

}  // namespace commlab::ui
