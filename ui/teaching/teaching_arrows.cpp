#include "teaching_arrows.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <limits>

#include "teaching_canvas.h"

namespace commlab::ui {

namespace {

constexpr double kLabelGap = 3;    // labels keep this far from each other and from boxes
constexpr double kSideStep = 10;   // sideways push per try, px
constexpr int kSideSteps = 28;     // up to 280 px off the arrow
constexpr int kArrowSamples = 48;  // points per arrow checked against other arrows' labels
constexpr double kAlong[] = {0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78};

int points_inside(const QRectF& r, const ArrowPath& arrow) {
  int n = 0;
  for (int i = 0; i <= kArrowSamples; ++i)
    if (r.contains(arrow.at(static_cast<double>(i) / kArrowSamples))) ++n;
  return n;
}

bool meets_any(const QRectF& r, const std::vector<QRectF>& others) {
  const QRectF grown = r.adjusted(-kLabelGap, -kLabelGap, kLabelGap, kLabelGap);
  return std::any_of(others.begin(), others.end(),
                     [&](const QRectF& o) { return grown.intersects(o); });
}

// The first candidate for arrows[index]'s label (nearest the arrow's middle) that meets nothing,
// covers no other arrow and leaves at least half of its own arrow in sight (a label on the middle
// of a short arrow, tree 7 -> 3 at 8 ranks, hid all of it), else the valid one covering the fewest
// points of other arrows plus those of its own beyond half.
std::optional<QRectF> best_candidate(const std::vector<ArrowPath>& arrows, size_t index,
                                     const QFontMetricsF& fm, const std::vector<QRectF>& placed,
                                     const std::vector<QRectF>& obstacles, const QRectF& bounds) {
  const ArrowPath& arrow = arrows[index];
  std::optional<QRectF> best;
  int best_cover = std::numeric_limits<int>::max();
  for (int step = 0; step <= kSideSteps; ++step)
    for (int sign : {1, -1}) {
      if (step == 0 && sign < 0) continue;
      for (double u : kAlong) {
        const QPointF centre = arrow.at(u) + arrow.normal_at(u) * (sign * step * kSideStep);
        const QRectF r = label_rect(arrow.label, fm, centre);
        if (!bounds.contains(r) || meets_any(r, placed) || meets_any(r, obstacles)) continue;
        int cover = std::max(0, points_inside(r, arrow) - kArrowSamples / 2);
        for (size_t k = 0; k < arrows.size(); ++k)
          if (k != index) cover += points_inside(r, arrows[k]);
        if (cover == 0) return r;
        if (cover < best_cover) best = r, best_cover = cover;
      }
    }
  return best;
}

// Clear of boxes where possible; in a picture too cramped for that (zoomed far in), at least
// clear of the other labels; the arrow's middle as the last resort.
QRectF place_one(const std::vector<ArrowPath>& arrows, size_t index, const QFontMetricsF& fm,
                 const std::vector<QRectF>& placed, const std::vector<QRectF>& obstacles,
                 const QRectF& bounds) {
  if (auto r = best_candidate(arrows, index, fm, placed, obstacles, bounds)) return *r;
  if (auto r = best_candidate(arrows, index, fm, placed, {}, bounds)) return *r;
  return label_rect(arrows[index].label, fm, arrows[index].at(0.5));
}

// Where the ray from the rect's centre towards `to` leaves the rect (plus a small gap).
QPointF exit_point(const QRectF& r, QPointF to) {
  QPointF c = r.center();
  double dx = to.x() - c.x(), dy = to.y() - c.y();
  double tx = dx == 0 ? 1e9 : (r.width() / 2 + 4) / std::abs(dx);
  double ty = dy == 0 ? 1e9 : (r.height() / 2 + 4) / std::abs(dy);
  double t = std::min(tx, ty);
  return c + QPointF(dx * t, dy * t);
}

void draw_arrow_head(QPainter& p, QPointF a, QPointF b) {
  QPointF d = b - a;
  double len = std::hypot(d.x(), d.y());
  if (len < 1e-6) return;
  QPointF u = d / len, n(-u.y(), u.x());
  QPolygonF head;
  head << b << b - u * 11 + n * 5 << b - u * 11 - n * 5;
  p.save();
  p.setBrush(p.pen().color());
  p.setPen(Qt::NoPen);
  p.drawPolygon(head);
  p.restore();
}

// The point of the arrow nearest `to` (sampled).
QPointF nearest_on(const ArrowPath& arrow, QPointF to) {
  QPointF best = arrow.at(0.5);
  double best_d = std::numeric_limits<double>::max();
  for (int i = 0; i <= kArrowSamples; ++i) {
    const QPointF at = arrow.at(static_cast<double>(i) / kArrowSamples);
    const double d = std::hypot(at.x() - to.x(), at.y() - to.y());
    if (d < best_d) best = at, best_d = d;
  }
  return best;
}

}  // namespace

QPointF ArrowPath::at(double u) const {
  if (!control) return from + (to - from) * u;
  return (1 - u) * (1 - u) * from + 2 * u * (1 - u) * *control + u * u * to;
}

QPointF ArrowPath::normal_at(double u) const {
  const QPointF d = control ? 2 * (1 - u) * (*control - from) + 2 * u * (to - *control) : to - from;
  const double len = std::hypot(d.x(), d.y());
  if (len < 1e-9) return QPointF(0, 1);
  return QPointF(-d.y(), d.x()) / len;
}

QString cell_ranges_label(std::vector<std::pair<int, int>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<int, int>> joined;
  for (const auto& r : ranges) {
    if (!joined.empty() && r.first <= joined.back().second + 1)
      joined.back().second = std::max(joined.back().second, r.second);
    else
      joined.push_back(r);
  }
  QString out;
  for (const auto& [first, last] : joined) {
    if (!out.isEmpty()) out += ", ";
    out += first == last ? QString("c%1").arg(first) : QString("c%1-%2").arg(first).arg(last);
  }
  return out;
}

QRectF label_rect(const QString& text, const QFontMetricsF& fm, QPointF centre) {
  const double w = fm.horizontalAdvance(text) + 10, h = fm.height() + 4;
  return QRectF(centre.x() - w / 2, centre.y() - h / 2, w, h);
}

std::vector<QRectF> place_arrow_labels(const std::vector<ArrowPath>& arrows,
                                       const QFontMetricsF& fm,
                                       const std::vector<QRectF>& obstacles, const QRectF& bounds) {
  std::vector<QRectF> placed;
  placed.reserve(arrows.size());
  for (size_t i = 0; i < arrows.size(); ++i)
    placed.push_back(place_one(arrows, i, fm, placed, obstacles, bounds));
  return placed;
}

bool TeachingCanvas::crosses_other_box(QPointF a, QPointF b, int src, int dst,
                                       std::optional<QPointF> control) const {
  for (int r = 0; r < trace_->ranks; ++r) {
    if (r == src || r == dst) continue;
    const QRectF box = box_rect(r).adjusted(2, 2, -2, -2);
    for (int i = 1; i < 40; ++i) {
      const double u = i / 40.0;
      const QPointF at = control ? (1 - u) * (1 - u) * a + 2 * u * (1 - u) * *control + u * u * b
                                 : a + (b - a) * u;
      if (box.contains(at)) return true;
    }
  }
  return false;
}

// The control point of the first quadratic arc from box a to box b that clears every other box:
// growing bows, this direction's side first. None: the straight line it is.
std::optional<QPointF> TeachingCanvas::detour(const QRectF& a, const QRectF& b, QPointF normal,
                                              int src, int dst) const {
  const QPointF middle = (a.center() + b.center()) / 2;
  for (double bow : {1.0, 1.8, 2.6, 3.6, 5.0, 7.0})
    for (double sign : {1.0, -1.0}) {
      const QPointF control = middle + normal * sign * (bow * a.height() + 28);
      if (!QRectF(0, 0, logical_width(), logical_height()).contains(control)) continue;
      if (!crosses_other_box(exit_point(a, control), exit_point(b, control), src, dst, control))
        return control;
    }
  return std::nullopt;
}

// One arrow per (source, destination, kind) of the frame's transfers, in first-transfer order.
std::vector<ArrowPath> TeachingCanvas::arrow_paths(const TeachingFrame& frame) const {
  std::vector<ArrowPath> arrows;
  std::vector<std::vector<std::pair<int, int>>> cells;
  for (const Transfer& t : frame.transfers) {
    // Tree: tree 1 carries the buffer's second half (collective/tree.cpp); an edge can be in both.
    const bool tree1 = layout_.kind == TeachingLayout::Kind::kTree && t.offset >= trace_->count / 2;
    auto same = [&](const ArrowPath& a) {
      return a.src == t.src && a.dst == t.dst && a.reduce == t.reduce && a.tree1 == tree1;
    };
    const auto found = std::find_if(arrows.begin(), arrows.end(), same);
    if (found != arrows.end()) {
      cells[static_cast<size_t>(found - arrows.begin())].push_back(trace_->cells_of(t));
      continue;
    }
    ArrowPath arrow;
    arrow.src = t.src, arrow.dst = t.dst, arrow.reduce = t.reduce, arrow.tree1 = tree1;
    arrows.push_back(arrow);
    cells.push_back({trace_->cells_of(t)});
  }
  for (size_t i = 0; i < arrows.size(); ++i) {
    ArrowPath& arrow = arrows[i];
    arrow.label = cell_ranges_label(cells[i]) + (arrow.reduce ? "  +" : "  copy");
    route(arrow);
  }
  return arrows;
}

// Straight between the boxes, offset sideways so both directions of an exchange show; an arc
// around the boxes in between when the line would cross one (not on the circle).
void TeachingCanvas::route(ArrowPath& arrow) const {
  const QRectF a = box_rect(arrow.src), b = box_rect(arrow.dst);
  const QPointF d = b.center() - a.center();
  const double len = std::hypot(d.x(), d.y());
  if (len < 1) return;
  const QPointF normal = QPointF(-d.y(), d.x()) / len;
  const QPointF side = normal * 7;
  arrow.from = exit_point(a, b.center()) + side;
  arrow.to = exit_point(b, a.center()) + side;
  if (layout_.kind == TeachingLayout::Kind::kCircle ||
      !crosses_other_box(arrow.from, arrow.to, arrow.src, arrow.dst))
    return;
  arrow.control = detour(a, b, normal, arrow.src, arrow.dst);
  if (arrow.control) {
    arrow.from = exit_point(a, *arrow.control);
    arrow.to = exit_point(b, *arrow.control);
  }
}

// Labels stay clear of the boxes, the tree key and the legend, inside the drawing above the
// timeline.
std::vector<QRectF> TeachingCanvas::label_rects(const std::vector<ArrowPath>& arrows) const {
  std::vector<QRectF> obstacles;
  for (int r = 0; r < trace_->ranks; ++r) obstacles.push_back(box_rect(r));
  if (layout_.kind == TeachingLayout::Kind::kTree) obstacles.push_back(tree_key_rect());
  const double top = legend_height();
  const QRectF bounds(2, top, logical_width() - 4, logical_height() - timeline_height() - top);
  return place_arrow_labels(arrows, QFontMetricsF(font()), obstacles, bounds);
}

std::vector<QRectF> TeachingCanvas::arrow_label_rects() const {
  if (!trace_ || trace_->frames.empty()) return {};
  const TeachingFrame& frame = trace_->frames[std::clamp(frame_, 0, trace_->steps())];
  if (frame.transfers.empty()) return {};
  const std::vector<ArrowPath> arrows = arrow_paths(frame);
  if (arrows.size() > kMaxLabelledArrows) return {};
  return label_rects(arrows);
}

void TeachingCanvas::paint_arrows(QPainter& p, const TeachingFrame& frame) const {
  using namespace teaching_colors;
  const std::vector<ArrowPath> arrows = arrow_paths(frame);
  for (const ArrowPath& arrow : arrows) {
    p.setPen(QPen(arrow.tree1 ? kTree1 : kInk, 2.2, arrow.reduce ? Qt::SolidLine : Qt::DashLine,
                  Qt::RoundCap));
    p.setBrush(Qt::NoBrush);
    QPainterPath path(arrow.from);
    if (arrow.control)
      path.quadTo(*arrow.control, arrow.to);
    else
      path.lineTo(arrow.to);
    p.drawPath(path);
    draw_arrow_head(p, arrow.at(0.97), arrow.to);  // along the last direction
  }
  if (arrows.size() > kMaxLabelledArrows) return;
  const std::vector<QRectF> labels = label_rects(arrows);
  for (size_t i = 0; i < arrows.size(); ++i) {
    const QColor ink = arrows[i].tree1 ? kTree1 : kInk;
    const QPointF anchor = nearest_on(arrows[i], labels[i].center());
    if (!labels[i].contains(anchor)) {  // pushed off its arrow: a dotted leader joins them
      p.setPen(QPen(ink, 1, Qt::DotLine));
      p.drawLine(labels[i].center(), anchor);
    }
    p.setPen(QPen(ink, 1));
    p.setBrush(arrows[i].reduce ? kReduceStep : kCopyStep);
    p.drawRoundedRect(labels[i], 4, 4);
    p.setPen(kInk);
    p.drawText(labels[i], Qt::AlignCenter, arrows[i].label);
  }
}
}  // namespace commlab::ui
