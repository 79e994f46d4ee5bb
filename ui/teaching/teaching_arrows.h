#pragma once
// The arrows of one teaching step as geometry, and where their labels go. Transfers between the
// same two GPUs in the same direction share one arrow and one label ("c0-1, c4-5 +"); labels are
// placed so that no two of one step meet, none covers a GPU box, and as few as possible sit on
// another arrow: along the arrow first, then pushed sideways (a leader line joins them).
#include <QFontMetricsF>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <optional>
#include <utility>
#include <vector>

namespace commlab::ui {

struct ArrowPath {
  int src = 0, dst = 0;
  bool reduce = true;
  bool tree1 = false;  // tree: the second half, carried by tree 1
  QPointF from, to;
  std::optional<QPointF> control;  // quadratic arc around boxes in the way
  QString label;
  // The point at u in [0, 1] along the line or arc, and the unit normal there.
  QPointF at(double u) const;
  QPointF normal_at(double u) const;
};

// "c3", "c0-3", "c0-1, c4-5": inclusive cell ranges, adjacent ones joined, in ascending order.
QString cell_ranges_label(std::vector<std::pair<int, int>> ranges);

// A label's box when centred on `centre`.
QRectF label_rect(const QString& text, const QFontMetricsF& fm, QPointF centre);

// One rectangle per arrow (same order): inside `bounds`, apart from each other and from every
// `obstacles` rectangle where any candidate allows it; among those, the first (nearest the
// arrow's middle) that covers the fewest points of the other arrows and at most half of its own.
std::vector<QRectF> place_arrow_labels(const std::vector<ArrowPath>& arrows,
                                       const QFontMetricsF& fm,
                                       const std::vector<QRectF>& obstacles, const QRectF& bounds);

}  // namespace commlab::ui
