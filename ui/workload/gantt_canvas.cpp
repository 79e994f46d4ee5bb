#include "gantt_canvas.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "format_util.h"

namespace commlab::ui {

using workload::Node;
using workload::NodeKind;

QColor bar_color(int kind) {
  switch (kind) {
    case kBarCompute: return QColor(0x8a, 0x9b, 0xb4);  // compute: quiet blue-grey
    case 1: return QColor(0xf2, 0x8e, 0x2b);            // TP: orange
    case 2: return QColor(0x3c, 0x9a, 0x4e);            // DP: green
    case 3: return QColor(0x9c, 0x5f, 0xc4);            // PP: violet
    case 4: return QColor(0xd8, 0x3b, 0x4b);            // EP: red
    default: return QColor(0x4a, 0xa8, 0xb8);           // other: teal
  }
}

QColor bar_fill(int kind, bool critical) {
  if (critical) return bar_color(kind);
  const QColor c = bar_color(kind);
  // 45% of the colour over white.
  auto mix = [](int v) { return int(std::lround(255 - 0.45 * (255 - v))); };
  return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
}

GanttCanvas::GanttCanvas(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(200);
  setToolTip("Wheel: zoom about the cursor; drag: pan; double click: whole iteration");
}

void GanttCanvas::set_picture(std::shared_ptr<const WorkloadPicture> picture) {
  const double old_span = pic_ ? pic_->result.iteration_s : -1;
  const bool zoomed = pic_ && (t0_ > 0 || t1_ < old_span);
  pic_ = std::move(picture);
  // A redraw after a setting change shows the whole new iteration unless the user zoomed in.
  if (!zoomed || !pic_) reset_view();
  update();
}

void GanttCanvas::set_view(double t0, double t1) {
  const double span = pic_ && pic_->result.iteration_s > 0 ? pic_->result.iteration_s : 1;
  const double width = std::clamp(t1 - t0, span * 1e-6, span);
  t0_ = std::clamp(t0, 0.0, span - width);
  t1_ = t0_ + width;
  update();
}

void GanttCanvas::reset_view() {
  t0_ = 0;
  t1_ = pic_ && pic_->result.iteration_s > 0 ? pic_->result.iteration_s : 1;
  update();
}

double GanttCanvas::x_of(double t, QSize size) const {
  const double w = std::max(1, size.width() - kLabelWidth - 8);
  return kLabelWidth + (t - t0_) / (t1_ - t0_) * w;
}

namespace {

int lane_count(const WorkloadPicture* pic) {
  return pic ? static_cast<int>(pic->lanes.size()) : 0;
}

int rank_breaks(const WorkloadPicture& pic, int upto) {
  int breaks = 0;
  for (int i = 1; i <= upto && i < static_cast<int>(pic.lanes.size()); ++i)
    breaks += pic.lanes[i].rank != pic.lanes[i - 1].rank;
  return breaks;
}

// Lanes shrink to fit the canvas (a 1280x800 window shows eight ranks of three streams).
double lane_height(const WorkloadPicture& pic, QSize size) {
  const int n = std::max(1, lane_count(&pic));
  const double room =
      size.height() - GanttCanvas::kAxisHeight - 4 - GanttCanvas::kRankGap * rank_breaks(pic, n);
  return std::clamp(room / n, 8.0, double(GanttCanvas::kLaneHeight));
}

}  // namespace

QRectF GanttCanvas::bar_rect(int lane, int bar, QSize size) const {
  const GanttBar& b = pic_->lanes[lane].bars[bar];
  const double h = lane_height(*pic_, size);
  const double top = kAxisHeight + lane * h + kRankGap * rank_breaks(*pic_, lane);
  const double x0 = x_of(b.start_s, size), x1 = x_of(b.end_s, size);
  return QRectF(x0, top + 2, std::max(x1 - x0, 0.0), h - 4);
}

bool GanttCanvas::bar_at(QPointF p, QSize size, int* lane, int* bar) const {
  if (!pic_ || p.x() < kLabelWidth) return false;
  for (int l = 0; l < lane_count(pic_.get()); ++l) {
    const auto& bars = pic_->lanes[l].bars;
    for (int b = 0; b < static_cast<int>(bars.size()); ++b) {
      // Very short nodes still get a 3-pixel target.
      QRectF r = bar_rect(l, b, size);
      if (r.width() < 3) r.adjust(-1.5, 0, 1.5, 0);
      if (r.contains(p)) {
        *lane = l;
        *bar = b;
        return true;
      }
    }
  }
  return false;
}

namespace {

// A communication stream is named by what it carries (a trace's streams have no fixed roles):
// "TP", "DP", "PP send", "PP recv"... when every node on it is of one kind, else "comm N".
QString stream_name(const WorkloadPicture& pic, const GanttLane& l) {
  if (l.stream == workload::kComputeStream) return "compute";
  QString name;
  for (const GanttBar& b : l.bars) {
    const Node& n = pic.graph->ranks[l.rank].nodes[b.node];
    QString k = bar_kind_name(b.kind);
    if (n.kind == workload::NodeKind::kSend) k += " send";
    if (n.kind == workload::NodeKind::kRecv) k += " recv";
    if (name.isEmpty()) name = k;
    if (name != k) name = "mixed";
  }
  return name.isEmpty() || name == "mixed" ? QString("comm %1").arg(l.stream) : name;
}

}  // namespace

QString GanttCanvas::lane_label(int lane) const {
  const GanttLane& l = pic_->lanes[lane];
  const double t = pic_->result.iteration_s;
  QString stream = stream_name(*pic_, l);
  // Two streams of one rank carrying the same kind (a pipeline's forward and backward sends)
  // would read as one lane twice: each adds its stream number ("PP send #2").
  for (const GanttLane& other : pic_->lanes)
    if (&other != &l && other.rank == l.rank && stream_name(*pic_, other) == stream) {
      stream += QString(" #%1").arg(l.stream);
      break;
    }
  return QString("rank %1 %2  %3%")
      .arg(l.rank)
      .arg(stream)
      .arg(t > 0 ? std::round(100 * l.busy_s / t) : 0);
}

QString GanttCanvas::bar_text(int lane, int bar) const {
  const GanttLane& l = pic_->lanes[lane];
  const GanttBar& b = l.bars[bar];
  const Node& n = pic_->graph->ranks[l.rank].nodes[b.node];
  QString what = bar_kind_name(b.kind);
  if (n.kind == NodeKind::kCollective)
    what += QString(" ") + workload::comm_op_name(n.op);
  else if (n.kind != NodeKind::kCompute)
    what += QString(" %1 rank %2")
                .arg(n.kind == NodeKind::kSend ? "send to" : "recv from")
                .arg(n.group_or_peer);
  QString text = QString("<b>%1</b> (node %2, rank %3)<br>%4")
                     .arg(QString::fromStdString(pic_->graph->name_of(n)).toHtmlEscaped())
                     .arg(n.id)
                     .arg(l.rank)
                     .arg(what);
  if (n.kind != NodeKind::kCompute) text += "<br>" + long_bytes(double(n.bytes)) + " per rank";
  text +=
      QString("<br>%1 -> %2 (%3)")
          .arg(seconds_text(b.start_s), seconds_text(b.end_s), seconds_text(b.end_s - b.start_s));
  if (b.start_s > b.ready_s)
    text += "<br>waited " + seconds_text(b.start_s - b.ready_s) + " for peers";
  if (b.critical) text += "<br><i>on the critical path</i>";
  return text;
}

void GanttCanvas::paint_axis(QPainter& p, QSize size) const {
  const double span = t1_ - t0_;
  const double raw = span / std::max(2.0, (size.width() - kLabelWidth) / 110.0);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  p.setPen(QColor(0x55, 0x5b, 0x66));
  const QFontMetrics fm(p.font());
  for (double t = std::ceil(t0_ / step) * step; t <= t1_ + step * 1e-9; t += step) {
    const double x = x_of(t, size);
    p.setPen(QColor(0xe3, 0xe6, 0xeb));
    p.drawLine(QPointF(x, kAxisHeight), QPointF(x, size.height()));
    p.setPen(QColor(0x55, 0x5b, 0x66));
    const QString label = std::abs(t) < step * 1e-6 ? QString("0") : seconds_text(t);
    p.drawText(QPointF(x - fm.horizontalAdvance(label) / 2.0, kAxisHeight - 8), label);
  }
}

void GanttCanvas::paint(QPainter& p, QSize size) const {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  if (!pic_ || pic_->lanes.empty()) {
    p.setPen(Qt::gray);
    p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, "replaying...");
    return;
  }
  p.setRenderHint(QPainter::Antialiasing, false);
  paint_axis(p, size);
  const double h = lane_height(*pic_, size);
  const QRectF plot(kLabelWidth, kAxisHeight, size.width() - kLabelWidth, size.height());
  QFont small = p.font();
  small.setPointSizeF(std::min(small.pointSizeF(), h * 0.45));
  p.setFont(small);
  for (int l = 0; l < lane_count(pic_.get()); ++l) {
    const GanttLane& lane = pic_->lanes[l];
    const double top = kAxisHeight + l * h + kRankGap * rank_breaks(*pic_, l);
    if (l % 2 == 0) p.fillRect(QRectF(0, top, size.width(), h), QColor(0xf6, 0xf7, 0xf9));
    p.setPen(QColor(0x33, 0x38, 0x40));
    p.drawText(QRectF(6, top, kLabelWidth - 10, h), Qt::AlignVCenter | Qt::AlignLeft,
               lane_label(l));
    p.save();
    p.setClipRect(plot);
    // Non-critical bars first, the outlined critical ones on top.
    for (int pass = 0; pass < 2; ++pass) {
      for (int b = 0; b < static_cast<int>(lane.bars.size()); ++b) {
        const GanttBar& bar = lane.bars[b];
        if (bar.critical != (pass == 1) || bar.end_s < t0_ || bar.ready_s > t1_) continue;
        QRectF r = bar_rect(l, b, size);
        if (bar.start_s > bar.ready_s) {  // waiting at the rendezvous
          const double wx = x_of(bar.ready_s, size);
          p.setPen(QPen(bar_color(bar.kind).lighter(130), 1, Qt::DotLine));
          p.drawLine(QPointF(wx, r.center().y()), QPointF(r.left(), r.center().y()));
        }
        if (r.width() < 1) r.setWidth(1);
        p.fillRect(r, bar_fill(bar.kind, bar.critical));
        if (bar.critical && r.width() >= 4) {  // narrower: the full colour says it
          p.setPen(QPen(QColor(0x10, 0x10, 0x10), 1));
          p.drawRect(r.adjusted(0, 0, -1, -1));
        } else if (!bar.critical && r.width() > 4) {
          p.setPen(QPen(Qt::white, 1));
          p.drawLine(r.topLeft(), r.bottomLeft());  // separates back-to-back nodes
        }
      }
    }
    p.restore();
  }
}

void GanttCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint(p, size());
}

void GanttCanvas::wheelEvent(QWheelEvent* event) {
  if (!pic_) return;
  const double x = event->position().x();
  const double w = std::max(1, width() - kLabelWidth - 8);
  const double at = t0_ + std::clamp((x - kLabelWidth) / w, 0.0, 1.0) * (t1_ - t0_);
  const double factor = std::pow(0.8, event->angleDelta().y() / 120.0);
  set_view(at - (at - t0_) * factor, at + (t1_ - at) * factor);
  event->accept();
}

void GanttCanvas::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  dragging_ = true;
  drag_x_ = event->position().x();
  drag_t0_ = t0_;
  setCursor(Qt::ClosedHandCursor);
}

void GanttCanvas::mouseMoveEvent(QMouseEvent* event) {
  if (!dragging_) return;
  const double w = std::max(1, width() - kLabelWidth - 8);
  const double shift = (drag_x_ - event->position().x()) / w * (t1_ - t0_);
  const double span = t1_ - t0_;
  set_view(drag_t0_ + shift, drag_t0_ + shift + span);
}

void GanttCanvas::mouseReleaseEvent(QMouseEvent*) {
  dragging_ = false;
  unsetCursor();
}

void GanttCanvas::mouseDoubleClickEvent(QMouseEvent*) {
  reset_view();
}

bool GanttCanvas::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    int lane = 0, bar = 0;
    if (bar_at(help->pos(), size(), &lane, &bar))
      QToolTip::showText(help->globalPos(), bar_text(lane, bar), this);
    else
      QToolTip::showText(help->globalPos(), toolTip(), this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace commlab::ui
