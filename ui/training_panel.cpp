#include "training_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include "codec/codec.h"

namespace commlab::ui {

namespace {

QComboBox* combo(const QStringList& items) {
  auto* c = new QComboBox;
  c->addItems(items);
  return c;
}

QSpinBox* spin(int lo, int hi, int value) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setValue(value);
  return s;
}

}  // namespace

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
  // A quick default: the quickstart sample's baseline, evaluated often so charts fill early.
  base_.cluster.spec = "flat:8,gbps=200,alpha_us=5";
  base_.workload.max_train = 20000;
  base_.training.iterations = 200;
  base_.training.eval_every = 20;
  base_.training.eval_rows = 1000;

  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  auto group = [&](const QString& title) {
    auto* box = new QGroupBox(title);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    column->addWidget(box);
    return form;
  };
  QFormLayout* f = group("Cluster");
  cluster_ = new QLineEdit;
  f->addRow("Cluster", add("cluster.spec", cluster_,
                           "Cluster preset or builder spec; its GPU count must equal the ranks."));
  backend_ = combo({"analytical", "packet"});
  f->addRow("Backend",
            add("cluster.backend", backend_,
                "Network model: analytical (flow-level, fast) or packet (queues, trims)."));
  f = group("Training");
  model_ = combo({"mlp", "cnn", "transformer"});
  f->addRow("Model", add("workload.model", model_, "The model every rank trains a replica of."));
  dataset_ = combo({"fashion-mnist", "spiral", "circles", "blobs", "xor"});
  f->addRow("Data set", add("workload.dataset", dataset_, "The data set the model learns."));
  ranks_ = spin(1, 1024, 8);
  f->addRow("Ranks", add("training.ranks", ranks_, "Data-parallel ranks (GPUs) in the run."));
  iterations_ = spin(1, 1000000, 200);
  f->addRow("Iterations", add("training.iterations", iterations_, "Optimizer steps to run."));
  batch_ = spin(1, 1 << 20, 256);
  f->addRow("Global batch", add("training.global_batch", batch_,
                                "Samples per step over all ranks; must divide by the ranks."));
  lr_ = new QDoubleSpinBox;
  lr_->setDecimals(4);
  lr_->setRange(0, 10);
  lr_->setSingleStep(0.01);
  f->addRow("Learning rate", add("training.lr", lr_, "Optimizer learning rate."));
  seed_ = spin(0, 1 << 30, 1);
  f->addRow("Seed", add("seed", seed_, "Seed of every random choice; same seed, same numbers."));
  f = group("Communication");
  algorithm_ = combo({"ring", "tree", "hd", "hier", "direct"});
  f->addRow("Algorithm",
            add("collective.algorithm", algorithm_, "All-reduce algorithm for the gradients."));
  QStringList codecs{"none"};
  for (const std::string& name : codec_names()) codecs << QString::fromStdString(name);
  codec_ = combo(codecs);
  f->addRow("Codec",
            add("techniques.codec", codec_,
                "Gradient compression applied to every transfer (none: BF16 on the wire)."));
  skip_ = spin(0, 1023, 0);
  f->addRow("SkipReduce s", add("techniques.skipreduce.skip", skip_,
                                "Ring reduce-scatter steps to skip (ring only); 0 is off."));
  policy_ = combo({"random", "naive", "selective"});
  f->addRow("Skip policy",
            add("techniques.skipreduce.policy", policy_,
                "Which ranks SkipReduce drops: rotating, fixed, or large buckets only."));
  trim_ = new QCheckBox("enabled");
  f->addRow("Trimming",
            add("techniques.trimming.enabled", trim_,
                "Send gradients as trimmable packets whose tails the network may cut."));
  trim_encoding_ = combo({"eden", "drive", "sq"});
  f->addRow("Encoding", add("techniques.trimming.encoding", trim_encoding_,
                            "Quantizer of the packet heads that survive trimming."));
  trim_rate_ = new QDoubleSpinBox;
  trim_rate_->setRange(0, 1);
  trim_rate_->setSingleStep(0.05);
  f->addRow("Trim rate", add("techniques.trimming.rate", trim_rate_,
                             "Fraction of packets trimmed (Bernoulli mode)."));
  problems_ = new QLabel;
  problems_->setWordWrap(true);
  problems_->setStyleSheet("color: #b03030;");
  column->addWidget(problems_);
  column->addStretch(1);
  set_config(base_);
  // A flat cluster follows the rank count, so changing ranks alone stays valid.
  connect(ranks_, &QSpinBox::valueChanged, this, [this](int n) {
    QString spec = cluster_->text();
    spec.replace(QRegularExpression("^flat:\\d+"), QString("flat:%1").arg(n));
    cluster_->setText(spec);
  });
}

QWidget* TrainingPanel::add(const std::string& path, QWidget* control, const QString& tip) {
  control->setToolTip(tip);
  control->setProperty("tip", tip);
  by_path_[path] = control;
  if (auto* s = qobject_cast<QSpinBox*>(control))
    connect(s, &QSpinBox::valueChanged, this, &TrainingPanel::changed);
  else if (auto* d = qobject_cast<QDoubleSpinBox*>(control))
    connect(d, &QDoubleSpinBox::valueChanged, this, &TrainingPanel::changed);
  else if (auto* c = qobject_cast<QComboBox*>(control))
    connect(c, &QComboBox::currentTextChanged, this, &TrainingPanel::changed);
  else if (auto* e = qobject_cast<QLineEdit*>(control))
    connect(e, &QLineEdit::editingFinished, this, &TrainingPanel::changed);
  else if (auto* b = qobject_cast<QCheckBox*>(control))
    connect(b, &QCheckBox::toggled, this, &TrainingPanel::changed);
  return control;
}

RunConfig TrainingPanel::config() const {
  RunConfig c = base_;
  c.cluster.spec = cluster_->text().trimmed().toStdString();
  c.cluster.backend = backend_->currentText().toStdString();
  c.workload.model = model_->currentText().toStdString();
  c.workload.dataset = dataset_->currentText().toStdString();
  c.training.ranks = ranks_->value();
  c.training.iterations = iterations_->value();
  c.training.global_batch = batch_->value();
  c.training.lr = lr_->value();
  c.seed = static_cast<uint64_t>(seed_->value());
  c.collective.algorithm = algorithm_->currentText().toStdString();
  c.techniques.codec = codec_->currentText().toStdString();
  c.techniques.skipreduce.skip = skip_->value();
  c.techniques.skipreduce.ratio = 0;
  c.techniques.skipreduce.policy = policy_->currentText().toStdString();
  c.techniques.trimming.enabled = trim_->isChecked();
  c.techniques.trimming.encoding = trim_encoding_->currentText().toStdString();
  c.techniques.trimming.rate = trim_rate_->value();
  return c;
}

void TrainingPanel::set_config(const RunConfig& c) {
  base_ = c;
  const QSignalBlocker block(this);
  auto set_text = [](QComboBox* box, const std::string& text) {
    QString t = QString::fromStdString(text);
    if (box->findText(t) < 0) box->addItem(t);
    box->setCurrentText(t);
  };
  cluster_->setText(QString::fromStdString(c.cluster.spec));
  set_text(backend_, c.cluster.backend);
  set_text(model_, c.workload.model);
  set_text(dataset_, c.workload.dataset);
  {
    const QSignalBlocker b(ranks_);  // keep the file's cluster spec as written
    ranks_->setValue(c.training.ranks);
  }
  iterations_->setValue(c.training.iterations);
  batch_->setValue(c.training.global_batch);
  lr_->setValue(c.training.lr);
  seed_->setValue(static_cast<int>(c.seed));
  set_text(algorithm_, c.collective.algorithm);
  set_text(codec_, c.techniques.codec);
  skip_->setValue(c.techniques.skipreduce.skip);
  set_text(policy_, c.techniques.skipreduce.policy);
  trim_->setChecked(c.techniques.trimming.enabled);
  set_text(trim_encoding_, c.techniques.trimming.encoding);
  trim_rate_->setValue(c.techniques.trimming.rate);
}

void TrainingPanel::show_problems(const QStringList& problems) {
  for (auto& [path, w] : by_path_) {
    w->setStyleSheet("");
    w->setToolTip(w->property("tip").toString());
  }
  marked_.clear();
  for (const QString& p : problems) {
    // Longest control path that prefixes the message's path ("training.ranks: ...").
    const std::string text = p.toStdString();
    QWidget* target = nullptr;
    size_t best = 0;
    std::string best_path;
    for (auto& [path, w] : by_path_)
      if (text.find(path) != std::string::npos && path.size() > best) {
        best = path.size();
        target = w;
        best_path = path;
      }
    if (!target) continue;
    target->setStyleSheet("border: 2px solid #b03030;");
    target->setToolTip(target->property("tip").toString() + "\n\u26a0 " + p);
    marked_ << QString::fromStdString(best_path);
  }
  problems_->setText(problems.join("\n"));
}

QString TrainingPanel::problems_text() const {
  return problems_->text();
}

QStringList TrainingPanel::marked_fields() const {
  return marked_;
}

}  // namespace commlab::ui
