// TrainingPanel's problems: the per-field checks, and marking the control each message names
// (the one it starts with), with the messages above the fold.
#include <QComboBox>
#include <QLabel>
#include <QPalette>
#include <QScrollArea>
#include <QSpinBox>

#include "cluster_sync.h"
#include "scenario/schema.h"
#include "training_panel.h"

namespace commlab::ui {

QStringList TrainingPanel::check(const RunConfig& config) const {
  QStringList problems;
  const nlohmann::json doc = to_json(config);
  for (const auto& [path, w] : by_path_) {
    const Field* field = find_field(path);
    if (!field) continue;
    const auto pointer = field_pointer(path);
    if (!doc.contains(pointer)) continue;
    if (auto bad = check_field_value(*field, doc.at(pointer)))
      problems << QString::fromStdString(path + ": " + *bad);
  }
  if (config.workload.kind == WorkloadKind::kTrain && config.training.ranks > kMaxTrainingRanks)
    problems << QString("training.ranks: training runs take at most %1 ranks, got %2")
                    .arg(kMaxTrainingRanks)
                    .arg(config.training.ranks);
  const QString spec = QString::fromStdString(config.cluster.spec).trimmed();
  const int gpus = spec_gpu_count(spec);
  QString why;
  if (gpus > 0 && gpus != config.training.ranks &&
      !spec_for_ranks(spec, config.training.ranks, gpus, &why))
    problems << "training.ranks: " + why;
  else if (gpus > 0 && gpus != config.training.ranks)
    problems << QString(
                    "training.ranks: Ranks is %1 but the Cluster has %2 GPUs: set Ranks or "
                    "the Cluster (either updates the other)")
                    .arg(config.training.ranks)
                    .arg(gpus);
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

QWidget* TrainingPanel::problem_target(const std::string& text, std::string* path_out) const {
  // The path the message starts with ("techniques.codec: ... trimming.enabled ..."), else the
  // longest control path it names.
  const std::string head = text.substr(0, text.find(':'));
  if (auto it = by_path_.find(head); it != by_path_.end()) {
    *path_out = head;
    return it->second;
  }
  QWidget* target = nullptr;
  for (auto& [path, w] : by_path_)
    if (text.find(path) != std::string::npos && path.size() > path_out->size()) {
      *path_out = path;
      target = w;
    }
  return target;
}

void TrainingPanel::show_problems(const QStringList& raw) {
  QStringList problems;
  for (const QString& p : raw)
    if (!p.trimmed().isEmpty()) problems << panel_wording(p);
  for (auto& [path, w] : by_path_) {
    mark(w, false);
    w->setToolTip(w->property("tip").toString());
  }
  marked_.clear();
  QWidget* first = nullptr;
  for (const QString& p : problems) {
    std::string path;
    QWidget* target = problem_target(p.toStdString(), &path);
    if (!target) continue;
    mark(target, true);
    target->setToolTip(target->property("tip").toString() + "\n\u26a0 " + p);
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
