#pragma once
// The Training tab's scenario panel: the settings of one run (cluster, workload, training,
// collective, techniques, backend) as controls with a one-sentence tooltip each. It turns them into
// a RunConfig and shows the engine's complaints next to the control they concern, keeping the
// user's edits.
#include <QWidget>
#include <map>
#include <string>

#include "scenario/run_config.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace commlab::ui {

class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingPanel(QWidget* parent = nullptr);
  RunConfig config() const;
  void set_config(const RunConfig& config);
  // Problems as "json.path: message"; each marks the control owning that path. Empty clears.
  void show_problems(const QStringList& problems);
  QString problems_text() const;
  // The controls whose value is invalid right now (for tests).
  QStringList marked_fields() const;

 signals:
  void changed();

 private:
  QWidget* add(const std::string& path, QWidget* control, const QString& tip);

  RunConfig base_;  // fields without a control keep these values
  QLineEdit* cluster_;
  QComboBox* backend_;
  QComboBox* model_;
  QComboBox* dataset_;
  QSpinBox* ranks_;
  QSpinBox* iterations_;
  QSpinBox* batch_;
  QDoubleSpinBox* lr_;
  QComboBox* algorithm_;
  QComboBox* codec_;
  QSpinBox* skip_;
  QComboBox* policy_;
  QCheckBox* trim_;
  QComboBox* trim_encoding_;
  QDoubleSpinBox* trim_rate_;
  QSpinBox* seed_;
  QLabel* problems_;
  std::map<std::string, QWidget*> by_path_;
  QStringList marked_;
};

}  // namespace commlab::ui
