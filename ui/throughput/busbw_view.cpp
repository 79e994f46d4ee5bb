#include "busbw_view.h"

#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPainter>
#include <QScatterSeries>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>
#include <exception>

#include "chart_hover.h"
#include "chart_markers.h"
#include "cluster_sync.h"
#include "collective/algorithms.h"
#include "collective/nccl/nccl_run.h"
#include "collective/simulated_executor.h"
#include "format_util.h"
#include "network/analytical.h"
#include "topology/presets.h"
#include "topology/topology.h"
#include "views/view_settings.h"

namespace commlab::ui {

namespace {

constexpr int kDebounceMs = 30;

// The cluster choices: the flat network of the controls, or 8 x H100 nodes as NCCL runs them.
const std::pair<const char*, const char*> kClusters[] = {
    {"flat network (controls below)", ""},
    {"NCCL: 8 x H100, one NVLink node", "dgx-h100-pod:nodes=1"},
    {"NCCL: 2 nodes x 8 H100, 400 Gb/s rails", "dgx-h100-pod:nodes=2"},
    {"NCCL: 4 nodes x 8 H100", "dgx-h100-pod:nodes=4"},
    {"NCCL: 16 nodes x 8 H100", "dgx-h100-pod:nodes=16"},
    {"NCCL: leaf-spine, 4 servers x 8 H100", "leafspine:servers=4,gpus_per_server=8"},
    {"NCCL: fat-tree k=4, 16 hosts x 1 GPU", "fattree:k=4"}};

}  // namespace

BusbwView::BusbwView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  auto* form = new QFormLayout;
  ranks_ = new QSpinBox;
  ranks_->setRange(views::kThroughputRanks.lo, views::kThroughputRanks.hi);
  ranks_->setValue(8);
  ranks_->setToolTip("Number of GPUs (ranks) taking part in the all-reduce.");
  ranks_->setObjectName("ranks");
  bw_ = new QDoubleSpinBox;
  bw_->setRange(views::kThroughputBwGbps.lo, views::kThroughputBwGbps.hi);
  bw_->setValue(25);
  bw_->setSuffix(" GB/s");
  bw_->setToolTip(
      "Bandwidth of each rank's link into the flat network (25 GB/s = a 200 Gb/s NIC).");
  alpha_ = new QDoubleSpinBox;
  alpha_->setRange(views::kThroughputAlphaUs.lo, views::kThroughputAlphaUs.hi);
  alpha_->setValue(5);
  alpha_->setSuffix(" us");
  alpha_->setToolTip(
      "Latency paid by every step of the collective (alpha in the alpha-beta model).");
  // The ring's NCCL-style pipelining bends its curve: a step's chunk goes in slices, each paying
  // alpha (docs/collectives.md).
  auto kib = [](int value, const QString& tip) {
    auto* box = new QSpinBox;
    box->setRange(0, 1 << 20);
    box->setValue(value);
    box->setSuffix(" KiB");
    box->setSpecialValueText("off");
    box->setToolTip(tip);
    return box;
  };
  const PipelineConfig defaults;
  slice_kib_ = kib(static_cast<int>(defaults.slice_bytes >> 10),
                   "NCCL-style slice of a ring step: each slice pays the latency once; 0 = off "
                   "(whole chunks, the plain alpha-beta ring).");
  slice_kib_->setObjectName("slice");
  chunk_kib_ = kib(static_cast<int>(defaults.chunk_bytes >> 10),
                   "Per-rank chunk per loop of the ring (NCCL's chunk size); 0 = off.");
  chunk_kib_->setObjectName("chunk");
  cluster_ = new QComboBox;
  for (const auto& [label, spec] : kClusters) cluster_->addItem(label, QString(spec));
  cluster_->setObjectName("cluster");
  cluster_->setToolTip(
      "The flat alpha-beta network of the controls below, or an 8 x H100 cluster as NCCL runs "
      "it: the tuner's algorithm, protocol and channels per size (docs/collectives.md).");
  proto_ = new QComboBox;
  proto_->addItems({"auto", "simple", "ll", "ll128"});
  proto_->setObjectName("proto");
  proto_->setToolTip(
      "NCCL protocol: auto lets the tuner choose per size; Simple, LL (8 of 16 bytes are data) "
      "or LL128 (120 of 128) forces one.");
  channels_ = new QSpinBox;
  channels_->setRange(views::kThroughputChannels.lo, views::kThroughputChannels.hi);
  channels_->setSpecialValueText("NCCL's choice");
  channels_->setObjectName("channels");
  channels_->setToolTip(
      "NCCL channels (rings or trees over different NICs and NVLinks); NCCL's choice drops "
      "channels for small messages.");
  // The cluster's names are long ("NCCL: 2 nodes x 8 H100, 400 Gb/s rails"): its box takes the
  // row under its label, the column's whole width, so none is cut.
  form->addRow(new QLabel("Cluster"));
  form->addRow(cluster_);
  form->addRow("Protocol", proto_);
  form->addRow("Channels", channels_);
  form->addRow("Ranks", ranks_);
  form->addRow("Link bandwidth", bw_);
  form->addRow("Latency (alpha)", alpha_);
  form->addRow("Ring slice", slice_kib_);
  form->addRow("Ring chunk", chunk_kib_);
  status_ = new QLabel;
  status_->setObjectName("status");
  status_->setWordWrap(true);
  auto* side = new QWidget;
  auto* column = new QVBoxLayout(side);
  column->addLayout(form);
  column->addWidget(status_);
  column->addStretch(1);
  side->setFixedWidth(300);
  view_ = new QChartView;
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setToolTip("Bus bandwidth per algorithm; dashed lines are each algorithm's ceiling.");
  layout->addWidget(side, 0);
  layout->addWidget(view_, 1);
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(kDebounceMs);
  connect(debounce_, &QTimer::timeout, this, &BusbwView::recompute);
  connect(ranks_, &QSpinBox::valueChanged, this, &BusbwView::schedule_recompute);
  connect(bw_, &QDoubleSpinBox::valueChanged, this, &BusbwView::schedule_recompute);
  connect(alpha_, &QDoubleSpinBox::valueChanged, this, &BusbwView::schedule_recompute);
  connect(slice_kib_, &QSpinBox::valueChanged, this, &BusbwView::schedule_recompute);
  connect(chunk_kib_, &QSpinBox::valueChanged, this, &BusbwView::schedule_recompute);
  connect(channels_, &QSpinBox::valueChanged, this, &BusbwView::schedule_recompute);
  connect(cluster_, &QComboBox::currentIndexChanged, this, &BusbwView::schedule_recompute);
  connect(proto_, &QComboBox::currentIndexChanged, this, &BusbwView::schedule_recompute);
  update_controls();
  recompute();
}

bool BusbwView::nccl_mode() const {
  return !cluster_->currentData().toString().isEmpty();
}

// Each mode's controls: the flat network's in flat mode, NCCL's on a cluster.
void BusbwView::update_controls() {
  const bool nccl = nccl_mode();
  for (QWidget* w : std::initializer_list<QWidget*>{ranks_, bw_, alpha_, slice_kib_, chunk_kib_})
    w->setEnabled(!nccl);
  proto_->setEnabled(nccl);
  channels_->setEnabled(nccl);
  // The tooltip describes what this mode draws (NCCL mode draws no ceilings).
  view_->setToolTip(nccl ? "Bus bandwidth as NCCL runs it on this cluster: the tuner's choice per "
                           "size (markers on the NCCL curve) beside forced ring and tree."
                         : "Bus bandwidth per algorithm; dashed lines are each algorithm's "
                           "ceiling (the flat tree is not pipelined, so its ceiling is lower).");
  // Greyed in NCCL mode, Ranks shows the cluster's GPU count (what the curves are for).
  if (nccl) {
    const int gpus = spec_gpu_count(cluster_->currentData().toString());
    if (gpus > 0) {
      const QSignalBlocker block(ranks_);
      ranks_->setValue(gpus);
    }
  }
}

bool BusbwView::debounce_active() const {
  return debounce_->isActive();
}

void BusbwView::schedule_recompute() {
  debounce_->start();
}

views::ThroughputSettings BusbwView::settings() const {
  views::ThroughputSettings s;
  s.cluster = cluster_->currentData().toString().toStdString();
  s.ranks = ranks_->value();
  s.bw_gbps = bw_->value();
  s.alpha_us = alpha_->value();
  s.pipeline = {static_cast<uint64_t>(slice_kib_->value()) << 10,
                static_cast<uint64_t>(chunk_kib_->value()) << 10};
  s.proto = proto_->currentText().toStdString();
  s.channels = channels_->value();
  return s;  // sizes: the page's, 1 KiB to 256 MiB flat or 1 GiB in NCCL mode
}

void BusbwView::recompute() {
  update_controls();
  const views::ThroughputSettings settings = this->settings();
  status_->setText("computing...");
  jobs_.start(
      this, [settings] { return views::compute_throughput(settings); },
      [](BusbwView& view, const JobOutcome<std::vector<BusbwSeries>>& out) {
        if (!out.value) {
          view.status_->setText(out.error + "; the chart shows the last settings that ran");
          return;
        }
        view.show_result(*out.value);
      });
}

// One scatter series per distinct choice (algorithm and protocol) on the NCCL curve's points: the
// legend names them, the colours show where NCCL switches.
void BusbwView::add_choice_markers(QChart* chart, const BusbwSeries& s, QAbstractAxis* x,
                                   QAbstractAxis* y) {
  std::vector<std::pair<std::string, QScatterSeries*>> by_choice;
  for (const BusbwPoint& p : s.points) {
    const std::string key = p.choice.substr(0, p.choice.rfind(' '));  // without the channels
    auto it = std::find_if(by_choice.begin(), by_choice.end(),
                           [&](const auto& c) { return c.first == key; });
    if (it == by_choice.end()) {
      auto* markers = new QScatterSeries;
      markers->setName("chosen: " + QString::fromStdString(key));
      markers->setMarkerSize(10);
      // Shape by algorithm (tree: square, ring: circle), colour by protocol.
      markers->setMarkerShape(key.starts_with("tree") ? QScatterSeries::MarkerShapeRectangle
                                                      : QScatterSeries::MarkerShapeCircle);
      const QColor colour = key.ends_with(" ll")      ? QColor(0xf2, 0x8e, 0x2b)
                            : key.ends_with(" ll128") ? QColor(0xe1, 0x57, 0x59)
                                                      : QColor(0xb0, 0x7a, 0xa1);
      markers->setColor(colour);
      markers->setBorderColor(Qt::black);
      by_choice.push_back({key, markers});
      it = by_choice.end() - 1;
    }
    it->second->append(std::log2(p.bytes), p.busbw_gbps);
  }
  for (auto& [key, markers] : by_choice) {
    chart->addSeries(markers);
    markers->attachAxis(x);
    markers->attachAxis(y);
  }
}

int BusbwView::cluster_count() const {
  return cluster_->count();
}

int BusbwView::cluster_index() const {
  return cluster_->currentIndex();
}

bool BusbwView::choose_cluster(int index) {
  if (index < 0 || index >= cluster_->count()) return false;
  cluster_->setCurrentIndex(index);  // currentIndexChanged schedules the recompute
  return true;
}

int BusbwView::series_count() const {
  return view_->chart()->series().size();
}

QChart* BusbwView::chart() const {
  return view_->chart();
}

void BusbwView::show_result(const std::vector<BusbwSeries>& result) {
  if (result.empty()) {
    status_->setText("could not compute these settings; the chart shows the last ones");
    return;
  }
  last_ = result;
  auto* chart = new QChart;
  const bool nccl = nccl_mode();
  chart->setTitle(nccl ? QString("All-reduce bus bandwidth as NCCL runs it: %1")
                             .arg(cluster_->currentText().mid(6))
                       : QString("All-reduce bus bandwidth vs message size, %1 ranks (analytical "
                                 "backend)")
                             .arg(ranks_->value()));
  chart->legend()->setAlignment(Qt::AlignBottom);
  // x is log2(bytes): a category axis puts readable binary sizes (1K, 4K, ... 256M) on the ticks.
  auto* x = new QCategoryAxis;
  x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  double lo = 1e300, hi = 0;
  for (const BusbwSeries& s : result)
    for (const BusbwPoint& p : s.points) {
      lo = std::min(lo, std::log2(p.bytes));
      hi = std::max(hi, std::log2(p.bytes));
    }
  for (int e = static_cast<int>(std::ceil(lo)); e <= static_cast<int>(hi); e += 2)
    x->append(short_bytes(std::ldexp(1.0, e)), e);
  // NCCL mode marks the curve's points, the first and last at the axis ends: room for them.
  const auto [x_min, x_max] = nccl ? range_with_marker_room(lo, hi, lo, hi) : std::pair(lo, hi);
  x->setRange(x_min, x_max);
  x->setTitleText("message size per rank (bytes)");
  x->setGridLineVisible(true);
  auto* y = new QValueAxis;
  y->setTitleText("busbw (GB/s)");
  y->setLabelFormat("%.0f");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  double top = 0;
  std::vector<std::pair<double, QStringList>> ceilings;  // equal ceilings share one line
  std::vector<QColor> ceiling_colors;
  for (const BusbwSeries& s : result) {
    auto* line = new QLineSeries;
    line->setName(QString::fromStdString(s.algorithm));
    for (const BusbwPoint& p : s.points) {
      line->append(std::log2(p.bytes), p.busbw_gbps);
      top = std::max(top, p.busbw_gbps);
    }
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    QPen pen = line->pen();
    pen.setWidthF(2.2);
    if (nccl) {  // the choice in black on top; NCCL's forced ring and tree dashed underneath
      pen = s.algorithm == "NCCL"
                ? QPen(Qt::black, 2.6)
                : QPen(s.algorithm.rfind("ring", 0) == 0 ? QColor(0x4e, 0x79, 0xa7)
                                                         : QColor(0x59, 0xa1, 0x4f),
                       1.6, Qt::DashLine);
      line->setPen(pen);
      if (s.algorithm == "NCCL") add_choice_markers(chart, s, x, y);
      continue;  // NCCL's curves have no alpha-beta ceiling
    }
    line->setPen(pen);
    top = std::max(top, s.ceiling_gbps);
    auto same = std::find_if(ceilings.begin(), ceilings.end(), [&](const auto& c) {
      return std::abs(c.first - s.ceiling_gbps) <= 0.01 * s.ceiling_gbps;
    });
    if (same != ceilings.end()) {
      same->second << QString::fromStdString(s.algorithm);
    } else {
      ceilings.push_back({s.ceiling_gbps, {QString::fromStdString(s.algorithm)}});
      ceiling_colors.push_back(line->pen().color());
    }
  }
  for (size_t i = 0; i < ceilings.size(); ++i) {
    auto* line = new QLineSeries;
    // The flat tree is not pipelined: its ceiling is a fraction of the link, and says why.
    const bool tree = ceilings[i].second.contains("tree");
    line->setName(ceilings[i].second.join(", ") + (tree ? " (not pipelined)" : "") + " ceiling");
    line->append(lo, ceilings[i].first);
    line->append(hi, ceilings[i].first);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    line->setPen(QPen(ceiling_colors[i], 1.4, Qt::DashLine));
  }
  y->setRange(0, top * 1.1);
  y->applyNiceNumbers();
  if (nccl) {  // the smallest sizes' markers sit on busbw ~0: room below 0, labels from 0 up
    const double step = y->max() / std::max(1, y->tickCount() - 1);
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    y->setTickInterval(step);
    y->setRange(range_with_marker_room(0, y->max(), 0, y->max()).first, y->max());
  }
  // Hover: the exact size (x is log2 bytes) and busbw of the nearest computed point.
  add_hover_readouts(chart, view_, [](double log2_bytes) {
    return long_bytes(std::round(std::exp2(log2_bytes)));
  });
  QChart* old = view_->chart();
  view_->setChart(chart);
  delete old;
  if (nccl)
    status_->setText(
        "Markers on the NCCL curve: the tuner's choice per size (algorithm and protocol, in "
        "the legend); forced ring and tree beside it. busbw = algbw x 2(n-1)/n (nccl-tests).");
  else
    status_->setText(QString("Link %1 GB/s, alpha %2 us. busbw = algbw x 2(n-1)/n (nccl-tests). "
                             "Dashed: each algorithm's ceiling (no latency, 1 GiB); ring and "
                             "halving-doubling reach the link bandwidth.")
                         .arg(bw_->value())
                         .arg(alpha_->value()));
  emit computed();
}

QSize BusbwView::export_size() const {
  return view_->size();
}

void BusbwView::export_render(QPainter& painter) const {
  render_widget(view_, painter);
}

CsvTable BusbwView::export_data() const {
  CsvTable table{{"algorithm", "bytes", "busbw_gbps"}, {}};
  if (!last_.empty() && nccl_mode()) {  // NCCL: one row per series and size, with the choice
    table.header << "choice";
    for (const BusbwSeries& s : last_)
      for (const BusbwPoint& p : s.points)
        table.rows.push_back({QString::fromStdString(s.algorithm), QString::number(p.bytes, 'f', 0),
                              QString::number(p.busbw_gbps, 'g', 8),
                              QString::fromStdString(p.choice)});
    return table;
  }
  for (QAbstractSeries* s : view_->chart()->series()) {
    auto* xy = qobject_cast<QXYSeries*>(s);
    if (!xy || xy->name().endsWith("ceiling")) continue;
    for (const QPointF& p : xy->points())
      table.rows.push_back(
          {xy->name(), QString::number(std::exp2(p.x()), 'f', 0), QString::number(p.y(), 'g', 8)});
  }
  for (QAbstractSeries* s : view_->chart()->series()) {
    auto* xy = qobject_cast<QXYSeries*>(s);
    if (xy && xy->name().endsWith("ceiling") && !xy->points().isEmpty())
      table.rows.push_back({xy->name(), "", QString::number(xy->points().front().y(), 'g', 8)});
  }
  return table;
}

}  // namespace commlab::ui
