#pragma once
// Paints one frame of a TeachingTrace: GPU boxes on a circle, each with its buffer as cells of
// stacked stripes (one per contributing rank, in that rank's colour), the step's transfers as
// arrows, and a step timeline where SkipReduce's removed steps are shown hatched.
#include <QColor>
#include <QRectF>
#include <QWidget>
#include <memory>

#include "teaching_model.h"

namespace commlab::ui {

QColor rank_color(int rank);

class TeachingCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit TeachingCanvas(QWidget* parent = nullptr);
  void set_trace(std::shared_ptr<const TeachingTrace> trace);
  void set_frame(int frame);
  QSize sizeHint() const override { return {900, 620}; }
  QSize minimumSizeHint() const override { return {560, 420}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QRectF box_rect(int rank) const;
  QRectF cell_rect(const QRectF& box, int cell) const;
  void paint_legend(QPainter& p) const;
  void paint_box(QPainter& p, int rank, const TeachingFrame& frame) const;
  void paint_arrows(QPainter& p, const TeachingFrame& frame) const;
  void paint_timeline(QPainter& p) const;

  std::shared_ptr<const TeachingTrace> trace_;
  int frame_ = 0;
};

}  // namespace commlab::ui
