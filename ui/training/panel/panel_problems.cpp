// TrainingPanel's problems: the per-field checks, the warnings, and marking the control of each
// problem's field, with the messages above the fold in a space of fixed height.
#include <QComboBox>
#include <QLabel>
#include <QPalette>
#include <QScrollArea>
#include <QSpinBox>
#include <algorithm>

#include "cluster_sync.h"
#include "scenario/config_enums.h"
#include "scenario/schema.h"
#include "train/layers/conv.h"
#include "train/layers/transformer.h"
#include "train/model.h"
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

namespace {

// The buckets (layers with parameters) of the configured model, by name. The names do not depend
// on the widths, so the model is built with the smallest ones.
std::vector<std::string> bucket_names(const WorkloadConfig& w) {
  Model m;
  if (w.model == "mlp")
    m = make_mlp(1, std::vector<int>(w.hidden.empty() ? 1 : w.hidden.size(), 1), 1);
  else if (w.model == "cnn")
    m = make_cnn(ImageShape{4, 4, 1}, 2, 1, 1);
  else if (w.model == "transformer")
    m = make_transformer(2, 2, 4, 4, 2);
  std::vector<std::string> names;
  for (size_t i = 0; i < m.num_layers(); ++i)
    if (m.layer(i).num_params() > 0) names.push_back(m.layer(i).name());
  return names;
}

}  // namespace

ConfigProblems TrainingPanel::warnings(const RunConfig& config) const {
  ConfigProblems out;
  const auto& skip = config.techniques.skipreduce;
  if (skip.protected_buckets.empty() || config.workload.kind != WorkloadKind::kTrain) return out;
  const std::string field = "techniques.skipreduce.protected_buckets";
  const std::vector<std::string> names = bucket_names(config.workload);
  std::string unknown, known;
  for (const std::string& b : skip.protected_buckets)
    if (std::find(names.begin(), names.end(), b) == names.end())
      unknown += (unknown.empty() ? "'" : ", '") + b + "'";
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  if (!names.empty() && !unknown.empty())
    out.push_back({ErrorCode::kBadInput, field,
                   unknown + " names no bucket of the " + config.workload.model + " (" + known +
                       "): nothing is protected by it"});
  if (skip.policy != SkipPolicy::kSelective)
    out.push_back({ErrorCode::kBadInput, field,
                   "protected buckets apply to the selective policy only (policy is " +
                       enum_name(skip.policy) + ")"});
  return out;
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
  // Warnings: an amber field and their line after the problems; they never stop a run.
  warned_.clear();
  QStringList warnings;
  for (const ConfigProblem& p : this->warnings(config())) {
    const QString text = "warning: " + panel_wording(QString::fromStdString(p.text()));
    warnings << text;
    std::string path;
    QWidget* target = field_control(p.field, &path);
    if (!target || marked_.contains(QString::fromStdString(path))) continue;
    if (!warned_.contains(QString::fromStdString(path))) warned_ << QString::fromStdString(path);
    target->setStyleSheet("border: 2px solid #c08000;");
    target->setToolTip(target->toolTip() + "\n\u26a0 " + text);
  }
  problems_text_ = problems.join("\n");
  warnings_text_ = warnings.join("\n");
  // The label's line: the problems first (red), else the warnings (amber), elided.
  // With neither, a grey line says what the reserved space is for.
  QString shown = problems.isEmpty() ? warnings_text_ : problems_text_;
  if (shown.isEmpty()) shown = kNoProblemsText;
  const QString all = QStringList({problems_text_, warnings_text_}).join("\n").trimmed();
  // Before its first layout a label is 100 px wide; the side column gives it about 330.
  const int room = problems_->width() > 200 ? problems_->width() - 8 : 320;
  problems_->setText(problems_->fontMetrics().elidedText(shown.simplified(), Qt::ElideRight, room));
  problems_->setStyleSheet(!problems.isEmpty()   ? "color: #b03030;"
                           : !warnings.isEmpty() ? "color: #8a5a00;"
                                                 : "color: #888888;");
  problems_->setToolTip(all);
  // The first marked control is scrolled into view (the message itself is at the top).
  for (QWidget* w = parentWidget(); w && first; w = w->parentWidget())
    if (auto* scroll = qobject_cast<QScrollArea*>(w)) {
      scroll->ensureWidgetVisible(first);
      break;
    }
}

QString TrainingPanel::problems_text() const {
  return problems_text_;
}

QStringList TrainingPanel::marked_fields() const {
  return marked_;
}

}  // namespace commlab::ui
