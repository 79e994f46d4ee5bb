#pragma once
// Teaching mode: step through a small collective (ring all-reduce on 4 GPUs by default) and watch
// each rank's buffer fill with the other ranks' contributions. The trace is computed by the real
// executor on a worker thread; stepping and playing only change which frame is painted.
#include <QWidget>
#include <memory>

#include "background_jobs.h"
#include "chart_export.h"
#include "views/teaching_model.h"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QTimer;
class QVBoxLayout;

namespace commlab::ui {

// The picture this page draws is computed in core/views (no Qt), named here unqualified.
using namespace commlab::views;

class TeachingCanvas;

class TeachingView : public QWidget, public Exportable {
  Q_OBJECT
 public:
  explicit TeachingView(QWidget* parent = nullptr);
  bool idle() const { return jobs_.idle(); }
  // The trace on screen (null before the first one arrives) and the frame shown.
  std::shared_ptr<const TeachingTrace> trace() const { return trace_; }
  int frame() const { return frame_; }
  QString error_text() const;
  void set_settings(const TeachingSettings& settings);  // updates the controls and recomputes
  TeachingSettings settings() const;                    // what the controls say now
  void show_frame(int frame);
  QWidget* canvas() const;
  // Presentation zoom of the canvas and the caption (Ctrl+= / Ctrl+- / Ctrl+0).
  void set_zoom(double zoom);
  double zoom() const;

  QString export_name() const override { return "teaching"; }
  QSize export_size() const override;
  void export_render(QPainter& painter) const override;
  // One row per (frame, rank, cell): which ranks' contributions the cell holds.
  CsvTable export_data() const override;

 public slots:
  void recompute();
  void forward();
  void back();
  void reset();
  void toggle_play();
  void zoom_in();
  void zoom_out();
  void zoom_reset();

 signals:
  void computed();

 private:
  // The constructor's parts: the settings, the stepping buttons, the keys, the panel on the left,
  // the picture with its caption, and the signals that recompute.
  QFormLayout* make_settings_form();
  QHBoxLayout* make_step_buttons();
  void add_shortcuts();
  QWidget* make_side_panel(QFormLayout* form);
  QVBoxLayout* make_picture();
  void connect_controls();
  // True when the chosen algorithm's descriptor has SkipReduce steps.
  bool skips() const;
  void update_controls();

  QSpinBox* ranks_;
  QSpinBox* per_node_;
  QComboBox* algorithm_;
  QSpinBox* skip_;
  QComboBox* policy_;
  QSpinBox* iteration_;
  QDoubleSpinBox* trim_;
  QPushButton* reset_;
  QPushButton* back_;
  QPushButton* play_;
  QPushButton* forward_;
  QLabel* caption_;
  double caption_base_pt_ = 10;
  QLabel* error_;
  TeachingCanvas* canvas_;
  QTimer* timer_;
  std::shared_ptr<const TeachingTrace> trace_;
  int frame_ = 0;
  BackgroundJobs jobs_;  // last: destroying the page first waits for its jobs
};

}  // namespace commlab::ui
