// TrainingPanel's problems: the per-field checks, and marking the control of each problem's field,
// with the messages above the fold.
#include <QComboBox>
#include <QLabel>
#include <QPalette>
#include <QScrollArea>
#include <QSpinBox>

#include "cluster_sync.h"
#include "scenario/schema.h"
#include "training_panel.h"

namespace commlab::ui {

ConfigProblems TrainingPanel::check(const RunConfig& config) const {
  ConfigProblems problems;
  const nlohmann::json doc = to_json(config);
  for (const auto& [path, w] : by_path_) {
    const Field* field = find_field(path);
    if (!field) continue;
    const auto pointer = field_pointer(path);
    if (!doc.contains(pointer)) continue;
    if (auto bad = check_field_value(*field, doc.at(pointer)))
      problems.push_back({ErrorCode::kBadInput, path, *bad});
  }
  if (config.workload.kind == WorkloadKind::kTrain && config.training.ranks > kMaxTrainingRanks)
    problems.push_back({ErrorCode::kBadInput, "training.ranks",
                        "training runs take at most " + std::to_string(kMaxTrainingRanks) +
                            " ranks, got " + std::to_string(config.training.ranks)});
  const QString spec = QString::fromStdString(config.cluster.spec).trimmed();
  const int gpus = spec_gpu_count(spec);
  QString why;
  if (gpus > 0 && gpus != config.training.ranks &&
      !spec_for_ranks(spec, config.training.ranks, gpus, &why))
    problems.push_back({ErrorCode::kBadInput, "training.ranks", why.toStdString()});
  else if (gpus > 0 && gpus != config.training.ranks)
    problems.push_back({ErrorCode::kBadInput, "training.ranks",
                        "Ranks is " + std::to_string(config.training.ranks) +
                            " but the Cluster has " + std::to_string(gpus) +
                            " GPUs: set Ranks or the Cluster (either updates the other)"});
  return problems;
}

void TrainingPanel::live_check() {
  show_problems(check(config()));
}

namespace {

// A red mark that keeps a spin box's arrows: a style sheet border makes Qt draw the box itself
// (no native arrows), so spin and combo boxes get a tinted field instead.
void mark(QWidget* w, bool bad) {
  w->setProperty("problem", bad);
  if (qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w)) {
    w->setStyleSheet("");
    QPalette p;  // empty: inherits the application's
    if (bad) {
      p = w->palette();
      p.setColor(QPalette::Base, QColor("#f6c8c8"));
      p.setColor(QPalette::Button, QColor("#f6c8c8"));
    }
    w->setPalette(p);
  } else {
    w->setStyleSheet(bad ? "border: 2px solid #b03030;" : "");
  }
}

}  // namespace

QWidget* TrainingPanel::field_control(const std::string& field, std::string* path_out) const {
  if (field.empty()) return nullptr;
  // The field's own control, else the first control inside it ("techniques.skipreduce").
  auto it = by_path_.lower_bound(field);
  if (it == by_path_.end()) return nullptr;
  if (it->first != field && it->first.rfind(field + ".", 0) != 0) return nullptr;
  *path_out = it->first;
  return it->second;
}

void TrainingPanel::show_problems(const ConfigProblems& raw) {
  for (auto& [path, w] : by_path_) {
    mark(w, false);
    w->setToolTip(w->property("tip").toString());
  }
  marked_.clear();
  QWidget* first = nullptr;
  QStringList problems;
  for (const ConfigProblem& p : raw) {
    const QString text = panel_wording(QString::fromStdString(p.text()));
    if (!text.trimmed().isEmpty()) problems << text;
    std::string path;
    QWidget* target = field_control(p.field, &path);
    if (!target) continue;
    mark(target, true);
    target->setToolTip(target->property("tip").toString() + "\n\u26a0 " + text);
    marked_ << QString::fromStdString(path);
    if (!first) first = target;
  }
  problems_->setText(problems.join("\n"));
  problems_->setVisible(!problems.isEmpty());
  // The first marked control is scrolled into view (the message itself is at the top).
  for (QWidget* w = parentWidget(); w && first; w = w->parentWidget())
    if (auto* scroll = qobject_cast<QScrollArea*>(w)) {
      scroll->ensureWidgetVisible(first);
      break;
    }
}

QString TrainingPanel::problems_text() const {
  return problems_->text();
}

QStringList TrainingPanel::marked_fields() const {
  return marked_;
}

}  // namespace commlab::ui
