#include "topology_view.h"

#include <QApplication>
#include <QComboBox>
#include <QFormLayout>
#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPointer>
#include <QSpinBox>
#include <QThreadPool>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>

#include "format_util.h"

namespace commlab::ui {

namespace {

QColor kind_fill(NodeKind kind) {
  switch (kind) {
    case NodeKind::kGpu: return QColor(0x76, 0xb9, 0x00);  // GPU green
    case NodeKind::kNvSwitch: return QColor(0x9a, 0xc8, 0x5a);
    case NodeKind::kPcieSwitch: return QColor(0xc9, 0xc9, 0xc9);
    case NodeKind::kNic: return QColor(0x8e, 0xb8, 0xe5);
    case NodeKind::kSwitch: return QColor(0x4a, 0x55, 0x68);
  }
  return Qt::gray;
}

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
  }
  text += QString("<br>latency %1").arg(seconds_text(e.latency_s));
  if (e.links > 2)
    text += QString("<br>busiest member link %1%").arg(e.max_link_utilisation * 100, 0, 'f', 1);
  return text;
}

QPixmap legend_pixmap() {
  QPixmap pm(220, 34);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  for (int x = 0; x < 200; ++x) {
    p.setPen(utilisation_color(x / 199.0));
    p.drawLine(10 + x, 2, 10 + x, 14);
  }
  p.setPen(Qt::black);
  p.drawText(QRect(0, 16, 60, 16), Qt::AlignLeft, " 0%");
  p.drawText(QRect(80, 16, 60, 16), Qt::AlignCenter, "50%");
  p.drawText(QRect(160, 16, 60, 16), Qt::AlignRight, "100% ");
  return pm;
}

}  // namespace

QColor utilisation_color(double u) {
  u = std::clamp(u, 0.0, 1.0);
  if (u < 0.005) return QColor(0xb8, 0xc4, 0xd6);  // idle: pale blue-grey
  // Hue from green (120) through yellow (60) to red (0).
  return QColor::fromHsvF((1 - u) * 120.0 / 360.0, 0.85, 0.85 - 0.15 * u);
}

ZoomView::ZoomView(QGraphicsScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
  setDragMode(QGraphicsView::ScrollHandDrag);
  setRenderHint(QPainter::Antialiasing);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setToolTip("Wheel to zoom, drag to pan; hover a link for its numbers.");
}

void ZoomView::wheelEvent(QWheelEvent* event) {
  user_zoomed_ = true;
  const double factor = std::pow(1.0015, event->angleDelta().y());
  scale(factor, factor);
}

void ZoomView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (!user_zoomed_) fit();
}

void ZoomView::fit() {
  if (!scene() || scene()->sceneRect().isEmpty()) return;
  resetTransform();
  fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
  // Never magnify a small cluster into cartoon sizes.
  if (transform().m11() > 1.6) {
    resetTransform();
    scale(1.6, 1.6);
  }
}

TopologyView::TopologyView(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout;
  cluster_ = new QComboBox;
  cluster_->setEditable(true);
  for (const auto& [spec, about] : topology_presets()) {
    cluster_->addItem(QString::fromStdString(spec));
    cluster_->setItemData(cluster_->count() - 1, QString::fromStdString(about), Qt::ToolTipRole);
  }
  cluster_->setToolTip(
      "Cluster preset or builder spec (e.g. leafspine:servers=8,gpus_per_server=4); edit and "
      "press Enter.");
  algorithm_ = new QComboBox;
  algorithm_->addItems({"ring", "tree", "hd", "direct"});
  algorithm_->setToolTip("All-reduce algorithm whose step is timed to colour the links.");
  size_ = new QComboBox;
  for (int shift : {16, 20, 24, 26, 28, 30})
    size_->addItem(long_bytes(std::ldexp(1.0, shift)),
                   QVariant::fromValue<qulonglong>(1ull << shift));
  size_->setCurrentIndex(3);
  size_->setToolTip("All-reduce message size per rank.");
  step_ = new QSpinBox;
  step_->setRange(1, 1);
  step_->setToolTip("Which step of the collective is timed and shown.");
  form->addRow("Cluster", cluster_);
  form->addRow("Algorithm", algorithm_);
  form->addRow("Message", size_);
  form->addRow("Step", step_);
  auto* legend = new QLabel;
  legend->setPixmap(legend_pixmap());
  legend->setToolTip("Link colour: bytes carried / (bandwidth x step time) in the timed step.");
  form->addRow("Link busy", legend);
  summary_ = new QLabel;
  summary_->setObjectName("status");
  summary_->setWordWrap(true);
  error_ = new QLabel;
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #b03030;");
  auto* side = new QWidget;
  // Wrapped labels below the form: a form row would squeeze them to one clipped line.
  auto* column = new QVBoxLayout(side);
  column->addLayout(form);
  column->addWidget(summary_);
  column->addWidget(error_);
  column->addStretch(1);
  side->setFixedWidth(330);

  scene_ = new QGraphicsScene(this);
  view_ = new ZoomView(scene_);
  view_->setBackgroundBrush(Qt::white);
  auto* layout = new QHBoxLayout(this);
  layout->addWidget(side);
  layout->addWidget(view_, 1);

  connect(cluster_->lineEdit(), &QLineEdit::returnPressed, this, &TopologyView::recompute);
  connect(cluster_, &QComboBox::activated, this, &TopologyView::recompute);
  connect(algorithm_, &QComboBox::currentTextChanged, this, &TopologyView::recompute);
  connect(size_, &QComboBox::currentIndexChanged, this, &TopologyView::recompute);
  connect(step_, &QSpinBox::valueChanged, this, &TopologyView::recompute);
  recompute();
}

QString TopologyView::error_text() const {
  return error_->text();
}

void TopologyView::set_spec(const QString& spec) {
  cluster_->setCurrentText(spec);
  recompute();
}

void TopologyView::recompute() {
  TopologySettings s;
  s.spec = cluster_->currentText().trimmed().toStdString();
  s.algorithm = algorithm_->currentText().toStdString();
  s.message_bytes = size_->currentData().toULongLong();
  s.step = step_->value();
  const int generation = ++generation_;
  ++pending_;
  QPointer<TopologyView> self(this);
  QThreadPool::globalInstance()->start([self, s, generation] {
    std::shared_ptr<const TopologyPicture> picture;
    QString error;
    try {
      picture = std::make_shared<const TopologyPicture>(compute_topology_picture(s));
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(qApp, [self, picture, error, generation] {
      if (!self) return;
      --self->pending_;
      if (generation != self->generation_) return;
      self->error_->setText(error);  // the previous picture and the user's text stay
      if (picture) self->show_picture(picture);
      emit self->computed();
    });
  });
}

void TopologyView::show_picture(std::shared_ptr<const TopologyPicture> pic) {
  const bool same_layout = picture_ && picture_->settings.spec == pic->settings.spec;
  picture_ = pic;
  {
    const QSignalBlocker block(step_);
    step_->setMaximum(std::max(pic->steps, 1));
    step_->setValue(std::max(pic->step, 1));
  }
  scene_->clear();
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.8);
  for (const TopoBox& b : pic->boxes) {
    QRectF r(b.x, b.y, b.w, b.h);
    if (b.frame) {
      auto* frame = scene_->addRect(r, QPen(QColor(0xaa, 0xaa, 0xaa), 1, Qt::DashLine),
                                    QColor(0xf4, 0xf6, 0xf8));
      frame->setZValue(-2);
      auto* title = scene_->addSimpleText(QString::fromStdString(b.label), small);
      title->setBrush(QColor(0x66, 0x66, 0x66));
      title->setPos(b.x + 4, b.y + 1);
      title->setZValue(-1);
      continue;
    }
    auto* item = scene_->addRect(r, QPen(QColor(0x33, 0x33, 0x33), 0.8), kind_fill(b.kind));
    item->setZValue(1);
    item->setToolTip(QString::fromStdString(b.tooltip));
    auto* text = new QGraphicsSimpleTextItem(QString::fromStdString(b.label), item);
    text->setFont(small);
    text->setBrush(b.kind == NodeKind::kSwitch ? Qt::white : Qt::black);
    QRectF tr = text->boundingRect();
    text->setPos(r.center() - tr.center());
    if (tr.width() > r.width() - 2) {
      const double f = (r.width() - 2) / tr.width();
      text->setScale(f);
      text->setPos(r.center() - QPointF(tr.width() * f / 2, tr.height() * f / 2));
    }
  }
  for (const TopoEdge& e : pic->edges) {
    const TopoBox& a = pic->boxes[e.a];
    const TopoBox& b = pic->boxes[e.b];
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
    item->setToolTip(edge_tooltip(*pic, e));
    scene_->addItem(item);
  }
  scene_->setSceneRect(0, 0, pic->width, pic->height);
  if (!same_layout) {
    view_->user_zoomed_ = false;
    view_->fit();
  }
  const char* levels[] = {"every node", "one box per server", "one box per leaf"};
  summary_->setText(
      QString("%1: %2 GPUs, drawn %3. Step %4/%5 (%6) of a %7 %8 all-reduce takes %9; the busiest "
              "link is %10% busy.")
          .arg(QString::fromStdString(pic->name))
          .arg(pic->ranks)
          .arg(levels[pic->aggregation])
          .arg(pic->step)
          .arg(pic->steps)
          .arg(QString::fromStdString(pic->phase))
          .arg(long_bytes(static_cast<double>(pic->settings.message_bytes)))
          .arg(QString::fromStdString(pic->settings.algorithm))
          .arg(seconds_text(pic->step_time_s))
          .arg(pic->max_utilisation * 100, 0, 'f', 0));
}

}  // namespace commlab::ui

namespace commlab::ui {

QSize TopologyView::export_size() const {
  return scene_->sceneRect().size().toSize();
}

void TopologyView::export_render(QPainter& painter) const {
  const QRectF target(QPointF(0, 0), scene_->sceneRect().size());
  painter.fillRect(target, Qt::white);
  scene_->render(&painter, target, scene_->sceneRect());
}

CsvTable TopologyView::export_data() const {
  CsvTable table{{"from", "to", "links", "bandwidth_fwd_Bps", "bandwidth_back_Bps", "bytes_fwd",
                  "bytes_back", "utilisation_fwd", "utilisation_back", "latency_s"},
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
         QString::number(e.latency_s, 'g', 6)});
  return table;
}

}  // namespace commlab::ui
