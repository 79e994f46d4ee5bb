#pragma once
// The Workload page's timeline: one lane per (rank, stream), a bar per node at the engine's
// start/end, coloured by kind (compute, TP, DP, PP, EP), the critical path in full colour and
// outlined, the rest paler, the time a collective waited at its rendezvous as a thin line before
// the bar. Wheel zooms about the cursor, dragging pans, a double click shows the whole iteration;
// hovering a bar tells its node. A custom painter rather than a QGraphicsScene: a GPT-3 rank has
// thousands of nodes, and the same paint() serves the screen and PNG/SVG export.
#include <QColor>
#include <QWidget>
#include <memory>

#include "views/workload_model.h"

namespace commlab::ui {

// The picture this page draws is computed in core/views (no Qt), named here unqualified.
using namespace commlab::views;

QColor bar_color(int kind);
// What a bar is filled with: its kind's colour on the critical path, a paler one off it, so the
// path stands out even where bars are a pixel wide.
QColor bar_fill(int kind, bool critical);

class GanttCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit GanttCanvas(QWidget* parent = nullptr);
  void set_picture(std::shared_ptr<const WorkloadPicture> picture);  // keeps the zoom if same span
  std::shared_ptr<const WorkloadPicture> picture() const { return pic_; }

  // Geometry, for painting and tests: the visible time window, the x of a time, a bar's rectangle
  // (lane, bar index in the picture) in a canvas of `size`, and the bar under a point.
  double view_begin() const { return t0_; }
  double view_end() const { return t1_; }
  void set_view(double t0, double t1);
  void reset_view();
  double x_of(double t, QSize size) const;
  QRectF bar_rect(int lane, int bar, QSize size) const;
  bool bar_at(QPointF p, QSize size, int* lane, int* bar) const;
  QString bar_text(int lane, int bar) const;  // the tooltip
  QString lane_label(int lane) const;

  void paint(QPainter& painter, QSize size) const;
  QSize sizeHint() const override { return {900, 420}; }

  static constexpr int kLabelWidth = 150;
  static constexpr int kAxisHeight = 26;
  static constexpr int kLaneHeight = 30;
  static constexpr int kRankGap = 6;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void paint_axis(QPainter& painter, QSize size) const;

  std::shared_ptr<const WorkloadPicture> pic_;
  double t0_ = 0, t1_ = 1;
  bool dragging_ = false;
  double drag_x_ = 0, drag_t0_ = 0;
};

}  // namespace commlab::ui
