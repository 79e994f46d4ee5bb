#include "cluster_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include "topology/gpu_presets.h"
#include "typing_pause.h"

namespace commlab::ui {

namespace {

// key=value pairs of a spec after the builder name; a bare first value is "positional".
QList<QPair<QString, QString>> spec_params(const QString& spec) {
  QList<QPair<QString, QString>> out;
  const int colon = spec.indexOf(':');
  if (colon < 0) return out;
  const QStringList parts = spec.mid(colon + 1).split(',', Qt::SkipEmptyParts);
  for (int i = 0; i < parts.size(); ++i) {
    const int eq = parts[i].indexOf('=');
    if (eq < 0)
      out.append(i == 0 ? qMakePair(QString("positional"), parts[i].trimmed())
                        : qMakePair(parts[i].trimmed(), QString()));
    else
      out.append({parts[i].left(eq).trimmed(), parts[i].mid(eq + 1).trimmed()});
  }
  return out;
}

QString num(double v) {
  return QString::number(v, 'g', 10);
}

}  // namespace

int custom_cluster_gpus(const CustomCluster& c) {
  return c.kind == "node" ? c.gpus_per_node : c.nodes * c.gpus_per_node;
}

QString custom_cluster_spec(const CustomCluster& c, const QString& keep) {
  QStringList params;
  QStringList managed;
  if (c.kind == "flat") {
    params << QString::number(custom_cluster_gpus(c));
    managed << "positional"
            << "gbps";
    if (c.nic_gbps > 0) params << "gbps=" + num(c.nic_gbps);
  } else if (c.kind == "node") {
    params << "gpus=" + QString::number(c.gpus_per_node) << "gpu=" + c.gpu;
    managed << "gpus"
            << "gpu";
  } else {
    params << "servers=" + QString::number(c.nodes)
           << "gpus_per_server=" + QString::number(c.gpus_per_node) << "gpu=" + c.gpu
           << "oversub=" + num(c.oversub);
    if (c.nic_gbps > 0) params << "gbps=" + num(c.nic_gbps);
    managed << "servers"
            << "gpus_per_server"
            << "gpu"
            << "oversub"
            << "gbps";
  }
  if (c.kind != "flat") {
    if (c.nvlink_GBps > 0) params << "nvlink=" + num(c.nvlink_GBps);
    managed << "nvlink";
  }
  if (keep.section(':', 0, 0).trimmed().toLower() == c.kind)
    for (const auto& [key, value] : spec_params(keep))
      if (!managed.contains(key) && key != "positional")
        params << (value.isEmpty() ? key : key + "=" + value);
  return c.kind + ":" + params.join(',');
}

bool parse_custom_cluster(const QString& spec, CustomCluster* out) {
  CustomCluster c;
  c.kind = spec.section(':', 0, 0).trimmed().toLower();
  if (c.kind != "leafspine" && c.kind != "rail" && c.kind != "node" && c.kind != "flat")
    return false;
  if (c.kind == "flat") c.nodes = 1, c.gpus_per_node = 8;
  if (c.kind == "node") c.nodes = 1, c.gpus_per_node = 8;
  if (c.kind == "leafspine" || c.kind == "rail") c.nodes = 16, c.gpus_per_node = 8;
  for (const auto& [key, value] : spec_params(spec)) {
    bool ok = true;
    if (key == "positional")
      c.gpus_per_node = value.toInt(&ok);
    else if (key == "servers")
      c.nodes = value.toInt(&ok);
    else if (key == "gpus_per_server" || key == "gpus")
      c.gpus_per_node = value.toInt(&ok);
    else if (key == "gpu")
      c.gpu = value.toLower();
    else if (key == "gbps")
      c.nic_gbps = value.toDouble(&ok);
    else if (key == "oversub")
      c.oversub = value.toDouble(&ok);
    else if (key == "nvlink")
      c.nvlink_GBps = value.toDouble(&ok);
    if (!ok) return false;
  }
  *out = c;
  return true;
}

ClusterEditor::ClusterEditor(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  custom_ = new QCheckBox("build from GPUs per node and these");
  custom_->setToolTip("Describe the cluster with the controls below instead of a preset name.");
  kind_ = new QComboBox;
  kind_->addItems({"leafspine", "rail", "node", "flat"});
  kind_->setToolTip(
      "Topology: two-tier leaf-spine, rail-optimized leaf-spine, one server, or an ideal "
      "crossbar.");
  nodes_ = new QSpinBox;
  nodes_->setRange(1, 4096);
  nodes_->setToolTip("Servers in the cluster (one server for the node kind).");
  gpus_ = new QSpinBox;
  gpus_->setRange(1, 64);
  gpus_->setToolTip("GPUs per server, joined by NVLink (NVSwitch) inside the server.");
  gpu_ = new QComboBox;
  for (const GpuPreset& g : gpu_presets())
    gpu_->addItem(QString::fromUtf8(g.name.data(), g.name.size()));
  gpu_->setToolTip("GPU type: sets NVLink and NIC rates and the compute model's FLOP/s.");
  nic_ = new QDoubleSpinBox;
  nic_->setRange(0, 3200);
  nic_->setDecimals(0);
  nic_->setSuffix(" Gb/s");
  nic_->setSingleStep(50);  // NICs come in 100, 200, 400, 800 Gb/s, not 1 Gb/s apart
  nic_->setSpecialValueText("GPU default");
  nic_->setToolTip("Per-GPU NIC line rate (flat: link rate); 0 takes the GPU's reference NIC.");
  nvlink_ = new QDoubleSpinBox;
  nvlink_->setRange(0, 10000);
  nvlink_->setDecimals(0);
  nvlink_->setSuffix(" GB/s");
  nvlink_->setToolTip(
      "NVLink bandwidth per GPU and direction inside a server; 0 takes the GPU type's rate.");
  oversub_ = new QDoubleSpinBox;
  oversub_->setRange(0.01, 64);
  oversub_->setSingleStep(0.5);
  oversub_->setToolTip(
      "Leaf oversubscription: server-facing over spine-facing bandwidth (1 = "
      "non-blocking).");
  // Typed numbers apply after a pause, as one edit: "400" Gb/s is not a 4 and a 40 Gb/s cluster
  // each re-trained live (typing_pause.h); arrow keys apply at once.
  for (QAbstractSpinBox* box :
       std::initializer_list<QAbstractSpinBox*>{nodes_, gpus_, nic_, nvlink_, oversub_})
    apply_after_typing_pause(box);
  form->addRow(custom_);
  form->addRow("Topology", kind_);
  form->addRow("Nodes", nodes_);
  form->addRow("GPU type", gpu_);
  form->addRow("NIC", nic_);
  form->addRow("NVLink", nvlink_);
  form->addRow("Oversubscription", oversub_);
  show_spec({});
  connect(custom_, &QCheckBox::toggled, this, [this] { edited(); });
  connect(kind_, &QComboBox::currentTextChanged, this, [this] { edited(); });
  connect(nodes_, &QSpinBox::valueChanged, this, [this] { edited(); });
  connect(gpus_, &QSpinBox::valueChanged, this, [this] { edited(); });
  connect(gpu_, &QComboBox::currentTextChanged, this, [this] { edited(); });
  connect(nic_, &QDoubleSpinBox::valueChanged, this, [this] { edited(); });
  connect(nvlink_, &QDoubleSpinBox::valueChanged, this, [this] { edited(); });
  connect(oversub_, &QDoubleSpinBox::valueChanged, this, [this] { edited(); });
}

CustomCluster ClusterEditor::value() const {
  return {kind_->currentText(), nodes_->value(),   gpus_->value(),  gpu_->currentText(),
          nic_->value(),        oversub_->value(), nvlink_->value()};
}

bool ClusterEditor::custom() const {
  return custom_->isChecked();
}

void ClusterEditor::show_spec(const QString& spec) {
  CustomCluster c;
  const bool known = parse_custom_cluster(spec, &c);
  const QSignalBlocker b0(custom_), b1(kind_), b2(nodes_), b3(gpus_), b4(gpu_), b5(nic_),
      b6(oversub_), b7(nvlink_);
  custom_->setChecked(known);
  kind_->setCurrentText(c.kind);
  nodes_->setValue(c.nodes);
  gpus_->setValue(c.gpus_per_node);
  if (gpu_->findText(c.gpu) >= 0) gpu_->setCurrentText(c.gpu);
  nic_->setValue(c.nic_gbps);
  oversub_->setValue(c.oversub);
  nvlink_->setValue(c.nvlink_GBps);
  last_spec_ = spec;
  update_nvlink();
}

void ClusterEditor::update_nvlink() {
  const bool on = custom_->isChecked();
  for (QWidget* w :
       std::initializer_list<QWidget*>{kind_, nodes_, gpus_, gpu_, nic_, oversub_, nvlink_})
    w->setEnabled(on);
  const QString kind = kind_->currentText();
  nodes_->setEnabled(on && kind != "node");
  oversub_->setEnabled(on && (kind == "leafspine" || kind == "rail"));
  gpu_->setEnabled(on && kind != "flat");
  nvlink_->setEnabled(on && kind != "flat");
  // 0 shows what it means: the GPU type's rate.
  try {
    const GpuPreset& g = gpu_preset(gpu_->currentText().toStdString());
    nvlink_->setSpecialValueText(
        kind == "flat" ? QString("none (crossbar)")
                       : QString("%1 GB/s (GPU type)").arg(g.nvlink_Bps / 1e9, 0, 'g', 4));
  } catch (const std::exception&) {
    nvlink_->setSpecialValueText("GPU type");
  }
}

void ClusterEditor::edited() {
  update_nvlink();
  if (!custom_->isChecked()) return;
  const CustomCluster c = value();
  last_spec_ = custom_cluster_spec(c, last_spec_);
  emit spec_edited(last_spec_, custom_cluster_gpus(c));
}

}  // namespace commlab::ui
