#pragma once
// Throughput view: bus bandwidth vs message size, one series per algorithm, computed by the engine
// (time plane, analytical backend) on a worker thread; the chart only draws what came back.
#include <QWidget>
#include <vector>

class QChartView;
class QChart;
class QSpinBox;
class QDoubleSpinBox;
class QLabel;

namespace commlab::ui {

struct BusbwPoint {
  double bytes;
  double busbw_gbps;
};
struct BusbwSeries {
  QString algorithm;
  std::vector<BusbwPoint> points;
};

// Pure function of the settings (no Qt in the computation, so tests can call it too).
std::vector<BusbwSeries> compute_busbw(int ranks, double bw_gbps, double alpha_us,
                                       uint64_t min_bytes, uint64_t max_bytes);

class BusbwView : public QWidget {
  Q_OBJECT
 public:
  explicit BusbwView(QWidget* parent = nullptr);
  void recompute();
  bool idle() const { return pending_ == 0; }
  int series_count() const;

 signals:
  void computed();

 private:
  void show_result(const std::vector<BusbwSeries>& result);

  QChartView* view_;
  QSpinBox* ranks_;
  QDoubleSpinBox* bw_;
  QDoubleSpinBox* alpha_;
  QLabel* status_;
  int pending_ = 0;
  int generation_ = 0;
};

}  // namespace commlab::ui
