#include "runs_list.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace commlab::ui {

namespace {

constexpr int kIdRole = Qt::UserRole + 1;
constexpr int kColumns = 10;         // run, scenario, five figures, two over seeds, what differs
constexpr int kScenarioWidth = 110;  // the scenario column, when shown (several scenarios)
constexpr int kMinNameWidth = 120;   // the name column never shrinks below (swatch + ~12 chars)
constexpr int kMinLastWidth = 100;   // the last column (the settings that differ): the header's
                                     // default section size, below which a stretched last section
                                     // does not shrink

QIcon swatch(const QColor& color, bool current) {
  QPixmap pix(14, 14);
  pix.fill(Qt::transparent);
  QPainter p(&pix);
  p.setPen(QPen(color.darker(140), 1));
  p.setBrush(color);
  if (current)
    p.drawEllipse(1, 1, 12, 12);  // the run in progress: a dot
  else
    p.drawRect(1, 1, 11, 11);  // kept runs: a square
  return QIcon(pix);
}

}  // namespace

RunsList::RunsList(QWidget* parent) : QWidget(parent) {
  tree_ = new QTreeWidget;
  tree_->setColumnCount(kColumns);
  // Short headers, so that the table fits beside the settings at 1280x800; the tooltips say
  // what each column holds.
  tree_->setHeaderLabels({"run", "scenario", "accuracy", "ms/iter", "TTA ms", "speedup", "MB/iter",
                          "TTA ms, seeds", "speedup, seeds", "differs from the baseline"});
  const char* const tips[kColumns] = {
      "The run's name (double-click or F2 to rename it; a narrow column elides it, the row's "
      "tooltip has it whole); its swatch is its colour on the charts, kept for the run's life.",
      "The scenario file the run came from.",
      "Final test accuracy (last evaluation).",
      "Simulated milliseconds per iteration.",
      "Time to accuracy: simulated milliseconds to training.target_accuracy (smoothed crossing, "
      "as summary.json).",
      "Time-to-accuracy speedup over the baseline row, this seed (the seeds columns give the "
      "interval over seeds).",
      "Megabytes on the wire per iteration, all ranks.",
      "Time to target over the seeds of the last seeds comparison of this run (Run seeds, or the "
      "Compare tab): seeds that reached it, censored median in ms and 95% order-statistic "
      "interval (from 6 seeds; \"no CI\" below), as summary.json. \"1 seed\": run seeds for "
      "the interval. The cell's tooltip has the full text.",
      "Speedup over the baseline row, paired by seed (geometric mean, 95% Student-t interval on "
      "the log ratios, verdict), as commlab-cli run --seeds N reports it; the number of pairs is "
      "in the cell's tooltip.",
      "The settings of this run that differ from the scenario's baseline (the whole list is in "
      "the cell's tooltip)."};
  for (int c = 0; c < kColumns; ++c) tree_->headerItem()->setToolTip(c, tips[c]);
  tree_->setRootIsDecorated(false);
  // The columns refit whenever the viewport's width changes (window, splitter, vertical scroll
  // bar coming or going).
  tree_->viewport()->installEventFilter(this);
  tree_->setUniformRowHeights(true);
  tree_->setTextElideMode(Qt::ElideRight);
  tree_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  tree_->header()->setStretchLastSection(true);
  tree_->header()->setMinimumSectionSize(40);
  tree_->setToolTip(
      "Every run on the charts: click a row to draw its curves thicker, tick to show or hide "
      "them, double-click a name to rename it.");
  remove_ = new QPushButton("Remove");
  remove_->setToolTip("Drop the selected run from the charts and the list.");
  clear_ = new QPushButton("Clear all");
  clear_->setToolTip("Drop every run from the charts (the settings stay).");
  undo_ = new QPushButton("Undo remove");
  undo_->setObjectName("undo_remove");
  undo_->setToolTip("Bring back the runs the last Remove or Clear all took (their curves).");
  undo_->setEnabled(false);
  baseline_ = new QPushButton("Use as baseline");
  baseline_->setObjectName("use_as_baseline");
  baseline_->setToolTip("Compare every run's time to target with the selected run's (speedup).");
  seeds_ = new QSpinBox;
  seeds_->setObjectName("seeds");
  seeds_->setRange(2, 50);  // the Compare tab's range
  seeds_->setValue(5);
  seeds_->setToolTip(
      "How many seeds Run seeds trains each run of the scenario over (seed, seed+1, ...; paired "
      "by seed). The intervals of time to target need 6.");
  run_seeds_ = new QPushButton("Run seeds");
  run_seeds_->setObjectName("run_seeds");
  run_seeds_->setToolTip(
      "Train the scenario's runs (with your edits) over the seeds, as commlab-cli run --seeds N: "
      "the seed columns show each row's time to target and speedup with 95% intervals, the "
      "Compare tab the mean curves with their bands.");
  seeds_status_ = new QLabel;
  seeds_status_->setObjectName("seeds_status");
  seeds_status_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  seeds_status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // never widens
  // The buttons in a row under the table: beside it they took ~120 px of the table's width.
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(baseline_);
  buttons->addWidget(remove_);
  buttons->addWidget(clear_);
  buttons->addWidget(undo_);
  buttons->addStretch(1);
  buttons->addWidget(seeds_status_, 2);
  buttons->addWidget(new QLabel("Seeds"));
  buttons->addWidget(seeds_);
  buttons->addWidget(run_seeds_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tree_, 1);
  layout->addLayout(buttons);

  connect(tree_, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
    if (filling_ || column != 0) return;
    // Read everything first: the view answers by refreshing the rows, this one included.
    const int id = item->data(0, kIdRole).toInt();
    const bool visible = item->checkState(0) == Qt::Checked;
    QString name = item->text(0).trimmed();
    if (name.startsWith(kForkMark.trimmed())) name = name.mid(kForkMark.trimmed().size()).trimmed();
    if (!name.isEmpty() && name != item->data(0, Qt::UserRole).toString())
      emit renamed(id, name);
    else
      emit visibility_changed(id, visible);
  });
  connect(remove_, &QPushButton::clicked, this, [this] {
    const int id = selected_id();
    if (id != 0) emit remove_requested(id);
  });
  connect(clear_, &QPushButton::clicked, this, &RunsList::clear_requested);
  connect(undo_, &QPushButton::clicked, this, &RunsList::undo_requested);
  connect(run_seeds_, &QPushButton::clicked, this, [this] { emit seeds_requested(seeds()); });
  connect(baseline_, &QPushButton::clicked, this, [this] {
    const int id = selected_id();
    if (id != 0) emit baseline_requested(id);
  });
  connect(tree_, &QTreeWidget::itemSelectionChanged, this, [this] {
    remove_->setEnabled(selected_id() != 0);
    baseline_->setEnabled(selected_id() != 0);
    if (!filling_) emit highlight_requested(selected_id());
  });
  remove_->setEnabled(false);
  baseline_->setEnabled(false);
  clear_->setEnabled(false);
}

void RunsList::set_rows(const std::vector<RunRow>& rows) {
  filling_ = true;
  const int selected = selected_id();
  // The same runs in the same order are updated in place: this runs from the tree's own
  // itemChanged (a tick, a rename), whose item must outlive it.
  bool same = tree_->topLevelItemCount() == static_cast<int>(rows.size());
  for (size_t i = 0; same && i < rows.size(); ++i)
    same = tree_->topLevelItem(static_cast<int>(i))->data(0, kIdRole).toInt() == rows[i].id;
  if (!same) tree_->clear();
  for (size_t i = 0; i < rows.size(); ++i) {
    const RunRow& r = rows[i];
    QTreeWidgetItem* item =
        same ? tree_->topLevelItem(static_cast<int>(i)) : new QTreeWidgetItem(tree_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsEditable);
    // A live fork's name is marked (the mark is not part of the name: a rename drops it).
    const bool forked = r.forked;
    item->setText(0, forked ? kForkMark + r.name : r.name);
    item->setData(0, Qt::UserRole, r.name);
    item->setData(0, kIdRole, r.id);
    item->setIcon(0, swatch(r.color, r.current));
    item->setCheckState(0, r.visible ? Qt::Checked : Qt::Unchecked);
    item->setText(1, r.scenario);
    int column = 2;
    for (const QString* figure : {&r.accuracy, &r.per_iteration, &r.tta, &r.speedup, &r.wire,
                                  &r.tta_seeds.shown, &r.speedup_seeds.shown}) {
      item->setText(column, *figure);
      item->setTextAlignment(column++, Qt::AlignRight | Qt::AlignVCenter);
    }
    item->setText(kColumns - 1, r.changes.isEmpty() ? QString("(none)") : r.changes);
    QFont font = item->font(5);
    font.setBold(r.baseline);  // the speedups' reference
    item->setFont(5, font);
    item->setFont(8, font);
    QString tip = QString("%1%2\nscenario: %3\ndiffers from the baseline: %4")
                      .arg(r.name, r.current ? " (current run)" : "", r.scenario,
                           r.changes.isEmpty() ? QString("nothing") : r.changes);
    if (!r.fork.isEmpty()) {
      tip += "\n" + r.fork;
      if (forked)
        tip += r.mixed ? "\nms/iter and MB/iter: its own and its parent's iterations (mixed)"
                       : "\nms/iter and MB/iter: its own iterations only";
    }
    for (int c = 0; c < kColumns; ++c) item->setToolTip(c, tip);
    item->setToolTip(7, r.tta_seeds.full + "\n\n" + tip);
    item->setToolTip(8, r.speedup_seeds.full + "\n\n" + tip);
    if (!same && r.id == selected) item->setSelected(true);
  }
  // The scenario column only when the rows come from more than one scenario.
  bool one_scenario = true;
  for (const RunRow& r : rows) one_scenario = one_scenario && r.scenario == rows.front().scenario;
  tree_->setColumnHidden(1, one_scenario);
  fit_columns();
  filling_ = false;
  clear_->setEnabled(!rows.empty());
  remove_->setEnabled(selected_id() != 0);
  baseline_->setEnabled(selected_id() != 0);
}

void RunsList::fit_columns() {
  // Every figure column at its contents' width (never elided); the scenario (a file name, also in
  // each row's tooltip) at most kScenarioWidth; the run names at their width while the table fits
  // its viewport, else narrowed (elided, each row's tooltip starts with the whole name) so the
  // table never scrolls sideways; the last column (the settings that differ, elided, full list in
  // its tooltip) takes what room is left.
  for (int c = 0; c + 1 < kColumns; ++c) tree_->resizeColumnToContents(c);
  tree_->setColumnWidth(1, std::min(tree_->columnWidth(1), kScenarioWidth));
  int others = kMinLastWidth;
  for (int c = 1; c + 1 < kColumns; ++c)
    if (!tree_->isColumnHidden(c)) others += tree_->columnWidth(c);
  // A table not shown has no viewport width yet: it fits when shown (the viewport's resize).
  const int room = tree_->viewport()->width() - others;
  if (tree_->isVisible() && tree_->columnWidth(0) > room)
    tree_->setColumnWidth(0, std::max(kMinNameWidth, room));
}

bool RunsList::eventFilter(QObject* watched, QEvent* event) {
  if (watched == tree_->viewport() && event->type() == QEvent::Resize) fit_columns();
  return QWidget::eventFilter(watched, event);
}

void RunsList::set_seeds_running(bool running, const QString& status, int seeds) {
  if (seeds > 0) seeds_->setValue(seeds);
  run_seeds_->setEnabled(!running);
  seeds_->setEnabled(!running);
  seeds_status_->setText(status);
  seeds_status_->setToolTip(status);
}

int RunsList::seeds() const {
  return seeds_->value();
}

void RunsList::set_undo_available(bool available) {
  undo_->setEnabled(available);
}

int RunsList::row_count() const {
  return tree_->topLevelItemCount();
}

int RunsList::selected_id() const {
  const QList<QTreeWidgetItem*> items = tree_->selectedItems();
  return items.isEmpty() ? 0 : items.front()->data(0, kIdRole).toInt();
}

}  // namespace commlab::ui
