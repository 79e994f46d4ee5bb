#include "teaching_canvas.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <optional>

namespace commlab::ui {

namespace {

constexpr double kLegendH = 30;
constexpr double kTimelineH = 82;
constexpr double kTitleH = 22;
constexpr double kLabelH = 16;
const QColor kMissing(0xee, 0xee, 0xee);
const QColor kInk(0x33, 0x33, 0x33);
const QColor kReduceStep(0xfd, 0xd9, 0xb5);
const QColor kCopyStep(0xc6, 0xdb, 0xef);
const QColor kTrimmed(0xe0, 0x7b, 0x00);
const QColor kTree1(0x7b, 0x3f, 0x9e);

// Few ranks get fat stripes; eight still fit on a circle without boxes overlapping.
double stripes_height(int ranks) {
  return ranks <= 4 ? ranks * 11.0 : ranks * 7.0;
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

void draw_arrow(QPainter& p, QPointF a, QPointF b) {
  p.drawLine(a, b);
  QPointF d = b - a;
  double len = std::hypot(d.x(), d.y());
  if (len < 1) return;
  QPointF u = d / len, n(-u.y(), u.x());
  QPolygonF head;
  head << b << b - u * 11 + n * 5 << b - u * 11 - n * 5;
  p.save();
  p.setBrush(p.pen().color());
  p.setPen(Qt::NoPen);
  p.drawPolygon(head);
  p.restore();
}

}  // namespace

QColor rank_color(int rank) {
  // Tableau 10: distinct, colour-blind friendlier than the Qt defaults.
  static const QColor palette[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b),
                                   QColor(0x59, 0xa1, 0x4f), QColor(0xe1, 0x57, 0x59),
                                   QColor(0xb0, 0x7a, 0xa1), QColor(0x76, 0xb7, 0xb2),
                                   QColor(0xed, 0xc9, 0x48), QColor(0x9c, 0x75, 0x5f)};
  return palette[rank % 8];
}

TeachingCanvas::TeachingCanvas(QWidget* parent) : QWidget(parent) {
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  setPalette(pal);
}

void TeachingCanvas::set_trace(std::shared_ptr<const TeachingTrace> trace) {
  trace_ = std::move(trace);
  if (trace_)
    layout_ =
        teaching_layout(trace_->settings.algorithm, trace_->ranks, trace_->settings.ranks_per_node);
  frame_ = 0;
  update();
}

void TeachingCanvas::set_zoom(double zoom) {
  zoom_ = std::clamp(zoom, kMinZoom, kMaxZoom);
  update();
}

void TeachingCanvas::set_frame(int frame) {
  frame_ = frame;
  update();
}

QRectF TeachingCanvas::layout_area() const {
  const double node_label = layout_.kind == TeachingLayout::Kind::kNodes ? kLabelH + 4 : 0;
  return QRectF(10, kLegendH + node_label, logical_width() - 20,
                logical_height() - kLegendH - kTimelineH - node_label - 4);
}

// Box width and stripe height. A layout with rows shrinks the stripes so that every row fits the
// area (rows never overlap; boxes of one row are apart by box_columns). The circle starts from its
// comfortable size and shrinks both until no two boxes meet (8 GPUs at the minimum size).
TeachingCanvas::BoxSize TeachingCanvas::box_size() const {
  const int n = trace_->ranks;
  const QRectF area = layout_area();
  if (layout_.kind == TeachingLayout::Kind::kCircle) {
    BoxSize size{std::clamp(logical_width() * (n <= 4 ? 0.3 : 0.22), 150.0, 340.0),
                 stripes_height(n)};
    for (int shrink = 0; shrink < 40 && overlapping(size); ++shrink)
      size = {std::max(90.0, size.width * 0.96), std::max(2.0 * n, size.stripes * 0.92)};
    return size;
  }
  BoxSize size{0, stripes_height(n)};
  if (layout_.rows > 1) {
    constexpr double kGap = 10;
    const double fit = (area.height() - kGap * (layout_.rows - 1)) / layout_.rows;
    size.stripes = std::clamp(fit - kTitleH - kLabelH - 8, 2.0 * n, stripes_height(n));
  }
  // Nodes leave room between their columns for the arcs that close each node's ring.
  const double widest = layout_.kind == TeachingLayout::Kind::kNodes ? 240.0 : 340.0;
  if (layout_.columns <= 1) {
    size.width = std::min(widest, area.width() * 0.5);
  } else {
    // Centres (area - w) / (columns - 1) apart; a box spans at most 90% of box_columns of them.
    const double k = 0.9 * layout_.box_columns;
    size.width = std::min(widest, k * area.width() / (layout_.columns - 1 + k));
  }
  return size;
}

QRectF TeachingCanvas::box_at(int rank, BoxSize size) const {
  const double w = size.width, h = kTitleH + size.stripes + kLabelH + 8;
  const QRectF area = layout_area();
  auto centre = [](double at, double units, double lo, double extent, double box) {
    return lo + box / 2 + (units > 1 ? at / (units - 1) : 0.5) * (extent - box);
  };
  const double cx = centre(layout_.column[rank], layout_.columns, area.left(), area.width(), w);
  const double cy = centre(layout_.row[rank], layout_.rows, area.top(), area.height(), h);
  return QRectF(cx - w / 2, cy - h / 2, w, h);
}

bool TeachingCanvas::overlapping(BoxSize size) const {
  for (int a = 0; a < trace_->ranks; ++a)
    for (int b = a + 1; b < trace_->ranks; ++b)
      if (box_at(a, size).adjusted(-2, -2, 2, 2).intersects(box_at(b, size))) return true;
  return false;
}

double TeachingCanvas::stripes_h() const {
  return box_size().stripes;
}

QRectF TeachingCanvas::box_rect(int rank) const {
  return box_at(rank, box_size());
}

QRectF TeachingCanvas::cell_rect(const QRectF& box, int cell) const {
  const double x0 = box.left() + 8, width = box.width() - 16;
  const double cw = width / trace_->cells();
  return QRectF(x0 + cell * cw, box.top() + kTitleH, cw, stripes_h());
}

void TeachingCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.scale(zoom_, zoom_);  // presentation zoom: every length and font below is logical
  if (!trace_ || trace_->frames.empty()) {
    p.drawText(rect(), Qt::AlignCenter, "computing...");
    return;
  }
  const TeachingFrame& frame = trace_->frames[std::clamp(frame_, 0, trace_->steps())];
  paint_legend(p);
  paint_nodes(p);
  for (int r = 0; r < trace_->ranks; ++r) paint_box(p, r, frame);
  paint_arrows(p, frame);
  paint_timeline(p);
}

void TeachingCanvas::paint_legend(QPainter& p) const {
  QFont f = font();
  p.setFont(f);
  QFontMetrics fm(f);
  double x = 10, y = 8;
  auto swatch = [&](const QBrush& brush, const QString& text) {
    p.setPen(QPen(kInk, 0.8));
    p.setBrush(brush);
    p.drawRect(QRectF(x, y, 14, 14));
    p.setPen(kInk);
    p.drawText(QPointF(x + 19, y + 12), text);
    x += 19 + fm.horizontalAdvance(text) + 16;
  };
  p.setPen(kInk);
  p.drawText(QPointF(x, y + 12), "contains data of:");
  x += fm.horizontalAdvance("contains data of:") + 10;
  for (int r = 0; r < trace_->ranks; ++r) swatch(rank_color(r), QString("rank %1").arg(r));
  swatch(kMissing, "not yet");
  QBrush hatch(QColor(0xb0, 0x30, 0x30), Qt::BDiagPattern);
  swatch(hatch, "dropped by SkipReduce");
  if (trace_->settings.trim_rate > 0)
    swatch(QBrush(kTrimmed, Qt::DiagCrossPattern), "approximate (trimmed)");
  if (layout_.kind == TeachingLayout::Kind::kTree) {  // the two trees' key, top left of the area
    const QRectF area = layout_area();
    const QString keys[2] = {
        "tree 0: first half, root GPU 0",
        QString("tree 1 (mirror): second half, root GPU %1").arg(trace_->ranks - 1)};
    for (int t = 0; t < 2; ++t) {
      const double y0 = area.top() + 10 + t * (fm.height() + 4);
      p.setPen(QPen(t == 0 ? kInk : kTree1, 2.2));
      p.drawLine(QPointF(area.left(), y0), QPointF(area.left() + 24, y0));
      p.setPen(kInk);
      p.drawText(QPointF(area.left() + 30, y0 + fm.ascent() / 2.0 - 1), keys[t]);
    }
  }
}

void TeachingCanvas::paint_nodes(QPainter& p) const {
  for (size_t k = 0; k < layout_.nodes.size(); ++k) {
    QRectF frame;
    for (int r : layout_.nodes[k]) frame = frame.isNull() ? box_rect(r) : frame.united(box_rect(r));
    frame.adjust(-6, -kLabelH - 2, 6, 5);
    p.setPen(QPen(QColor(0x88, 0x88, 0x88), 1.2, Qt::DashLine));
    p.setBrush(QColor(0xf2, 0xf5, 0xf9));
    p.drawRoundedRect(frame, 8, 8);
    p.setPen(kInk);
    p.drawText(frame.adjusted(8, 1, 0, 0), Qt::AlignLeft | Qt::AlignTop, QString("node %1").arg(k));
  }
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
                                              const Transfer& t) const {
  const QPointF middle = (a.center() + b.center()) / 2;
  for (double bow : {1.0, 1.8, 2.6, 3.6, 5.0, 7.0})
    for (double sign : {1.0, -1.0}) {
      const QPointF control = middle + normal * sign * (bow * a.height() + 28);
      if (!QRectF(0, 0, logical_width(), logical_height()).contains(control)) continue;
      if (!crosses_other_box(exit_point(a, control), exit_point(b, control), t.src, t.dst, control))
        return control;
    }
  return std::nullopt;
}

void TeachingCanvas::paint_box(QPainter& p, int rank, const TeachingFrame& frame) const {
  const QRectF box = box_rect(rank);
  const int n = trace_->ranks;
  p.setPen(QPen(QColor(0x99, 0x99, 0x99), 1));
  p.setBrush(QColor(0xfa, 0xfa, 0xfa));
  p.drawRoundedRect(box, 6, 6);
  // Title with the rank's own colour chip.
  p.setBrush(rank_color(rank));
  p.setPen(Qt::NoPen);
  p.drawEllipse(QRectF(box.left() + 8, box.top() + 6, 11, 11));
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(kInk);
  p.drawText(QPointF(box.left() + 24, box.top() + 16), QString("GPU %1").arg(rank));
  p.setFont(font());

  const double stripe = stripes_h() / n;
  for (int c = 0; c < trace_->cells(); ++c) {
    const QRectF cell = cell_rect(box, c);
    const uint32_t mask = frame.masks[rank][c];
    for (int k = 0; k < n; ++k) {
      QRectF s(cell.left(), cell.top() + k * stripe, cell.width(), stripe);
      bool has = mask & (1u << k);
      p.fillRect(s, has ? rank_color(k) : kMissing);
      if (!has && (trace_->dropped_mask[c] & (1u << k)))
        p.fillRect(s, QBrush(QColor(0xb0, 0x30, 0x30), Qt::BDiagPattern));
    }
    // Trimming: the cell's values came (partly) from trimmed packets and are now approximate.
    if (!frame.error.empty() && frame.error[rank][c] > 0)
      p.fillRect(cell, QBrush(kTrimmed, Qt::DiagCrossPattern));
    p.setPen(QPen(Qt::white, 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(cell);
    if (trace_->cells() <= 16) {
      p.setPen(QColor(0x66, 0x66, 0x66));
      QFont small = font();
      small.setPointSizeF(font().pointSizeF() * 0.85);
      p.setFont(small);
      p.drawText(QRectF(cell.left(), cell.bottom() + 1, cell.width(), kLabelH), Qt::AlignCenter,
                 QString("c%1").arg(c));
      p.setFont(font());
    }
  }
  // Outline the cells this rank sends (dashed) and receives (solid) in this step.
  for (const Transfer& t : frame.transfers) {
    if (t.src != rank && t.dst != rank) continue;
    auto [first, last] = trace_->cells_of(t);
    QRectF r = cell_rect(box, first).united(cell_rect(box, last)).adjusted(-1, -1, 1, 1);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(Qt::black, 2.2, t.dst == rank ? Qt::SolidLine : Qt::DashLine));
    p.drawRect(r);
  }
}

void TeachingCanvas::paint_arrows(QPainter& p, const TeachingFrame& frame) const {
  const bool labels = frame.transfers.size() <= 12;
  const bool circle = layout_.kind == TeachingLayout::Kind::kCircle;
  for (const Transfer& t : frame.transfers) {
    QRectF a = box_rect(t.src), b = box_rect(t.dst);
    QPointF d = b.center() - a.center();
    double len = std::hypot(d.x(), d.y());
    if (len < 1) continue;
    // Offset sideways so the two directions of an exchange are both visible.
    QPointF normal = QPointF(-d.y(), d.x()) / len;
    QPointF side = normal * 7;
    QPointF from = exit_point(a, b.center()) + side, to = exit_point(b, a.center()) + side;
    // Tree: tree 1 carries the buffer's second half (collective/tree.cpp); an edge can be in both.
    const bool tree1 = layout_.kind == TeachingLayout::Kind::kTree && t.offset >= trace_->count / 2;
    const QColor ink = tree1 ? kTree1 : kInk;
    p.setPen(QPen(ink, 2.2, t.reduce ? Qt::SolidLine : Qt::DashLine, Qt::RoundCap));
    QPointF mid = (from + to) / 2 + side * 1.6;
    std::optional<QPointF> control;
    if (!circle && crosses_other_box(from, to, t.src, t.dst)) control = detour(a, b, normal, t);
    if (control) {
      // Around the boxes in between: a quadratic arc (each direction of an exchange prefers its
      // own side).
      from = exit_point(a, *control);
      to = exit_point(b, *control);
      QPainterPath arc(from);
      arc.quadTo(*control, to);
      p.save();
      p.setBrush(Qt::NoBrush);
      p.drawPath(arc);
      p.restore();
      const QPointF back = to - *control;
      const QPointF tip = to - back * (4 / std::max(4.0, std::hypot(back.x(), back.y())));
      draw_arrow(p, tip, to);  // the head, along the arc's last direction
      mid = 0.25 * from + 0.5 * *control + 0.25 * to;
    } else {
      draw_arrow(p, from, to);
    }
    if (!labels) continue;
    auto [first, last] = trace_->cells_of(t);
    QString text =
        (first == last ? QString("c%1").arg(first) : QString("c%1-%2").arg(first).arg(last)) +
        (t.reduce ? "  +" : "  copy");
    QFontMetrics fm(font());
    QRectF lr(mid.x() - fm.horizontalAdvance(text) / 2.0 - 5, mid.y() - fm.height() / 2.0 - 2,
              fm.horizontalAdvance(text) + 10, fm.height() + 4);
    p.setPen(QPen(ink, 1));
    p.setBrush(t.reduce ? kReduceStep : kCopyStep);
    p.drawRoundedRect(lr, 4, 4);
    p.setPen(kInk);
    p.drawText(lr, Qt::AlignCenter, text);
  }
}

void TeachingCanvas::paint_timeline(QPainter& p) const {
  const int ghosts = trace_->skipped_steps;
  const int total = ghosts + trace_->steps();
  const double top = logical_height() - kTimelineH + 8;
  QFontMetrics fm(font());
  const double label_w = fm.horizontalAdvance("steps") + 20;
  const double w = std::min(56.0, (logical_width() - label_w - 20) / std::max(total, 1));
  p.setPen(kInk);
  p.drawText(QPointF(10, top + 20), "steps");
  for (int i = 0; i < total; ++i) {
    QRectF r(label_w + i * w, top + 4, w - 4, 26);
    if (i < ghosts) {
      p.setPen(QPen(QColor(0x99, 0x99, 0x99), 1, Qt::DashLine));
      p.setBrush(QBrush(QColor(0xb0, 0x30, 0x30), Qt::BDiagPattern));
      p.drawRect(r);
      p.setPen(QColor(0x80, 0x20, 0x20));
      p.drawText(r.translated(0, 26), Qt::AlignHCenter | Qt::AlignTop, "skip");
      continue;
    }
    const int f = i - ghosts + 1;
    const TeachingFrame& fr = trace_->frames[f];
    bool reduce = !fr.transfers.empty() && fr.transfers.front().reduce;
    p.setBrush(reduce ? kReduceStep : kCopyStep);
    p.setPen(f == frame_ ? QPen(Qt::black, 2.6) : QPen(QColor(0x99, 0x99, 0x99), 1));
    p.drawRect(r);
    p.setPen(kInk);
    p.drawText(r, Qt::AlignCenter, QString::number(f));
    if (fr.trimmed > 0) {  // packets of this step arrived trimmed: a small count in the corner
      QFont small = font();
      small.setPointSizeF(font().pointSizeF() * 0.75);
      p.setFont(small);
      p.setPen(QColor(0xc0, 0x60, 0x00));
      p.drawText(r.adjusted(0, 0, -3, 0), Qt::AlignRight | Qt::AlignBottom,
                 QString("\u2702%1").arg(fr.trimmed));
      p.setFont(font());
    }
  }
  // Phase names under the first step of each phase; a name that would run into an earlier one
  // goes to the first line where it fits (hier's one-step phases need three).
  QString last;
  double line_end[3] = {-1e9, -1e9, -1e9};
  for (int f = 1; f <= trace_->steps(); ++f) {
    QString phase = QString::fromStdString(trace_->frames[f].phase);
    if (phase == last) continue;
    last = phase;
    const double x = label_w + (ghosts + f - 1) * w;
    int line = 0;
    while (line < 2 && x < line_end[line] + 8) ++line;
    line_end[line] = x + fm.horizontalAdvance(phase);
    p.setPen(QColor(0x55, 0x55, 0x55));
    p.drawText(QPointF(x, top + 46 + line * (fm.height() - 1)), phase);
  }
}

}  // namespace commlab::ui
