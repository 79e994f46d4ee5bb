#pragma once
// Workload tab: a catalog workload or a Chakra trace replayed by the graph engine and
// drawn as a Gantt chart per rank and stream, with the critical path outlined and a summary of
// the iteration (exposed communication per kind, stream busy). Any control change replays on a
// worker thread: one replay runs at a time, a change made meanwhile starts the next one when it
// ends, and a result whose settings are no longer current is dropped.
#include <QWidget>
#include <memory>

#include "background_jobs.h"
#include "chart_export.h"
#include "views/workload_model.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace commlab::ui {

// The picture this page draws is computed in core/views (no Qt), named here unqualified.
using namespace commlab::views;

class GanttCanvas;

class WorkloadView : public QWidget, public Exportable {
  Q_OBJECT
 public:
  explicit WorkloadView(QWidget* parent = nullptr);
  // No replay running or waiting to run, and the newest result drawn.
  bool idle() const;
  WorkloadSettings settings() const;             // what the controls say
  void set_settings(const WorkloadSettings& s);  // sets every control; replays once
  std::shared_ptr<const WorkloadPicture> picture() const { return picture_; }
  GanttCanvas* canvas() const { return canvas_; }
  QString error_text() const;
  QString summary_text() const;
  // The routing line: DP time under ECMP and ideal routing, the penalty, the busiest link's load.
  QString routing_text() const;
  int replays_started() const { return replays_; }

  QString export_name() const override { return "workload"; }
  QSize export_size() const override { return size(); }
  void export_render(QPainter& painter) const override;
  CsvTable export_data() const override;  // one row per drawn bar

 public slots:
  void schedule_replay();  // coalesces changes made within a few milliseconds

 signals:
  void computed();

 private:
  void start_replay();
  void show_picture(std::shared_ptr<const WorkloadPicture> picture);
  void update_source_controls();
  void choose_trace();
  QWidget* build_controls();

  QComboBox* source_;
  QComboBox* model_;
  QLineEdit* trace_;
  QPushButton* trace_button_;
  QSpinBox *dp_, *tp_, *pp_, *micro_, *global_;
  QDoubleSpinBox* gbps_;
  QSpinBox* per_server_;
  QDoubleSpinBox* ratio_;
  QComboBox* placement_;
  QComboBox* routing_;
  QSpinBox* skip_;
  QCheckBox* overlap_;
  QSpinBox* ranks_;
  QLabel* title_;
  QLabel* summary_;
  QLabel* routing_summary_;
  QLabel* legend_;
  QLabel* error_;
  GanttCanvas* canvas_;
  QTimer* debounce_;
  std::shared_ptr<const WorkloadPicture> picture_;
  bool rerun_ = false;  // a change arrived while a replay ran
  int replays_ = 0;
  BackgroundJobs jobs_;  // last: destroying the page first waits for its jobs
};

}  // namespace commlab::ui
