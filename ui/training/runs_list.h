#pragma once
// The Training tab's runs list, beside the charts: one row per run (the current one, pinned ones,
// Run all's), with its chart colour, name, scenario, final accuracy, time per iteration, time to
// the target accuracy, speedup over the baseline in that time, bytes on the wire, the same time and
// speedup over seeds with their 95% intervals (after a seeds comparison), and the settings that
// differ from the scenario's baseline. The check box shows or hides a run's curves, a double
// click renames it, Remove and Clear all drop runs. Run seeds asks for the runs over N seeds (the
// Compare tab's comparison, whose results fill the seed columns). The view owns the runs; this
// widget only shows rows and asks. Every column fits beside the settings at 1280x800 without
// scrolling sideways: short headers (their tooltips say what they hold), compact cells over seeds
// (full text in the tooltip), and the settings that differ elided in the last column that takes the
// remaining room.
#include <QColor>
#include <QString>
#include <QWidget>
#include <vector>

#include "seed_figures.h"

class QLabel;
class QPushButton;
class QSpinBox;
class QTreeWidget;
class QTreeWidgetItem;

namespace commlab::ui {

struct RunRow {
  int id = 0;  // the view's run id
  QString name, scenario, changes;
  QColor color;
  bool visible = true;
  bool current = false;  // the run being trained (or last trained and not kept)
  // The table's figures (core/views/run_figures.h), as shown: accuracy, ms per iteration, time to
  // the target, speedup over the baseline row in that time, MB on the wire per iteration.
  QString accuracy, per_iteration, tta, speedup, wire;
  // Over seeds (seed_figures.h): time to the target and speedup with their 95% intervals, from
  // the last seeds comparison of the same run; "1 seed" when there is none. The cell shows the
  // compact text, its tooltip the full one.
  SeedCell tta_seeds = tta_over_seeds(nullptr),
           speedup_seeds = speedup_over_seeds(nullptr, nullptr, false);
  bool baseline = false;  // the row speedups are against (its name is marked)
  // A live fork: "forked from 'X' at iteration N" (its name is marked with kForkMark, the text is
  // in its tooltip); or a run the file saved as a fork, trained here afresh. Empty: neither.
  QString fork;
  bool forked = false;  // a live fork (the first case)
  bool mixed = false;   // a fork whose per-iteration figures include its parent's iterations
};

// What the name column puts before a fork's name.
inline const QString kForkMark = QStringLiteral("\u21B3 ");

class RunsList : public QWidget {
  Q_OBJECT
 public:
  explicit RunsList(QWidget* parent = nullptr);
  void set_rows(const std::vector<RunRow>& rows);
  int row_count() const;
  // Enables "Undo remove" (the view keeps what Remove and Clear all took).
  void set_undo_available(bool available);
  QTreeWidget* tree() const { return tree_; }
  // A seeds comparison runs (Run seeds waits, `status` is its progress) or ended (`status` is its
  // outcome); `seeds` > 0: its seed count, shown in the Seeds box (the Compare tab may have
  // started it with its own count).
  void set_seeds_running(bool running, const QString& status, int seeds = 0);
  int seeds() const;

 signals:
  void visibility_changed(int id, bool visible);
  void renamed(int id, const QString& name);
  void remove_requested(int id);
  void clear_requested();
  void undo_requested();
  void baseline_requested(int id);   // "Use as baseline" on the selected row
  void highlight_requested(int id);  // the row the user selected (0: none): its curves stand out
  void seeds_requested(int seeds);   // Run seeds: the scenario's runs over this many seeds

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;  // the columns refit the viewport

 private:
  int selected_id() const;
  void fit_columns();  // the figures at their contents' width, the last column the rest

  QTreeWidget* tree_;
  QPushButton* remove_;
  QPushButton* clear_;
  QPushButton* undo_;
  QPushButton* baseline_;
  QSpinBox* seeds_;
  QPushButton* run_seeds_;
  QLabel* seeds_status_;
  bool filling_ = false;
};

}  // namespace commlab::ui
