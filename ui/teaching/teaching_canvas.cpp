#include "teaching_canvas.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace commlab::ui {

namespace {

constexpr double kLegendH = 30;
constexpr double kTimelineH = 58;
constexpr double kTitleH = 22;
constexpr double kLabelH = 16;
const QColor kMissing(0xee, 0xee, 0xee);
const QColor kInk(0x33, 0x33, 0x33);
const QColor kReduceStep(0xfd, 0xd9, 0xb5);
const QColor kCopyStep(0xc6, 0xdb, 0xef);
const QColor kTrimmed(0xe0, 0x7b, 0x00);

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
  frame_ = 0;
  update();
}

void TeachingCanvas::set_frame(int frame) {
  frame_ = frame;
  update();
}

QRectF TeachingCanvas::box_rect(int rank) const {
  const int n = trace_->ranks;
  const double w = std::clamp(width() * (n <= 4 ? 0.3 : 0.22), 150.0, 340.0);
  const double h = kTitleH + stripes_height(n) + kLabelH + 8;
  const QRectF area(0, kLegendH, width(), height() - kLegendH - kTimelineH);
  const double rx = std::max(0.0, (area.width() - w) / 2 - 8);
  const double ry = std::max(0.0, (area.height() - h) / 2 - 6);
  const double angle = -M_PI / 2 + 2 * M_PI * rank / n;  // rank 0 on top, clockwise
  QPointF c = area.center() + QPointF(rx * std::cos(angle), ry * std::sin(angle));
  return QRectF(c.x() - w / 2, c.y() - h / 2, w, h);
}

QRectF TeachingCanvas::cell_rect(const QRectF& box, int cell) const {
  const double x0 = box.left() + 8, width = box.width() - 16;
  const double cw = width / trace_->cells();
  return QRectF(x0 + cell * cw, box.top() + kTitleH, cw, stripes_height(trace_->ranks));
}

void TeachingCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  if (!trace_ || trace_->frames.empty()) {
    p.drawText(rect(), Qt::AlignCenter, "computing...");
    return;
  }
  const TeachingFrame& frame = trace_->frames[std::clamp(frame_, 0, trace_->steps())];
  paint_legend(p);
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

  const double stripe = stripes_height(n) / n;
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
  for (const Transfer& t : frame.transfers) {
    QRectF a = box_rect(t.src), b = box_rect(t.dst);
    QPointF d = b.center() - a.center();
    double len = std::hypot(d.x(), d.y());
    if (len < 1) continue;
    // Offset sideways so the two directions of an exchange are both visible.
    QPointF side = QPointF(-d.y(), d.x()) / len * 7;
    QPointF from = exit_point(a, b.center()) + side, to = exit_point(b, a.center()) + side;
    p.setPen(QPen(kInk, 2.2, t.reduce ? Qt::SolidLine : Qt::DashLine, Qt::RoundCap));
    draw_arrow(p, from, to);
    if (!labels) continue;
    auto [first, last] = trace_->cells_of(t);
    QString text =
        (first == last ? QString("c%1").arg(first) : QString("c%1-%2").arg(first).arg(last)) +
        (t.reduce ? "  +" : "  copy");
    QFontMetrics fm(font());
    QPointF mid = (from + to) / 2 + side * 1.6;
    QRectF lr(mid.x() - fm.horizontalAdvance(text) / 2.0 - 5, mid.y() - fm.height() / 2.0 - 2,
              fm.horizontalAdvance(text) + 10, fm.height() + 4);
    p.setPen(QPen(kInk, 1));
    p.setBrush(t.reduce ? kReduceStep : kCopyStep);
    p.drawRoundedRect(lr, 4, 4);
    p.drawText(lr, Qt::AlignCenter, text);
  }
}

void TeachingCanvas::paint_timeline(QPainter& p) const {
  const int ghosts = trace_->skipped_steps;
  const int total = ghosts + trace_->steps();
  const double top = height() - kTimelineH + 8;
  QFontMetrics fm(font());
  const double label_w = fm.horizontalAdvance("steps") + 20;
  const double w = std::min(56.0, (width() - label_w - 20) / std::max(total, 1));
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
  // Phase names under the first step of each phase.
  QString last;
  for (int f = 1; f <= trace_->steps(); ++f) {
    QString phase = QString::fromStdString(trace_->frames[f].phase);
    if (phase == last) continue;
    last = phase;
    p.setPen(QColor(0x55, 0x55, 0x55));
    p.drawText(QPointF(label_w + (ghosts + f - 1) * w, top + 46), phase);
  }
}

}  // namespace commlab::ui
