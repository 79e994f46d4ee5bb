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
#include <QSpinBox>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>

#include "format_util.h"
#include "views/view_settings.h"

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

// The packet backend's legend line: what the queue bars and markers mean, and their extremes.
QString packet_summary(const TopologyPicture& pic) {
  const TopologySettings& s = pic.settings;
  if (s.backend != "packet")
    return QString(
        "Analytical backend: flows share links max-min fairly; no queues, trims or "
        "drops (choose the packet backend for those).");
  const QString buffer =
      s.queue_packets > 0 ? QString("%1-packet").arg(s.queue_packets) : QString("link-sized");
  return QString(
             "<b>Packet backend</b> (%1, %2 switch buffers, background %3): deepest switch "
             "queue <b>%4</b>, <b><span style='color:#e67e00'>%5 trims</span></b>, <b><span "
             "style='color:#c62828'>%6 drops</span></b>. Purple bar at a link's sending end: "
             "queue depth / buffer; orange and red dots: trims and drops on that direction. "
             "Computed in %7.")
      .arg(QString::fromStdString(s.admission), buffer, QString::fromStdString(s.background),
           long_bytes(pic.max_queue_bytes))
      .arg(pic.total_trims)
      .arg(pic.total_drops)
      .arg(seconds_text(pic.compute_s));
}

// The link colour scale: idle links (under 0.5% busy) in their own pale grey swatch, then busy
// from 0% (green) to 100% (red).
QPixmap legend_pixmap() {
  // 190 px in all: the side panel's field is about 230 px wide at 1280x800, and a wider pixmap
  // was cut at the right, its "100%" read "1".
  constexpr int kIdle = 44;  // the idle swatch and its label
  constexpr int kBar = 130;  // the 0-100% gradient
  QPixmap pm(kIdle + kBar + 16, 34);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.fillRect(QRect(2, 2, 28, 13), utilisation_color(0));
  p.setPen(Qt::black);
  p.drawText(QRect(0, 16, kIdle, 16), Qt::AlignLeft, " idle");
  for (int x = 0; x < kBar; ++x) {
    p.setPen(utilisation_color(0.005 + (1 - 0.005) * x / (kBar - 1.0)));
    p.drawLine(kIdle + 10 + x, 2, kIdle + 10 + x, 14);
  }
  p.setPen(Qt::black);
  p.drawText(QRect(kIdle, 16, 60, 16), Qt::AlignLeft, " 0%");
  p.drawText(QRect(kIdle + 10 + kBar / 2 - 30, 16, 60, 16), Qt::AlignCenter, "50%");
  p.drawText(QRect(kIdle + kBar + 16 - 60, 16, 60, 16), Qt::AlignRight, "100%");
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
  backend_ = new QComboBox;
  for (const std::string& name : views::kTopologyBackends)
    backend_->addItem(QString::fromStdString(name));
  backend_->setToolTip(
      "Analytical: flow-level max-min sharing, no queues; packet: every packet through finite "
      "switch buffers, showing queues, trims and drops.");
  admission_ = new QComboBox;
  admission_->addItems({"trim", "tail-drop", "ecn"});
  admission_->setToolTip(
      "What a full switch port does with a data packet: trim it to its header (NDP), drop it, or "
      "drop it and ECN-mark packets above a quarter of the buffer.");
  buffer_ = new QSpinBox;
  buffer_->setRange(views::kTopologyQueuePackets.lo, views::kTopologyQueuePackets.hi);
  buffer_->setValue(TopologySettings{}.queue_packets);
  buffer_->setSpecialValueText("link buffer");
  buffer_->setSuffix(" packets");
  buffer_->setToolTip(
      "Data queue of each switch port in full packets (0: the link's own buffer, usually 512 "
      "KiB).");
  background_ = new QComboBox;
  background_->setEditable(true);
  background_->addItems({"none", "incast:4", "incast:8", "perm", "onoff:0.3", "onoff:0.7"});
  background_->setToolTip(
      "Background traffic sharing the network (none, perm, incast:K into rank 0, alltoall, "
      "onoff:LOAD); it runs before and during the step. Edit and press Enter.");
  form->addRow("Backend", backend_);
  form->addRow("Admission", admission_);
  form->addRow("Buffer", buffer_);
  form->addRow("Background", background_);
  auto* legend = new QLabel;
  legend->setObjectName("link_legend");
  legend->setPixmap(legend_pixmap());
  legend->setToolTip(
      "Link colour: busy fraction of the timed step (analytical: bytes / (bandwidth x step "
      "time); packet: measured transmit time / step time); pale grey: idle (under 0.5%).");
  form->addRow("Link busy", legend);
  summary_ = new QLabel;
  summary_->setObjectName("status");
  summary_->setWordWrap(true);
  // Room for the longest summary (a 512-GPU pod's: four lines at this width) from the start, top
  // aligned: a label laid out for a shorter text showed the middle of a longer one, cut above and
  // below, over the colour scale.
  summary_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  summary_->setMinimumHeight(summary_->fontMetrics().lineSpacing() * 5);
  packet_legend_ = new QLabel;
  packet_legend_->setWordWrap(true);
  packet_legend_->setTextFormat(Qt::RichText);
  error_ = new QLabel;
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #b03030;");
  auto* side = new QWidget;
  // Wrapped labels below the form: a form row would squeeze them to one clipped line.
  auto* column = new QVBoxLayout(side);
  column->addLayout(form);
  column->addWidget(summary_);
  column->addWidget(packet_legend_);
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
  auto packet_controls = [this] {
    const bool packet = backend_->currentText() == "packet";
    admission_->setEnabled(packet);
    buffer_->setEnabled(packet);
    background_->setEnabled(packet);
  };
  connect(backend_, &QComboBox::currentTextChanged, this, packet_controls);
  packet_controls();
  connect(backend_, &QComboBox::currentTextChanged, this, &TopologyView::recompute);
  connect(admission_, &QComboBox::currentTextChanged, this, &TopologyView::recompute);
  connect(buffer_, &QSpinBox::valueChanged, this, &TopologyView::recompute);
  connect(background_, &QComboBox::activated, this, &TopologyView::recompute);
  connect(background_->lineEdit(), &QLineEdit::returnPressed, this, &TopologyView::recompute);
  recompute();
}

QString TopologyView::error_text() const {
  return error_->text();
}

void TopologyView::set_spec(const QString& spec) {
  cluster_->setCurrentText(spec);
  recompute();
}

void TopologyView::set_settings(const TopologySettings& s) {
  {
    const QSignalBlocker b1(cluster_), b2(algorithm_), b3(size_), b4(step_), b5(backend_),
        b6(admission_), b7(buffer_), b8(background_);
    cluster_->setCurrentText(QString::fromStdString(s.spec));
    algorithm_->setCurrentText(QString::fromStdString(s.algorithm));
    int size = size_->findData(QVariant::fromValue<qulonglong>(s.message_bytes));
    if (size < 0) {
      size_->addItem(long_bytes(static_cast<double>(s.message_bytes)),
                     QVariant::fromValue<qulonglong>(s.message_bytes));
      size = size_->count() - 1;
    }
    size_->setCurrentIndex(size);
    step_->setMaximum(std::max(step_->maximum(), s.step));
    step_->setValue(s.step);
    backend_->setCurrentText(QString::fromStdString(s.backend));
    admission_->setCurrentText(QString::fromStdString(s.admission));
    buffer_->setValue(s.queue_packets);
    background_->setCurrentText(QString::fromStdString(s.background));
  }
  const bool packet = s.backend == "packet";
  admission_->setEnabled(packet);
  buffer_->setEnabled(packet);
  background_->setEnabled(packet);
  recompute();
}

TopologySettings TopologyView::settings() const {
  TopologySettings s;
  s.spec = cluster_->currentText().trimmed().toStdString();
  s.algorithm = algorithm_->currentText().toStdString();
  s.message_bytes = size_->currentData().toULongLong();
  s.step = step_->value();
  s.backend = backend_->currentText().toStdString();
  s.admission = admission_->currentText().toStdString();
  s.queue_packets = buffer_->value();
  s.background = background_->currentText().trimmed().toStdString();
  return s;
}

void TopologyView::recompute() {
  const TopologySettings s = settings();
  jobs_.start(
      this, [s] { return std::make_shared<const TopologyPicture>(compute_topology_picture(s)); },
      [](TopologyView& view, const JobOutcome<std::shared_ptr<const TopologyPicture>>& out) {
        view.error_->setText(out.error);  // the previous picture and the user's text stay
        if (out.value) view.show_picture(*out.value);
        emit view.computed();
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
  for (const TopoEdge& e : pic->edges) add_edge_items(*pic, e);
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
  packet_legend_->setText(packet_summary(*pic));
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

}  // namespace commlab::ui
