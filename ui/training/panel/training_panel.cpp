#include "training_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>
#include <stdexcept>

#include "cluster_editor.h"
#include "cluster_sync.h"
#include "codec/codec.h"
#include "scenario/scenario.h"
#include "scenario/schema.h"
#include "typing_pause.h"
#include "workload/catalog/catalog.h"

namespace commlab::ui {

namespace {

QComboBox* combo(const QStringList& items, bool editable = false) {
  auto* c = new QComboBox;
  c->addItems(items);
  c->setEditable(editable);
  return c;
}

// A combo box of an enum field's spellings (config_enums.h), in the field table's order.
template <class E>
QComboBox* enum_combo() {
  QStringList items;
  for (const std::string& name : enum_names<E>()) items << QString::fromStdString(name);
  return combo(items);
}

// A combo box of a string field's fixed choices in the scenario's field table (schema.h), e.g.
// collective.algorithm: the words validation accepts, in the docs' order.
QComboBox* field_combo(const std::string& path) {
  const Field* field = find_field(path);
  if (!field || field->type != FieldType::kEnum)
    throw std::logic_error("no enum field " + path + " in the scenario's field table");
  QStringList items;
  for (const std::string& name : field->choices) items << QString::fromStdString(name);
  return combo(items);
}

// The enum value a combo box shows; `fallback` when its text is no spelling of E.
template <class E>
E combo_value(const QComboBox* box, E fallback) {
  return parse_enum<E>(box->currentText().toStdString()).value_or(fallback);
}

QSpinBox* spin(int lo, int hi, int value) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setValue(value);
  return s;
}

QDoubleSpinBox* dspin(double lo, double hi, double step, int decimals) {
  auto* d = new QDoubleSpinBox;
  d->setRange(lo, hi);
  d->setSingleStep(step);
  d->setDecimals(decimals);
  return d;
}

// Two controls on one form row, "A  label B" (saves a row for the 1280x800 fold).
QHBoxLayout* pair_row(QWidget* first, const QString& label, QWidget* second) {
  auto* row = new QHBoxLayout;
  row->addWidget(first, 1);
  row->addWidget(new QLabel(label));
  row->addWidget(second, 1);
  return row;
}

QStringList split_list(const QString& text) {
  QStringList out;
  for (const QString& s : text.split(',', Qt::SkipEmptyParts))
    if (!s.trimmed().isEmpty()) out << s.trimmed();
  return out;
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
  // The problems sit at the top, above the fold: a refusal is seen where it is explained. Its
  // line is always reserved, so a message appearing or going never moves a control (the next
  // click lands where the user aimed); a longer text is elided, whole in its tooltip and in the
  // tooltip of the control it marks. One line: two pushed the trimming knob below the fold at
  // 1280x800 (tests/ui/panel_fold_test.cpp).
  problems_ = new QLabel;
  problems_->setObjectName("problems");
  problems_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  problems_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  problems_->setFixedHeight(problems_->fontMetrics().lineSpacing() + 4);
  problems_->setText(kNoProblemsText);
  problems_->setStyleSheet("color: #888888;");
  column->addWidget(problems_);
  // Above the fold at 1280x800: the cluster's size (spec, ranks, GPUs per node, kept
  // in step) and each technique's key knob (codec, skip, trimming); then the rest of the network
  // and what trains on it.
  build_cluster(group("Cluster"));
  build_communication(group("Communication"));
  build_skipreduce(group("SkipReduce"));
  build_trimming(group("Trimming"));
  build_network(group("Custom cluster and network"));
  build_workload(group("Workload and training"));
  column->addStretch(1);
  set_config(base_);
  // One source of truth: Ranks rewrites the spec (when it can) before anyone sees the change,
  // and a typed spec sets Ranks to its GPU count (cluster_sync.h).
  connect(ranks_, &QSpinBox::valueChanged, this, [this](int n) {
    ranks_edited(n);
    emit changed();
  });
  // The custom cluster writes the spec and sets the ranks to its GPU count.
  connect(custom_, &ClusterEditor::spec_edited, this, [this](const QString& spec, int gpus) {
    cluster_->setText(spec);
    // The compute model follows an edited GPU type (a loaded file's choice stays until then).
    if (custom_->value().kind != "flat") base_.cluster.gpu = custom_->value().gpu.toStdString();
    {
      const QSignalBlocker b(ranks_);
      ranks_->setValue(gpus);
    }
    emit changed();
  });
  connect(cluster_, &QLineEdit::editingFinished, this, [this] {
    spec_edited();
    emit changed();
  });
  connect(this, &TrainingPanel::changed, this, &TrainingPanel::live_check);
  connect(this, &TrainingPanel::changed, this, &TrainingPanel::update_applicability);
  // A wheel turned over the panel must not change whatever control passes under the pointer.
  for (QWidget* w : findChildren<QWidget*>()) {
    if (!qobject_cast<QAbstractSpinBox*>(w) && !qobject_cast<QComboBox*>(w)) continue;
    w->setFocusPolicy(Qt::StrongFocus);
    w->installEventFilter(this);
  }
}

void TrainingPanel::build_communication(QFormLayout* f) {
  algorithm_ = field_combo("collective.algorithm");
  f->addRow("Algorithm",
            add("collective.algorithm", algorithm_, "All-reduce algorithm for the gradients."));
  wire_ = field_combo("collective.wire");
  f->addRow("Wire type", add("collective.wire", wire_,
                             "Number format of gradients on the wire when no codec is set."));
  QStringList codecs{"none"};
  for (const std::string& name : codec_names()) codecs << QString::fromStdString(name);
  codec_ = combo(codecs);
  f->addRow("Codec", add("techniques.codec", codec_,
                         "Gradient compression applied to every transfer (none: the wire type)."));
}

void TrainingPanel::build_skipreduce(QFormLayout* f) {
  skip_ = spin(0, 1023, 0);
  skip_ratio_ = dspin(0, 1, 0.05, 3);
  f->addRow("Skip s",
            pair_row(add("techniques.skipreduce.skip", skip_,
                         "Ring reduce-scatter steps to skip (ring only); 0 is off."),
                     "or ratio",
                     add("techniques.skipreduce.ratio", skip_ratio_,
                         "Fraction of steps to skip, s = round(ratio x ranks), when s is 0.")));
  policy_ = enum_combo<SkipPolicy>();
  f->addRow("Policy", add("techniques.skipreduce.policy", policy_,
                          "Which ranks SkipReduce drops: rotating, fixed, or large buckets only."));
  protected_ = new QLineEdit;
  f->addRow("Protected", add("techniques.skipreduce.protected_buckets", protected_,
                             "Buckets (layers) never skipped, comma-separated (selective)."));
}

void TrainingPanel::build_trimming(QFormLayout* f) {
  trim_ = new QCheckBox("enabled");
  trim_rate_ = dspin(0, 1, 0.05, 3);
  f->addRow("Trimming",
            pair_row(add("techniques.trimming.enabled", trim_,
                         "Send gradients as trimmable packets whose tails the network may cut."),
                     "rate",
                     add("techniques.trimming.rate", trim_rate_,
                         "Fraction of packets trimmed (Bernoulli mode).")));
  trim_encoding_ = enum_combo<trim::TrimEncoding>();
  f->addRow("Encoding", add("techniques.trimming.encoding", trim_encoding_,
                            "Quantizer of the packet heads that survive trimming."));
  trim_mode_ = enum_combo<TrimMode>();
  f->addRow("Mode", add("techniques.trimming.mode", trim_mode_,
                        "Who trims: a coin per packet (bernoulli) or full switch queues "
                        "(queue, packet backend)."));
}

void TrainingPanel::build_cluster(QFormLayout* f) {
  cluster_ = new QLineEdit;
  f->addRow("Cluster", add("cluster.spec", cluster_,
                           "Cluster preset or builder spec; its GPU count must equal the ranks."));
  custom_ = new ClusterEditor;
  ranks_ = spin(1, kMaxRanks, 8);    // wide: a typed 3456 is kept and reported, not cut to 345
  apply_after_typing_pause(ranks_);  // 3456 is one edit, not 3, 34, 345 and 3456
  f->addRow("Ranks",
            pair_row(add("training.ranks", ranks_, "Data-parallel ranks (GPUs) in the run."),
                     "GPUs per node", custom_->gpus_per_node_box()));
}

void TrainingPanel::build_network(QFormLayout* f) {
  f->addRow(custom_);
  backend_ = enum_combo<ClusterBackend>();
  f->addRow("Backend",
            add("cluster.backend", backend_,
                "Network model: analytical (flow-level, fast) or packet (queues, trims)."));
  transport_ = enum_combo<Transport>();
  f->addRow("Transport", add("packet.transport", transport_,
                             "Packet backend: how hosts treat trimmed packets (retransmit the "
                             "payload, NDP pull, or accept the head)."));
  background_ = combo({"none", "incast:4", "perm", "alltoall", "onoff"}, true);
  f->addRow("Background", add("packet.background", background_,
                              "Packet backend: competing traffic sharing the network (incast:K, "
                              "permutation, all-to-all, on-off)."));
  background_load_ = dspin(0, 1, 0.05, 2);
  f->addRow("Background load", add("packet.background_load", background_load_,
                                   "Fraction of line rate each onoff sender offers; incast, "
                                   "perm and all-to-all are closed loop and do not read it."));
}

void TrainingPanel::build_workload(QFormLayout* f) {
  kind_ = enum_combo<WorkloadKind>();
  f->addRow("Workload", add("workload.kind", kind_,
                            "Train a real model (train), time a large catalog model at real "
                            "scale (catalog: time split only, no loss to train), or replay the "
                            "scenario's Chakra trace (trace: workload.trace)."));
  QStringList catalog;
  for (const TransformerSpec& w : workload_catalog()) catalog << QString::fromStdString(w.name);
  catalog_ = combo(catalog, true);
  f->addRow("Catalog model", add("workload.catalog", catalog_,
                                 "Catalog workload (kind catalog): a published model whose every "
                                 "message is timed on the cluster."));
  tp_ = spin(1, 1024, 1);
  f->addRow("Tensor parallel", add("workload.tp", tp_,
                                   "Catalog: GPUs per tensor-parallel group (inside one server, "
                                   "on NVLink)."));
  pp_ = spin(1, 1024, 1);
  f->addRow("Pipeline stages", add("workload.pp", pp_,
                                   "Catalog: pipeline-parallel stages; data-parallel degree is "
                                   "ranks / (tp x pp)."));
  model_ = field_combo("workload.model");
  f->addRow("Model", add("workload.model", model_, "The model every rank trains a replica of."));
  hidden_ = new QLineEdit;
  f->addRow("Hidden layers",
            add("workload.hidden", hidden_,
                "Hidden layer widths of the MLP, comma-separated (e.g. 256,128)."));
  dataset_ = combo({"fashion-mnist", "spiral", "circles", "blobs", "xor"});
  f->addRow("Data set", add("workload.dataset", dataset_, "The data set the model learns."));
  iterations_ = spin(1, 1000000, 200);
  f->addRow("Iterations", add("training.iterations", iterations_, "Optimizer steps to run."));
  batch_ = spin(1, 1 << 20, 256);
  f->addRow("Global batch", add("training.global_batch", batch_,
                                "Samples per step over all ranks; must divide by the ranks."));
  eval_every_ = spin(0, 1000000, 50);
  f->addRow("Evaluate every", add("training.eval_every", eval_every_,
                                  "Test accuracy every this many iterations (0: at the end)."));
  lr_ = dspin(0, 10, 0.01, 4);
  f->addRow("Learning rate", add("training.lr", lr_, "Optimizer learning rate."));
  optimizer_ = enum_combo<OptimizerKind>();
  f->addRow("Optimizer", add("training.optimizer", optimizer_,
                             "The optimizer every rank steps with: SGD with momentum, or AdamW."));
  decay_ = enum_combo<DecayKind>();
  f->addRow("LR decay", add("training.decay", decay_, "Learning-rate schedule after the warm-up."));
  sharding_ = enum_combo<ShardingMode>();
  f->addRow("Sharding", add("training.sharding", sharding_,
                            "How the training rows are dealt to the ranks: random draws, fixed "
                            "shards, or non-iid label skew."));
  seed_ = spin(0, 1 << 30, 1);
  f->addRow("Seed", add("seed", seed_, "Seed of every random choice; same seed, same numbers."));
}

void TrainingPanel::ranks_edited(int ranks) {
  const QString spec = cluster_->text().trimmed();
  QString why;
  const auto next = spec_for_ranks(spec, ranks, spec_gpu_count(spec), &why);
  if (!next || *next == spec) return;  // a refusal is check()'s message, naming the control
  cluster_->setText(*next);
  custom_->show_spec(*next);
}

void TrainingPanel::spec_edited() {
  const QString spec = cluster_->text().trimmed();
  custom_->show_spec(spec);
  const int gpus = spec_gpu_count(spec);
  if (gpus <= 0 || gpus == ranks_->value()) return;
  const QSignalBlocker b(ranks_);
  ranks_->setValue(gpus);
}

bool TrainingPanel::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Wheel) {
    auto* w = qobject_cast<QWidget*>(watched);
    if (w && !w->hasFocus()) {
      event->ignore();  // ignored: the scroll area around the panel scrolls instead
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

QWidget* TrainingPanel::add(const std::string& path, QWidget* control, const QString& tip) {
  control->setToolTip(tip);
  control->setProperty("tip", tip);
  by_path_[path] = control;
  if (path == "training.ranks" || path == "cluster.spec") return control;  // see the constructor
  // Numbers apply on an arrow key at once and after a pause in typing (typing_pause.h).
  if (auto* box = qobject_cast<QAbstractSpinBox*>(control)) apply_after_typing_pause(box);
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

QWidget* TrainingPanel::control(const std::string& path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : it->second;
}

RunConfig TrainingPanel::config() const {
  RunConfig c = base_;
  c.cluster.spec = cluster_->text().trimmed().toStdString();
  c.cluster.backend = combo_value(backend_, c.cluster.backend);
  c.packet.transport = combo_value(transport_, c.packet.transport);
  c.packet.background = background_->currentText().trimmed().toStdString();
  c.packet.background_load = background_load_->value();
  c.workload.kind = combo_value(kind_, c.workload.kind);
  c.workload.catalog = catalog_->currentText().trimmed().toStdString();
  c.workload.tp = tp_->value();
  c.workload.pp = pp_->value();
  c.workload.model = model_->currentText().toStdString();
  c.workload.hidden.clear();
  for (const QString& w : split_list(hidden_->text())) {
    bool ok = false;
    const int v = w.toInt(&ok);
    c.workload.hidden.push_back(ok ? v : -1);  // -1: the schema check names the field
  }
  c.workload.dataset = dataset_->currentText().toStdString();
  c.training.ranks = ranks_->value();
  c.training.iterations = iterations_->value();
  c.training.global_batch = batch_->value();
  c.training.eval_every = eval_every_->value();
  c.training.lr = lr_->value();
  c.training.optimizer = combo_value(optimizer_, c.training.optimizer);
  c.training.decay = combo_value(decay_, c.training.decay);
  c.training.sharding = combo_value(sharding_, c.training.sharding);
  c.seed = static_cast<uint64_t>(seed_->value());
  c.collective.algorithm = algorithm_->currentText().toStdString();
  c.collective.wire = combo_value(wire_, c.collective.wire);
  c.techniques.codec = codec_->currentText().toStdString();
  c.techniques.skipreduce.skip = skip_->value();
  c.techniques.skipreduce.ratio = skip_ratio_->value();
  c.techniques.skipreduce.policy = combo_value(policy_, c.techniques.skipreduce.policy);
  c.techniques.skipreduce.protected_buckets.clear();
  for (const QString& b : split_list(protected_->text()))
    c.techniques.skipreduce.protected_buckets.push_back(b.toStdString());
  c.techniques.trimming.enabled = trim_->isChecked();
  c.techniques.trimming.encoding = combo_value(trim_encoding_, c.techniques.trimming.encoding);
  c.techniques.trimming.mode = combo_value(trim_mode_, c.techniques.trimming.mode);
  c.techniques.trimming.rate = trim_rate_->value();
  return c;
}

void TrainingPanel::set_config(const RunConfig& c) {
  show_config(c);
  update_applicability();
  emit replaced();
}

void TrainingPanel::update_applicability() {
  // Controls that do not apply are disabled, and their tooltip says why.
  const bool catalog = kind_->currentText() == "catalog";
  const bool train = kind_->currentText() == "train";
  const bool packet = backend_->currentText() == "packet";
  auto apply = [](QWidget* w, bool on, const QString& why) {
    w->setEnabled(on);
    const QString tip = w->toolTip().section("\n(Not used: ", 0, 0);  // keeps a problem mark
    w->setToolTip(on ? tip : tip + "\n(Not used: " + why + ")");
  };
  for (QWidget* w :
       {static_cast<QWidget*>(catalog_), static_cast<QWidget*>(tp_), static_cast<QWidget*>(pp_)})
    apply(w, catalog, "the workload is train; choose catalog to time a large model.");
  for (QWidget* w : {static_cast<QWidget*>(model_), static_cast<QWidget*>(hidden_),
                     static_cast<QWidget*>(dataset_)})
    apply(w, train, "a catalog or trace workload has its own model and no data set.");
  for (QWidget* w : {static_cast<QWidget*>(transport_), static_cast<QWidget*>(background_),
                     static_cast<QWidget*>(background_load_)})
    apply(w, packet, "the analytical backend has no packets; choose the packet backend.");
}

void TrainingPanel::show_config(const RunConfig& c) {
  base_ = c;
  const QSignalBlocker block(this);
  auto set_text = [](QComboBox* box, const std::string& text) {
    const QSignalBlocker b(box);
    QString t = QString::fromStdString(text);
    if (box->findText(t) < 0) box->addItem(t);
    box->setCurrentText(t);
  };
  cluster_->setText(QString::fromStdString(c.cluster.spec));
  custom_->show_spec(cluster_->text());
  set_text(backend_, enum_name(c.cluster.backend));
  set_text(transport_, enum_name(c.packet.transport));
  set_text(background_, c.packet.background);
  background_load_->setValue(c.packet.background_load);
  set_text(kind_, enum_name(c.workload.kind));
  set_text(catalog_, c.workload.catalog);
  tp_->setValue(c.workload.tp);
  pp_->setValue(c.workload.pp);
  set_text(model_, c.workload.model);
  QStringList hidden;
  for (int w : c.workload.hidden) hidden << QString::number(w);
  hidden_->setText(hidden.join(","));
  set_text(dataset_, c.workload.dataset);
  {
    const QSignalBlocker b(ranks_);  // keep the file's cluster spec as written
    ranks_->setValue(c.training.ranks);
  }
  iterations_->setValue(c.training.iterations);
  batch_->setValue(c.training.global_batch);
  eval_every_->setValue(c.training.eval_every);
  lr_->setValue(c.training.lr);
  set_text(optimizer_, enum_name(c.training.optimizer));
  set_text(decay_, enum_name(c.training.decay));
  set_text(sharding_, enum_name(c.training.sharding));
  seed_->setValue(static_cast<int>(c.seed));
  set_text(algorithm_, c.collective.algorithm);
  set_text(wire_, enum_name(c.collective.wire));
  set_text(codec_, c.techniques.codec);
  skip_->setValue(c.techniques.skipreduce.skip);
  skip_ratio_->setValue(c.techniques.skipreduce.ratio);
  set_text(policy_, enum_name(c.techniques.skipreduce.policy));
  QStringList prot;
  for (const std::string& b : c.techniques.skipreduce.protected_buckets)
    prot << QString::fromStdString(b);
  protected_->setText(prot.join(","));
  trim_->setChecked(c.techniques.trimming.enabled);
  set_text(trim_encoding_, enum_name(c.techniques.trimming.encoding));
  set_text(trim_mode_, enum_name(c.techniques.trimming.mode));
  trim_rate_->setValue(c.techniques.trimming.rate);
}

}  // namespace commlab::ui
