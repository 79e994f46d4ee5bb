#pragma once
// Custom cluster controls of the scenario panel: kind, nodes, GPUs per node, GPU type, NIC
// bandwidth, oversubscription. They write the cluster spec string the topology presets accept
// (topology/presets.h, docs/topology.md), so a custom cluster is an ordinary cluster.spec.
#include <QString>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace commlab::ui {

struct CustomCluster {
  QString kind = "leafspine";  // leafspine | rail | node | flat
  int nodes = 2;
  int gpus_per_node = 4;
  QString gpu = "h100";
  double nic_gbps = 0;  // 0: the GPU's reference NIC rate (flat: 400)
  double oversub = 1;
  double nvlink_GBps = 0;  // per GPU and direction; 0: the GPU type's (not for flat)
};

// "leafspine:servers=2,gpus_per_server=4,gpu=h100,oversub=1" and the like. Parameters of `keep`
// (a previous spec of the same kind) that the controls do not set, e.g. alpha_us, are kept.
QString custom_cluster_spec(const CustomCluster& c, const QString& keep = {});
// Reads a spec of one of the four kinds back; false for anything else (presets, files, ...).
bool parse_custom_cluster(const QString& spec, CustomCluster* out);
int custom_cluster_gpus(const CustomCluster& c);

class ClusterEditor : public QWidget {
  Q_OBJECT
 public:
  explicit ClusterEditor(QWidget* parent = nullptr);
  CustomCluster value() const;
  // Shows the spec's values when it is a custom kind (and ticks Custom), else unticks.
  void show_spec(const QString& spec);
  bool custom() const;
  QCheckBox* custom_box() const { return custom_; }
  // GPUs per node is not in the editor's own form: the owner lays it out (the scenario panel puts
  // it beside Ranks, above the fold at 1280x800); it still belongs to the custom cluster.
  QSpinBox* gpus_per_node_box() const { return gpus_; }

 signals:
  // The user changed a custom setting: the new spec and its GPU count.
  void spec_edited(const QString& spec, int gpus);

 private:
  void edited();
  void update_nvlink();

  QCheckBox* custom_;
  QComboBox* kind_;
  QSpinBox* nodes_;
  QSpinBox* gpus_;
  QComboBox* gpu_;
  QDoubleSpinBox* nic_;
  QDoubleSpinBox* nvlink_;
  QDoubleSpinBox* oversub_;
  QString last_spec_;
};

}  // namespace commlab::ui
