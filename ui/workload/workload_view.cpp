#include "workload_view.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include "format_util.h"
#include "gantt_canvas.h"
#include "routing_text.h"
#include "scenario/config_enums.h"
#include "typing_pause.h"
#include "views/view_settings.h"
#include "workload/catalog/catalog.h"

namespace commlab::ui {

namespace {

QSpinBox* spin(const char* name, Bounds<int> range, int value, const char* tip) {
  auto* s = new QSpinBox;
  s->setObjectName(name);
  s->setRange(range.lo, range.hi);
  s->setValue(value);
  s->setToolTip(tip);
  apply_after_typing_pause(s);  // typing "128" replays once, not three times
  return s;
}

QString legend_html() {
  QString html;
  for (int k = 0; k <= 4; ++k)
    html += QString("<span style='color:%1'>&#9632;</span>&nbsp;%2&nbsp;&nbsp;&nbsp;")
                .arg(bar_color(k).name(), k == 0 ? "compute" : bar_kind_name(k));
  return html +
         "<span style='color:#101010'>&#9633;</span>&nbsp;critical path (full colour, outlined; "
         "paler: off it)&nbsp;&nbsp;&nbsp;"
         "<span style='color:#888'>&middot;&middot;&middot;</span>&nbsp;waiting for peers";
}

}  // namespace

WorkloadView::WorkloadView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->addWidget(build_controls());
  auto* right = new QVBoxLayout;
  title_ = new QLabel;
  title_->setStyleSheet("font-weight: bold; font-size: 11pt");
  summary_ = new QLabel;
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  routing_summary_ = new QLabel;
  routing_summary_->setObjectName("routing_summary");
  routing_summary_->setTextFormat(Qt::RichText);
  routing_summary_->setWordWrap(true);
  legend_ = new QLabel(legend_html());
  error_ = new QLabel;
  error_->setStyleSheet("color: #b00020");
  error_->setWordWrap(true);
  canvas_ = new GanttCanvas;
  right->addWidget(title_);
  right->addWidget(summary_);
  right->addWidget(routing_summary_);
  right->addWidget(legend_);
  right->addWidget(canvas_, 1);
  right->addWidget(error_);
  layout->addLayout(right, 1);
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(120);
  connect(debounce_, &QTimer::timeout, this, &WorkloadView::start_replay);
  update_source_controls();
  schedule_replay();
}

QWidget* WorkloadView::build_controls() {
  auto* panel = new QWidget;
  panel->setFixedWidth(260);
  auto* form = new QFormLayout(panel);
  form->setContentsMargins(0, 0, 8, 0);
  source_ = new QComboBox;
  source_->setObjectName("source");
  source_->addItem("catalog model", int(WorkloadSettings::Source::kCatalog));
  source_->addItem("Chakra trace", int(WorkloadSettings::Source::kTrace));
  source_->setToolTip("Generate a catalog workload's graph, or replay a Chakra execution trace.");
  form->addRow("Workload", source_);
  model_ = new QComboBox;
  model_->setObjectName("model");
  for (const TransformerSpec& s : workload_catalog())
    model_->addItem(QString::fromStdString(s.display), QString::fromStdString(s.name));
  model_->setCurrentIndex(std::max(0, model_->findData(QString("llama3-8b"))));
  model_->setToolTip("The catalog model whose training iteration is generated as a graph.");
  form->addRow("Model", model_);
  trace_ = new QLineEdit;
  trace_->setObjectName("trace");
  trace_->setPlaceholderText("DIR/PREFIX (PREFIX.0.et ...)");
  trace_button_ = new QPushButton("Open trace...");
  trace_button_->setToolTip("Choose a Chakra trace: any PREFIX.RANK.et file of it.");
  auto* trace_row = new QHBoxLayout;
  trace_row->addWidget(trace_, 1);
  trace_row->addWidget(trace_button_);
  form->addRow("Trace", trace_row);
  dp_ = spin("dp", views::kWorkloadDp, 2, "Data-parallel replicas.");
  tp_ = spin("tp", views::kWorkloadTp, 2,
             "Tensor-parallel ranks (Megatron: all-reduces on the critical path).");
  pp_ = spin("pp", views::kWorkloadPp, 4, "Pipeline stages (1F1B).");
  micro_ = spin("micro_batch", views::kWorkloadMicroBatch, 1, "Sequences per micro-batch.");
  global_ = spin("global_batch", views::kWorkloadGlobalBatch, 16,
                 "Sequences per iteration, over all replicas.");
  form->addRow("DP", dp_);
  form->addRow("TP", tp_);
  form->addRow("PP", pp_);
  form->addRow("Micro batch", micro_);
  form->addRow("Global batch", global_);
  gbps_ = new QDoubleSpinBox;
  gbps_->setObjectName("gbps");
  gbps_->setRange(views::kWorkloadGbps.lo, views::kWorkloadGbps.hi);
  gbps_->setDecimals(0);
  gbps_->setValue(100);
  gbps_->setSuffix(" Gb/s");
  apply_after_typing_pause(gbps_);
  gbps_->setToolTip("NIC rate of every GPU on the leaf-spine (NVLink inside a server).");
  form->addRow("Network", gbps_);
  per_server_ = spin("gpus_per_server", views::kWorkloadGpusPerServer, 8,
                     "GPUs per server (NVSwitch between them).");
  form->addRow("GPUs/server", per_server_);
  routing_ = new QComboBox;
  routing_->setObjectName("routing");
  routing_->addItem("ECMP (per flow)", "ecmp");
  routing_->addItem("ideal (spraying)", "ideal");
  routing_->setToolTip(
      "How flows take the leaf-spine's equal-cost paths: per-flow ECMP hashes each flow onto one "
      "(what switches do; flows can collide), ideal spreads every flow over all of them (the "
      "load-balance bound). The line above the chart gives DP time under both.");
  form->addRow("Routing", routing_);
  ratio_ = new QDoubleSpinBox;
  ratio_->setObjectName("dp_ratio");
  ratio_->setRange(views::kWorkloadDpRatio.lo, views::kWorkloadDpRatio.hi);
  ratio_->setSingleStep(0.05);
  ratio_->setDecimals(2);
  ratio_->setValue(1);
  apply_after_typing_pause(ratio_);
  ratio_->setToolTip("Codec on DP traffic: wire bytes / payload bytes (1 = no compression).");
  form->addRow("DP codec ratio", ratio_);
  placement_ = new QComboBox;
  placement_->setObjectName("codec_placement");
  placement_->addItem("NIC (line rate)", "nic");
  placement_->addItem("GPU kernels (100 GB/s)", "gpu");
  placement_->addItem("CPU core (1 GB/s)", "cpu");
  placement_->setToolTip(
      "Where the DP codec encodes and decodes: in the NIC it keeps pace with the link (free); on a "
      "GPU or CPU every DP byte pays encode + decode time on its collective.");
  form->addRow("Codec runs on", placement_);
  skip_ =
      spin("skip", views::kWorkloadSkip, 0, "SkipReduce s: reduce-scatter steps skipped on DP.");
  form->addRow("SkipReduce s", skip_);
  overlap_ = new QCheckBox("DP overlaps backward");
  overlap_->setObjectName("overlap");
  overlap_->setChecked(true);
  overlap_->setToolTip("Off: every DP collective waits for the whole backward pass.");
  form->addRow(overlap_);
  ranks_ = spin("ranks", views::kWorkloadMaxRanks, 8,
                "Ranks drawn: rank 0 and the first rank of later stages.");
  form->addRow("Ranks shown", ranks_);
  auto* help = new QLabel(
      "<small>Wheel on the chart zooms, drag pans, double click shows the whole iteration; "
      "hover a bar for its node.</small>");
  help->setWordWrap(true);
  form->addRow(help);

  for (QSpinBox* s : {dp_, tp_, pp_, micro_, global_, per_server_, skip_, ranks_})
    connect(s, &QSpinBox::valueChanged, this, &WorkloadView::schedule_replay);
  for (QDoubleSpinBox* s : {gbps_, ratio_})
    connect(s, &QDoubleSpinBox::valueChanged, this, &WorkloadView::schedule_replay);
  connect(model_, &QComboBox::currentIndexChanged, this, &WorkloadView::schedule_replay);
  connect(placement_, &QComboBox::currentIndexChanged, this, &WorkloadView::schedule_replay);
  connect(routing_, &QComboBox::currentIndexChanged, this, &WorkloadView::schedule_replay);
  connect(source_, &QComboBox::currentIndexChanged, this, [this] {
    update_source_controls();
    schedule_replay();
  });
  connect(overlap_, &QCheckBox::toggled, this, &WorkloadView::schedule_replay);
  connect(trace_, &QLineEdit::editingFinished, this, &WorkloadView::schedule_replay);
  connect(trace_button_, &QPushButton::clicked, this, &WorkloadView::choose_trace);
  return panel;
}

void WorkloadView::update_source_controls() {
  const bool catalog = source_->currentData().toInt() == int(WorkloadSettings::Source::kCatalog);
  model_->setEnabled(catalog);
  for (QWidget* w : std::initializer_list<QWidget*>{dp_, tp_, pp_, micro_, global_, overlap_})
    w->setEnabled(catalog);
  trace_->setEnabled(!catalog);
}

void WorkloadView::choose_trace() {
  const QString file = QFileDialog::getOpenFileName(this, "Open Chakra trace", QString(),
                                                    "Chakra trace (*.et);;All files (*)");
  if (file.isEmpty()) return;
  // PREFIX.RANK.et names the prefix.
  QString prefix = file;
  prefix.remove(QRegularExpression("\\.\\d+\\.et$"));
  trace_->setText(prefix);
  source_->setCurrentIndex(source_->findData(int(WorkloadSettings::Source::kTrace)));
  schedule_replay();
}

WorkloadSettings WorkloadView::settings() const {
  WorkloadSettings s;
  s.source = WorkloadSettings::Source(source_->currentData().toInt());
  s.model = model_->currentData().toString().toStdString();
  s.trace_prefix = trace_->text().trimmed().toStdString();
  s.dp = dp_->value();
  s.tp = tp_->value();
  s.pp = pp_->value();
  s.micro_batch = micro_->value();
  s.global_batch = global_->value();
  s.gbps = gbps_->value();
  s.gpus_per_server = per_server_->value();
  s.dp_ratio = ratio_->value();
  // The combo's data are the scenario's spellings (config_enums), parsed here, at the boundary.
  s.codec_placement = parse_enum<CodecPlacement>(placement_->currentData().toString().toStdString())
                          .value_or(CodecPlacement::kNic);
  s.skip = skip_->value();
  s.overlap = overlap_->isChecked();
  s.max_ranks = ranks_->value();
  s.routing = parse_routing_mode(routing_->currentData().toString().toStdString());
  return s;
}

void WorkloadView::set_settings(const WorkloadSettings& s) {
  {
    const QSignalBlocker blocks[] = {
        QSignalBlocker(source_),     QSignalBlocker(model_),  QSignalBlocker(trace_),
        QSignalBlocker(dp_),         QSignalBlocker(tp_),     QSignalBlocker(pp_),
        QSignalBlocker(micro_),      QSignalBlocker(global_), QSignalBlocker(gbps_),
        QSignalBlocker(per_server_), QSignalBlocker(ratio_),  QSignalBlocker(skip_),
        QSignalBlocker(overlap_),    QSignalBlocker(ranks_),  QSignalBlocker(placement_),
        QSignalBlocker(routing_)};
    source_->setCurrentIndex(source_->findData(int(s.source)));
    const int m = model_->findData(QString::fromStdString(s.model));
    if (m >= 0) model_->setCurrentIndex(m);
    trace_->setText(QString::fromStdString(s.trace_prefix));
    dp_->setValue(s.dp);
    tp_->setValue(s.tp);
    pp_->setValue(s.pp);
    micro_->setValue(s.micro_batch);
    global_->setValue(s.global_batch);
    gbps_->setValue(s.gbps);
    per_server_->setValue(s.gpus_per_server);
    ratio_->setValue(s.dp_ratio);
    const int placement =
        placement_->findData(QString::fromStdString(enum_name(s.codec_placement)));
    if (placement >= 0) placement_->setCurrentIndex(placement);
    skip_->setValue(s.skip);
    overlap_->setChecked(s.overlap);
    ranks_->setValue(s.max_ranks);
    routing_->setCurrentIndex(routing_->findData(QString(routing_mode_name(s.routing))));
  }
  update_source_controls();
  schedule_replay();
}

bool WorkloadView::idle() const {
  return jobs_.idle() && !rerun_ && !debounce_->isActive();
}

QString WorkloadView::error_text() const {
  return error_->text();
}

QString WorkloadView::summary_text() const {
  return summary_->text();
}

QString WorkloadView::routing_text() const {
  return routing_summary_->text();
}

void WorkloadView::schedule_replay() {
  debounce_->start();
}

void WorkloadView::start_replay() {
  if (!jobs_
           .idle()) {  // the engine cannot be interrupted; run again with the newest settings after
    rerun_ = true;
    return;
  }
  rerun_ = false;
  ++replays_;
  const WorkloadSettings s = settings();
  jobs_.start(
      this, [s] { return std::make_shared<const WorkloadPicture>(compute_workload_picture(s)); },
      [s](WorkloadView& view, const JobOutcome<std::shared_ptr<const WorkloadPicture>>& out) {
        // A change made during the replay makes this result stale: drop it and replay again.
        if (view.rerun_ || !(s == view.settings())) {
          view.rerun_ = false;
          view.start_replay();
          return;
        }
        view.error_->setText(out.error);  // the previous timeline stays under an error
        if (out.value) view.show_picture(*out.value);
        emit view.computed();
      });
}

void WorkloadView::show_picture(std::shared_ptr<const WorkloadPicture> pic) {
  picture_ = pic;
  const workload::ScheduleResult& r = pic->result;
  title_->setText(QString::fromStdString(pic->title));
  const double t = r.iteration_s;
  QString exposed;
  for (int k = 0; k < workload::kCommKinds; ++k) {
    if (r.comm_total_s[k] <= 0 && r.exposed_s[k] <= 0) continue;
    exposed += QString("&nbsp;&nbsp;<span style='color:%1'>&#9632;</span> %2 %3 (%4%)")
                   .arg(bar_color(k + 1).name(), workload::comm_kind_name(workload::CommKind(k)),
                        seconds_text(r.exposed_s[k]))
                   .arg(t > 0 ? QString::number(100 * r.exposed_s[k] / t, 'f', 1) : "0");
    // The codec's part of this kind's time (its share of the totals, on the exposed time too).
    if (r.codec_total_s[k] > 0 && r.comm_total_s[k] > 0)
      exposed += QString(", of it codec %1")
                     .arg(seconds_text(r.exposed_s[k] * r.codec_total_s[k] / r.comm_total_s[k]));
  }
  summary_->setText(
      QString("Iteration <b>%1</b> &nbsp; critical path: compute %2, idle %3; exposed "
              "communication:%4<br><small>%5 nodes on %6 ranks, %7 collectives, %8 send/recv "
              "pairs, %9 on the wire, replayed in %12; %10 of %11 critical-path nodes on the drawn "
              "lanes; lane labels give stream busy %</small>")
          .arg(seconds_text(t), seconds_text(r.critical_compute_s), seconds_text(r.critical_idle_s),
               exposed.isEmpty() ? " none" : exposed)
          .arg(r.nodes)
          .arg(pic->graph->rank_count())
          .arg(r.collectives)
          .arg(r.p2p)
          .arg(long_bytes(double(r.bytes_on_wire)))
          .arg(pic->critical_nodes_shown)
          .arg(r.critical_path.size())
          .arg(seconds_text(r.wall_s)));
  routing_summary_->setText(routing_html(pic->routing, pic->settings.routing));
  canvas_->set_picture(pic);
}

void WorkloadView::export_render(QPainter& painter) const {
  render_widget(this, painter);
}

CsvTable WorkloadView::export_data() const {
  CsvTable t;
  t.header = {"rank",    "stream",  "node_id", "name",    "kind",
              "ready_s", "start_s", "end_s",   "critical"};
  if (!picture_) return t;
  for (const GanttLane& lane : picture_->lanes) {
    for (const GanttBar& b : lane.bars) {
      const workload::Node& n = picture_->graph->ranks[lane.rank].nodes[b.node];
      t.rows.push_back({QString::number(lane.rank), QString::number(lane.stream),
                        QString::number(n.id), QString::fromStdString(picture_->graph->name_of(n)),
                        bar_kind_name(b.kind), QString::number(b.ready_s, 'g', 17),
                        QString::number(b.start_s, 'g', 17), QString::number(b.end_s, 'g', 17),
                        b.critical ? "1" : "0"});
    }
  }
  return t;
}

}  // namespace commlab::ui
