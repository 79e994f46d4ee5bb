#include "runs_list.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace commlab::ui {

namespace {

constexpr int kIdRole = Qt::UserRole + 1;
constexpr int kColumns = 10;  // run, scenario, five figures, two over seeds, what differs

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
  tree_->setHeaderLabels({"run", "scenario", "accuracy", "ms / iter", "to target", "speedup",
                          "MB / iter", "to target, seeds", "speedup, seeds",
                          "differs from the baseline"});
  tree_->headerItem()->setToolTip(2, "Final test accuracy (last evaluation).");
  tree_->headerItem()->setToolTip(3, "Simulated milliseconds per iteration.");
  tree_->headerItem()->setToolTip(
      4,
      "Simulated milliseconds to training.target_accuracy (smoothed crossing, as summary.json).");
  tree_->headerItem()->setToolTip(
      5,
      "Time-to-accuracy speedup over the baseline row, this seed (the next columns give the "
      "interval over seeds).");
  tree_->headerItem()->setToolTip(6, "Megabytes on the wire per iteration, all ranks.");
  tree_->headerItem()->setToolTip(
      7,
      "Time to target over the seeds of the Compare tab's last comparison of this run: seeds "
      "that reached it, censored median and 95% order-statistic interval (from 6 seeds), as "
      "summary.json. \"1 seed\": run a comparison for the interval.");
  tree_->headerItem()->setToolTip(
      8,
      "Speedup over the baseline row, paired by seed (geometric mean, 95% Student-t interval on "
      "the log ratios, verdict), as commlab-cli run --seeds N reports it.");
  tree_->setRootIsDecorated(false);
  tree_->setUniformRowHeights(true);
  tree_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  tree_->header()->setStretchLastSection(true);
  tree_->header()->setSectionResizeMode(0, QHeaderView::Interactive);
  tree_->setColumnWidth(0, 170);
  tree_->setColumnWidth(1, 110);
  for (int c = 2; c < 7; ++c) tree_->setColumnWidth(c, 78);
  tree_->setColumnWidth(7, 150);
  tree_->setColumnWidth(8, 150);
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
  auto* buttons = new QVBoxLayout;
  buttons->addWidget(baseline_);
  buttons->addWidget(remove_);
  buttons->addWidget(clear_);
  buttons->addWidget(undo_);
  buttons->addStretch(1);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tree_, 1);
  layout->addLayout(buttons);

  connect(tree_, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
    if (filling_ || column != 0) return;
    // Read everything first: the view answers by refreshing the rows, this one included.
    const int id = item->data(0, kIdRole).toInt();
    const bool visible = item->checkState(0) == Qt::Checked;
    const QString name = item->text(0).trimmed();
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
    item->setText(0, r.name);
    item->setData(0, Qt::UserRole, r.name);
    item->setData(0, kIdRole, r.id);
    item->setIcon(0, swatch(r.color, r.current));
    item->setCheckState(0, r.visible ? Qt::Checked : Qt::Unchecked);
    item->setText(1, r.scenario);
    int column = 2;
    for (const QString* figure : {&r.accuracy, &r.per_iteration, &r.tta, &r.speedup, &r.wire,
                                  &r.tta_seeds, &r.speedup_seeds}) {
      item->setText(column, *figure);
      item->setTextAlignment(column++, Qt::AlignRight | Qt::AlignVCenter);
    }
    item->setText(kColumns - 1, r.changes.isEmpty() ? QString("(none)") : r.changes);
    QFont font = item->font(5);
    font.setBold(r.baseline);  // the speedups' reference
    item->setFont(5, font);
    item->setFont(8, font);
    const QString tip = QString("%1%2\nscenario: %3\ndiffers from the baseline: %4")
                            .arg(r.name, r.current ? " (current run)" : "", r.scenario,
                                 r.changes.isEmpty() ? QString("nothing") : r.changes);
    for (int c = 0; c < kColumns; ++c) item->setToolTip(c, tip);
    if (!same && r.id == selected) item->setSelected(true);
  }
  // The table is the charts' legend: run and scenario names are never elided (the table scrolls
  // sideways instead).
  tree_->resizeColumnToContents(0);
  tree_->resizeColumnToContents(1);
  filling_ = false;
  clear_->setEnabled(!rows.empty());
  remove_->setEnabled(selected_id() != 0);
  baseline_->setEnabled(selected_id() != 0);
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
