// The topology view's link items: the line (coloured by utilisation), and on the packet backend a
// queue bar at each direction's sending end and trim / drop markers with counts; the hover text
// and the CSV export of the same numbers.
#include <QGraphicsEllipseItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QPainterPathStroker>
#include <cmath>

#include "format_util.h"
#include "topology_view.h"

namespace commlab::ui {

namespace {

// A link line that is easy to hover (8 px wide shape) and thickens under the mouse.
class EdgeItem : public QGraphicsPathItem {
 public:
  EdgeItem(const QPainterPath& path, QPen pen) : QGraphicsPathItem(path), pen_(pen) {
    setPen(pen);
    setAcceptHoverEvents(true);
  }
  QPainterPath shape() const override {
    QPainterPathStroker stroker;
    stroker.setWidth(std::max(8.0, pen_.widthF() + 4));
    return stroker.createStroke(path());
  }

 protected:
  void hoverEnterEvent(QGraphicsSceneHoverEvent*) override {
    QPen wide = pen_;
    wide.setWidthF(pen_.widthF() + 3);
    setPen(wide);
    setZValue(2);
  }
  void hoverLeaveEvent(QGraphicsSceneHoverEvent*) override {
    setPen(pen_);
    setZValue(0);
  }

 private:
  QPen pen_;
};

bool packet(const TopologyPicture& pic) {
  return pic.settings.backend == "packet";
}

// 950 -> "950", 1530 -> "1.5k", 2.4e6 -> "2.4M"
QString count_text(uint64_t n) {
  if (n < 1000) return QString::number(n);
  if (n < 1000000) return QString::number(n / 1e3, 'g', 2) + "k";
  return QString::number(n / 1e6, 'g', 2) + "M";
}

QString edge_tooltip(const TopologyPicture& pic, const TopoEdge& e) {
  const TopoBox& a = pic.boxes[e.a];
  const TopoBox& b = pic.boxes[e.b];
  auto name = [](const TopoBox& box) {
    return QString::fromStdString(box.tooltip.empty() ? box.label : box.tooltip);
  };
  QString text = QString("<b>%1 \u2194 %2</b>").arg(name(a), name(b));
  if (e.links > 2) text += QString("<br>%1 links folded into this line").arg(e.links);
  const char* arrows[] = {"\u2192", "\u2190"};
  for (int d = 0; d < 2; ++d) {
    if (e.bandwidth_Bps[d] <= 0) continue;
    text += QString("<br>%1 %2, carries %3 in this step: <b>%4%</b> busy")
                .arg(arrows[d], rate_text(e.bandwidth_Bps[d]), long_bytes(e.bytes[d]))
                .arg(e.utilisation[d] * 100, 0, 'f', 1);
    if (!packet(pic)) continue;
    const QString queue =
        e.queue_capacity_bytes[d] > 0
            ? QString("queue max %1 of %2")
                  .arg(long_bytes(e.queue_bytes[d]), long_bytes(e.queue_capacity_bytes[d]))
            : QString("host-side queue max %1").arg(long_bytes(e.queue_bytes[d]));
    text += QString("<br>&nbsp;&nbsp;&nbsp;%1, <b>%2</b> trims, <b>%3</b> drops")
                .arg(queue)
                .arg(e.trims[d])
                .arg(e.drops[d]);
  }
  text += QString("<br>latency %1").arg(seconds_text(e.latency_s));
  if (e.links > 2)
    text += QString("<br>busiest member link %1%").arg(e.max_link_utilisation * 100, 0, 'f', 1);
  return text;
}

// Point at fraction t along the path, pushed `side` px to the left of its direction.
QPointF along(const QPainterPath& path, double t, double side) {
  const double angle = path.angleAtPercent(t) * M_PI / 180;  // counter-clockwise, y up
  return path.pointAtPercent(t) + QPointF(-std::sin(angle), -std::cos(angle)) * side;
}

void add_marker(QGraphicsScene* scene, const QPointF& at, const QString& text, QColor fill,
                const QString& kind, const QString& tooltip, const QFont& font) {
  auto* label = new QGraphicsSimpleTextItem(text);
  label->setFont(font);
  const QRectF tr = label->boundingRect();
  const double r = std::max(6.0, tr.width() / 2 + 3);
  auto* dot = scene->addEllipse(QRectF(at.x() - r, at.y() - 6.5, 2 * r, 13),
                                QPen(fill.darker(140), 0.8), fill);
  dot->setZValue(4);
  dot->setData(0, kind);
  dot->setToolTip(tooltip);
  label->setParentItem(dot);
  label->setBrush(Qt::white);
  label->setPos(at - tr.center());
}

}  // namespace

void TopologyView::add_edge_items(const TopologyPicture& pic, const TopoEdge& e) {
  const TopoBox& a = pic.boxes[e.a];
  const TopoBox& b = pic.boxes[e.b];
  // Attach to the facing sides: the top of the lower box, the bottom of the upper one.
  QPointF pa(a.x + a.w / 2, a.y + (a.y < b.y ? a.h : 0));
  QPointF pb(b.x + b.w / 2, b.y + (b.y < a.y ? b.h : 0));
  QPainterPath path(pa);
  if (std::abs(a.y - b.y) < 1) {  // same row (torus, in-box): bow the line below the row
    pa.setY(a.y + a.h);
    pb.setY(b.y + b.h);
    path = QPainterPath(pa);
    const double bow = 12 + 0.15 * std::abs(pb.x() - pa.x());
    path.quadTo((pa + pb) / 2 + QPointF(0, bow), pb);
  } else {
    path.lineTo(pb);
  }
  const double bw = std::max(e.bandwidth_Bps[0], e.bandwidth_Bps[1]);
  const double width = std::clamp(0.6 * std::log2(std::max(bw / 1e9, 1.0)) + 0.8, 1.0, 6.0);
  QPen pen(utilisation_color(e.peak()), width, Qt::SolidLine, Qt::RoundCap);
  auto* item = new EdgeItem(path, pen);
  const QString tooltip = edge_tooltip(pic, e);
  item->setToolTip(tooltip);
  scene_->addItem(item);
  if (!packet(pic)) return;

  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.7);
  small.setBold(true);
  for (int d = 0; d < 2; ++d) {
    // Direction 0 runs a -> b along the path, direction 1 back; each keeps to its own side.
    auto at = [&](double t, double side) {
      return along(path, d == 0 ? t : 1 - t, d == 0 ? side : -side);
    };
    const double side = width / 2 + 3;
    if (e.queue_capacity_bytes[d] > 0 && e.queue_bytes[d] > 0) {
      // Queue bar from the sending end: up to 35% of the line at a full buffer.
      const double fill = std::clamp(e.queue_bytes[d] / e.queue_capacity_bytes[d], 0.0, 1.0);
      QPainterPath bar(at(0.04, side));
      bar.lineTo(at(0.04 + 0.35 * std::max(fill, 0.03), side));
      auto* q =
          scene_->addPath(bar, QPen(QColor::fromHsvF(0.78, 0.25 + 0.7 * fill, 0.85 - 0.35 * fill),
                                    4, Qt::SolidLine, Qt::FlatCap));
      q->setZValue(1.5);
      q->setData(0, "queue");
      q->setToolTip(tooltip);
    }
    double t = 0.45;
    if (e.trims[d] > 0) {
      add_marker(scene_, at(t, side + 5), count_text(e.trims[d]), QColor(0xe6, 0x7e, 0x00), "trims",
                 tooltip, small);
      t += 0.12;
    }
    if (e.drops[d] > 0)
      add_marker(scene_, at(t, side + 5), count_text(e.drops[d]), QColor(0xc6, 0x28, 0x28), "drops",
                 tooltip, small);
  }
}

CsvTable TopologyView::export_data() const {
  CsvTable table{
      {"from", "to", "links", "bandwidth_fwd_Bps", "bandwidth_back_Bps", "bytes_fwd", "bytes_back",
       "utilisation_fwd", "utilisation_back", "latency_s", "queue_max_fwd_bytes",
       "queue_max_back_bytes", "queue_capacity_fwd_bytes", "queue_capacity_back_bytes", "trims_fwd",
       "trims_back", "drops_fwd", "drops_back"},
      {}};
  if (!picture_) return table;
  auto name = [&](int box) {
    const TopoBox& b = picture_->boxes[box];
    return QString::fromStdString(b.tooltip.empty() ? b.label : b.tooltip);
  };
  for (const TopoEdge& e : picture_->edges)
    table.rows.push_back(
        {name(e.a), name(e.b), QString::number(e.links),
         QString::number(e.bandwidth_Bps[0], 'g', 10), QString::number(e.bandwidth_Bps[1], 'g', 10),
         QString::number(e.bytes[0], 'g', 12), QString::number(e.bytes[1], 'g', 12),
         QString::number(e.utilisation[0], 'g', 6), QString::number(e.utilisation[1], 'g', 6),
         QString::number(e.latency_s, 'g', 6), QString::number(e.queue_bytes[0], 'g', 10),
         QString::number(e.queue_bytes[1], 'g', 10),
         QString::number(e.queue_capacity_bytes[0], 'g', 10),
         QString::number(e.queue_capacity_bytes[1], 'g', 10), QString::number(e.trims[0]),
         QString::number(e.trims[1]), QString::number(e.drops[0]), QString::number(e.drops[1])});
  return table;
}

}  // namespace commlab::ui
