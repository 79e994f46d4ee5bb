#pragma once
// The Training tab's scenario panel: the settings of one run (cluster preset or custom cluster,
// backend and background traffic, workload, training, collective, codec, SkipReduce, trimming) as
// controls with a one-sentence tooltip each. It turns them into a RunConfig and shows the
// engine's complaints next to the control they concern, keeping the user's edits. The wheel
// scrolls the panel; it changes a spin box or combo box only when that control has focus.
#include <QWidget>
#include <map>
#include <string>

#include "scenario/config_problem.h"
#include "scenario/run_config.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace commlab::ui {

class ClusterEditor;

// What the reserved problems line says when there is neither a problem nor a warning.
inline constexpr const char* kNoProblemsText = "Problems with the settings show here.";

class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingPanel(QWidget* parent = nullptr);
  RunConfig config() const;
  void set_config(const RunConfig& config);
  // The per-field problems of `config`: each controlled field against the scenario schema (range,
  // choice). Cheap, so the GUI thread runs it; check_run_config's cross-field checks (which may
  // build a large cluster) run on the engine's worker (TrainingBridge). Each names its field.
  ConfigProblems check(const RunConfig& config) const;
  // Shows the problems' text; each marks the control of its field (or, for a field that groups
  // several, such as techniques.skipreduce, its first control). Empty clears.
  void show_problems(const ConfigProblems& problems);
  // The problems' whole text (the label may show it elided), one per line.
  QString problems_text() const;
  // Settings that run but probably not as meant (a Protected entry naming no bucket of the model,
  // protected buckets with a policy that ignores them): shown after the problems, in amber, and
  // marked on their control; they never stop a run.
  ConfigProblems warnings(const RunConfig& config) const;
  QString warnings_text() const { return warnings_text_; }
  QStringList warned_fields() const { return warned_; }
  // The controls whose value is invalid right now (for tests).
  QStringList marked_fields() const;
  // The control editing a JSON path (for tests), or null.
  QWidget* control(const std::string& path) const;
  ClusterEditor* cluster_editor() const { return custom_; }
  // The refusal message (top of the panel, its height fixed; a view may lay it out above its
  // scroll area).
  QLabel* problems_label() const { return problems_; }

 signals:
  void changed();   // the user edited a control
  void replaced();  // set_config showed other settings (no changed() for those)

 protected:
  // The mouse wheel scrolls the panel: a spin box or combo box takes it only when focused.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // One group box of controls each (training_panel.cpp), in the order the panel shows them.
  void build_communication(QFormLayout* f);
  void build_skipreduce(QFormLayout* f);
  void build_trimming(QFormLayout* f);
  void build_cluster(QFormLayout* f);  // spec, ranks and GPUs per node
  void build_network(QFormLayout* f);  // the custom cluster's other knobs, backend, background
  void build_workload(QFormLayout* f);
  QWidget* add(const std::string& path, QWidget* control, const QString& tip);
  void live_check();
  void ranks_edited(int ranks);  // the spec follows when it can (cluster_sync.h)
  void spec_edited();            // Ranks follows a typed spec
  // The control a problem's field marks, or null; `path` is the control's path.
  QWidget* field_control(const std::string& field, std::string* path) const;
  void show_config(const RunConfig& c);  // set_config without replaced()
  void update_applicability();           // disables the controls the settings do not use

  RunConfig base_;  // fields without a control keep these values
  QLineEdit* cluster_;
  ClusterEditor* custom_;
  QComboBox* backend_;
  QComboBox* background_;
  QDoubleSpinBox* background_load_;
  QComboBox* transport_;
  QComboBox* kind_;
  QComboBox* catalog_;
  QSpinBox* tp_;
  QSpinBox* pp_;
  QComboBox* model_;
  QLineEdit* hidden_;
  QComboBox* dataset_;
  QSpinBox* ranks_;
  QSpinBox* iterations_;
  QSpinBox* batch_;
  QSpinBox* eval_every_;
  QDoubleSpinBox* lr_;
  QComboBox* optimizer_;
  QComboBox* decay_;
  QComboBox* sharding_;
  QSpinBox* seed_;
  QComboBox* algorithm_;
  QComboBox* wire_;
  QComboBox* codec_;
  QSpinBox* skip_;
  QDoubleSpinBox* skip_ratio_;
  QComboBox* policy_;
  QLineEdit* protected_;
  QCheckBox* trim_;
  QComboBox* trim_encoding_;
  QComboBox* trim_mode_;
  QDoubleSpinBox* trim_rate_;
  QLabel* problems_;
  std::map<std::string, QWidget*> by_path_;
  QStringList marked_;
  QString problems_text_, warnings_text_;
  QStringList warned_;
};

}  // namespace commlab::ui
