#include "teaching_canvas.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <optional>

namespace commlab::ui {

namespace {

using namespace teaching_colors;

constexpr double kLegendLineH = 20;  // one line of legend swatches
constexpr double kTimelineH = 82;    // with 26 px step boxes
constexpr double kStepBoxH = 26, kTrimmedStepBoxH = 40;
constexpr double kTitleH = 22;
constexpr double kLabelH = 16;
const QColor kMissing(0xee, 0xee, 0xee);
const QColor kDropped(0xb0, 0x30, 0x30);

// Few ranks get fat stripes; eight still fit on a circle without boxes overlapping.
double stripes_height(int ranks) {
  return ranks <= 4 ? ranks * 11.0 : ranks * 7.0;
}

}  // namespace

QColor rank_color(int rank) {
  // Tableau 10 first (distinct, colour-blind friendlier than the Qt defaults), then Tableau 20's
  // other shades for ranks 8-15: one colour per rank up to the page's 16.
  static const QColor palette[] = {
      QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f),
      QColor(0xe1, 0x57, 0x59), QColor(0xb0, 0x7a, 0xa1), QColor(0x76, 0xb7, 0xb2),
      QColor(0xed, 0xc9, 0x48), QColor(0x9c, 0x75, 0x5f), QColor(0xff, 0x9d, 0xa7),
      QColor(0xba, 0xb0, 0xac), QColor(0xa0, 0xcb, 0xe8), QColor(0x8c, 0xd1, 0x7d),
      QColor(0xd3, 0x72, 0x95), QColor(0x49, 0x98, 0x94), QColor(0xb6, 0x99, 0x2d),
      QColor(0x79, 0x70, 0x6e)};
  return palette[rank % 16];
}

TeachingCanvas::TeachingCanvas(QWidget* parent) : QWidget(parent) {
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  setPalette(pal);
}

void TeachingCanvas::set_trace(std::shared_ptr<const TeachingTrace> trace) {
  trace_ = std::move(trace);
  box_cache_ = {};
  if (trace_)
    layout_ =
        teaching_layout(trace_->settings.algorithm, trace_->ranks, trace_->settings.ranks_per_node);
  frame_ = 0;
  updateGeometry();
  update();
}

void TeachingCanvas::set_zoom(double zoom) {
  zoom_ = std::clamp(zoom, kMinZoom, kMaxZoom);
  updateGeometry();
  update();
}

QSize TeachingCanvas::minimumSizeHint() const {
  constexpr double kMinWidth = 480, kMinHeight = 420;
  // The circle shrinks its boxes down to 90 px wide, enough for 8 GPUs at the minimum size; more
  // GPUs need a longer circle.
  const double circle_scale = trace_ && layout_.kind == TeachingLayout::Kind::kCircle
                                  ? std::max(1.0, trace_->ranks / 8.0)
                                  : 1.0;
  double height = kMinHeight * circle_scale;
  if (trace_ && layout_.kind != TeachingLayout::Kind::kCircle) {  // the circle shrinks its boxes
    const double smallest_box = kTitleH + 2.0 * trace_->ranks + kLabelH + 8;  // see box_size()
    const double node_label = layout_.kind == TeachingLayout::Kind::kNodes ? kLabelH + 4 : 0;
    const double rows = layout_.rows * smallest_box + (layout_.rows - 1) * 4.0;
    height = std::max(height, legend_height(kMinWidth) + node_label + rows + timeline_height() + 4);
  }
  return QSize(static_cast<int>(std::ceil(kMinWidth * circle_scale * zoom_)),
               static_cast<int>(std::ceil(height * zoom_)));
}

void TeachingCanvas::set_frame(int frame) {
  frame_ = frame;
  update();
}

QRectF TeachingCanvas::layout_area() const {
  if (box_cache_.width != logical_width() || box_cache_.height != logical_height())
    refresh_box_cache();
  return box_cache_.area;
}

QRectF TeachingCanvas::compute_layout_area() const {
  const double node_label = layout_.kind == TeachingLayout::Kind::kNodes ? kLabelH + 4 : 0;
  const double top = legend_height();
  return QRectF(10, top + node_label, logical_width() - 20,
                logical_height() - top - timeline_height() - node_label - 4);
}

// Trimming puts a count of trimmed packets under each step's number: taller step boxes.
double TeachingCanvas::step_box_height() const {
  return trace_ && trace_->settings.trim_rate > 0 ? kTrimmedStepBoxH : kStepBoxH;
}

double TeachingCanvas::timeline_height() const {
  return kTimelineH + step_box_height() - kStepBoxH;
}

QFont TeachingCanvas::trimmed_count_font() const {
  QFont f = font();
  f.setPointSizeF(font().pointSizeF() * 0.9);
  f.setBold(true);
  return f;
}

// Box width and stripe height. A layout with rows shrinks the stripes so that every row fits the
// area (rows never overlap; boxes of one row are apart by box_columns). The circle starts from its
// comfortable size and shrinks both until no two boxes meet (8 GPUs at the minimum size).
void TeachingCanvas::refresh_box_cache() const {
  if (box_cache_.width == logical_width() && box_cache_.height == logical_height()) return;
  box_cache_.width = logical_width();
  box_cache_.height = logical_height();
  box_cache_.area = compute_layout_area();
  box_cache_.size = compute_box_size();  // uses the area just cached
}

TeachingCanvas::BoxSize TeachingCanvas::box_size() const {
  refresh_box_cache();
  return box_cache_.size;
}

TeachingCanvas::BoxSize TeachingCanvas::compute_box_size() const {
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

std::vector<TeachingLegendEntry> TeachingCanvas::legend_entries(double width) const {
  std::vector<TeachingLegendEntry> out;
  if (!trace_) return out;
  const QFontMetricsF fm(font());
  const double right = width - 10;
  double x = 10, y = 8;
  auto add = [&](const QBrush& brush, const QString& text, bool heading = false) {
    const double swatch_w = heading ? 0 : 19;
    const double w = swatch_w + fm.horizontalAdvance(text);
    if (x > 10 && x + w > right) x = 10, y += kLegendLineH;  // wrap
    TeachingLegendEntry e;
    if (!heading) e.swatch = QRectF(x, y, 14, 14);
    e.text_rect =
        QRectF(x + swatch_w, y + 7 - fm.height() / 2, fm.horizontalAdvance(text), fm.height());
    e.brush = brush;
    e.text = text;
    out.push_back(e);
    x += w + (heading ? 10 : 16);
  };
  add(Qt::NoBrush, "contains data of:", true);
  for (int r = 0; r < trace_->ranks; ++r) add(rank_color(r), QString("rank %1").arg(r));
  add(kMissing, "not yet");
  // Only what can happen in this trace: SkipReduce drops only when it skipped something.
  if (trace_->skipped_steps > 0) add(QBrush(kDropped, Qt::BDiagPattern), "dropped by SkipReduce");
  if (trace_->settings.trim_rate > 0)
    add(QBrush(kTrimmed, Qt::DiagCrossPattern), "approximate (trimmed)");
  return out;
}

double TeachingCanvas::legend_height(double width) const {
  const std::vector<TeachingLegendEntry> entries = legend_entries(width);
  return entries.empty() ? kLegendLineH + 10 : entries.back().text_rect.center().y() + 15;
}

// Tree: the two trees' key, top left of the layout area.
QRectF TeachingCanvas::tree_key_rect() const {
  const QFontMetricsF fm(font());
  const QRectF area = layout_area();
  const QString longest = QString("tree 1 (mirror): second half, root GPU %1").arg(trace_->ranks);
  return QRectF(area.left(), area.top() + 2, 30 + fm.horizontalAdvance(longest),
                2 * (fm.height() + 4) + 4);
}

void TeachingCanvas::paint_legend(QPainter& p) const {
  for (const TeachingLegendEntry& e : legend_entries()) {
    if (!e.swatch.isNull()) {
      p.setPen(QPen(kInk, 0.8));
      p.setBrush(e.brush);
      p.drawRect(e.swatch);
    }
    p.setPen(kInk);
    p.drawText(e.text_rect, Qt::AlignLeft | Qt::AlignVCenter, e.text);
  }
  if (layout_.kind != TeachingLayout::Kind::kTree) return;
  const QFontMetricsF fm(font());
  const QRectF key = tree_key_rect();
  const QString keys[2] = {
      "tree 0: first half, root GPU 0",
      QString("tree 1 (mirror): second half, root GPU %1").arg(trace_->ranks - 1)};
  for (int t = 0; t < 2; ++t) {
    const double y0 = key.top() + 8 + t * (fm.height() + 4);
    p.setPen(QPen(t == 0 ? kInk : kTree1, 2.2));
    p.drawLine(QPointF(key.left(), y0), QPointF(key.left() + 24, y0));
    p.setPen(kInk);
    p.drawText(QPointF(key.left() + 30, y0 + fm.ascent() / 2.0 - 1), keys[t]);
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
        p.fillRect(s, QBrush(kDropped, Qt::BDiagPattern));
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

void TeachingCanvas::paint_timeline(QPainter& p) const {
  const int ghosts = trace_->skipped_steps;
  const int total = ghosts + trace_->steps();
  const double top = logical_height() - timeline_height() + 8, box_h = step_box_height();
  QFontMetrics fm(font());
  const double label_w = fm.horizontalAdvance("steps") + 20;
  const double w = std::min(56.0, (logical_width() - label_w - 20) / std::max(total, 1));
  p.setPen(kInk);
  p.drawText(QPointF(10, top + 20), "steps");
  for (int i = 0; i < total; ++i) {
    QRectF r(label_w + i * w, top + 4, w - 4, box_h);
    if (i < ghosts) {
      p.setPen(QPen(QColor(0x99, 0x99, 0x99), 1, Qt::DashLine));
      p.setBrush(QBrush(kDropped, Qt::BDiagPattern));
      p.drawRect(r);
      p.setPen(QColor(0x80, 0x20, 0x20));
      p.drawText(r.translated(0, box_h), Qt::AlignHCenter | Qt::AlignTop, "skip");
      continue;
    }
    const int f = i - ghosts + 1;
    const TeachingFrame& fr = trace_->frames[f];
    bool reduce = !fr.transfers.empty() && fr.transfers.front().reduce;
    p.setBrush(reduce ? kReduceStep : kCopyStep);
    p.setPen(f == frame_ ? QPen(Qt::black, 2.6) : QPen(QColor(0x99, 0x99, 0x99), 1));
    p.drawRect(r);
    p.setPen(kInk);
    p.drawText(r.adjusted(0, 2, 0, -(box_h - kStepBoxH)), Qt::AlignHCenter | Qt::AlignVCenter,
               QString::number(f));
    if (trace_->settings.trim_rate > 0) {  // this step's trimmed packets, under its number
      p.setFont(trimmed_count_font());
      p.setPen(kTrimmed.darker(130));
      p.drawText(r.adjusted(0, 0, 0, -2), Qt::AlignHCenter | Qt::AlignBottom,
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
    p.drawText(QPointF(x, top + box_h + 20 + line * (fm.height() - 1)), phase);
  }
}

}  // namespace commlab::ui
