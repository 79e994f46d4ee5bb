#pragma once
// Paints one frame of a TeachingTrace: GPU boxes placed by the algorithm's layout
// (teaching_layout.h: ring on a circle, tree as a tree, hd on a grid of exchange partners, hier as
// nodes), each with its buffer as cells of stacked stripes (one per contributing rank, in that
// rank's colour), the step's transfers as arrows (curved around boxes in their way), and a step
// timeline where SkipReduce's removed steps are shown hatched.
#include <QBrush>
#include <QColor>
#include <QRectF>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "teaching_arrows.h"
#include "teaching_layout.h"
#include "views/teaching_model.h"

namespace commlab::ui {

// The picture this page draws is computed in core/views (no Qt), named here unqualified.
using namespace commlab::views;

QColor rank_color(int rank);

namespace teaching_colors {
inline const QColor kInk(0x33, 0x33, 0x33);
inline const QColor kReduceStep(0xfd, 0xd9, 0xb5);
inline const QColor kCopyStep(0xc6, 0xdb, 0xef);
inline const QColor kTree1(0x7b, 0x3f, 0x9e);
// Approximate (trimmed) cells: magenta, far from every rank colour (rank 1 is orange).
inline const QColor kTrimmed(0xd0, 0x00, 0xd0);
}  // namespace teaching_colors

// One legend item: its swatch (empty for the heading), its text and where both go.
struct TeachingLegendEntry {
  QRectF swatch, text_rect;
  QBrush brush;
  QString text;
};

class TeachingCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit TeachingCanvas(QWidget* parent = nullptr);
  void set_trace(std::shared_ptr<const TeachingTrace> trace);
  void set_frame(int frame);
  const TeachingLayout& layout() const { return layout_; }
  // Presentation zoom: scales every length and font of the drawing (Ctrl+= / Ctrl+- on the page).
  static constexpr double kMinZoom = 0.5, kMaxZoom = 3.0;
  void set_zoom(double zoom);
  double zoom() const { return zoom_; }
  // Where rank's box is drawn at the current size, in logical (unzoomed) coordinates: on screen
  // it is zoom() times larger (tests check that no two overlap).
  QRectF box_rect(int rank) const;
  // The legend, wrapped onto as many lines as the (zoomed) width needs: every item inside.
  std::vector<TeachingLegendEntry> legend_entries() const {
    return legend_entries(logical_width());
  }
  // The current frame's arrow labels (empty when there are too many arrows to label): tests
  // check that none meets another or a box.
  std::vector<QRectF> arrow_label_rects() const;
  static constexpr size_t kMaxLabelledArrows = 12;
  // The font of the trimmed-packet counts under the step boxes.
  QFont trimmed_count_font() const;
  // 900x620, or the minimum size when more GPUs need more (minimumSizeHint).
  QSize sizeHint() const override { return QSize(900, 620).expandedTo(minimumSizeHint()); }
  // Room for the legend, every row of boxes at their smallest and the timeline, at this zoom (the
  // page scrolls when the window is smaller): boxes never overlap, zoomed or not.
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  struct BoxSize {
    double width = 0, stripes = 0;
  };
  BoxSize box_size() const;  // cached per logical size (painting asks for it per arrow)
  BoxSize compute_box_size() const;
  QRectF box_at(int rank, BoxSize size) const;
  bool overlapping(BoxSize size) const;
  double stripes_h() const;
  std::vector<TeachingLegendEntry> legend_entries(double width) const;
  double legend_height() const { return legend_height(logical_width()); }
  double legend_height(double width) const;
  double timeline_height() const;
  double step_box_height() const;
  QRectF tree_key_rect() const;
  QRectF layout_area() const;
  QRectF compute_layout_area() const;
  QRectF cell_rect(const QRectF& box, int cell) const;
  void paint_legend(QPainter& p) const;
  void paint_box(QPainter& p, int rank, const TeachingFrame& frame) const;
  void paint_arrows(QPainter& p, const TeachingFrame& frame) const;
  std::vector<ArrowPath> arrow_paths(const TeachingFrame& frame) const;
  void route(ArrowPath& arrow) const;
  std::vector<QRectF> label_rects(const std::vector<ArrowPath>& arrows) const;
  void paint_nodes(QPainter& p) const;
  bool crosses_other_box(QPointF a, QPointF b, int src, int dst,
                         std::optional<QPointF> control = std::nullopt) const;
  std::optional<QPointF> detour(const QRectF& a, const QRectF& b, QPointF normal, int src,
                                int dst) const;
  void paint_timeline(QPainter& p) const;

  std::shared_ptr<const TeachingTrace> trace_;
  TeachingLayout layout_;
  double zoom_ = 1;
  double logical_width() const { return width() / zoom_; }
  double logical_height() const { return height() / zoom_; }
  int frame_ = 0;
  struct BoxCache {
    double width = -1, height = -1;
    QRectF area;
    BoxSize size;
  };
  void refresh_box_cache() const;
  mutable BoxCache box_cache_;
};

}  // namespace commlab::ui
