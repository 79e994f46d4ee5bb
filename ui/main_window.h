#pragma once
// The main window: one tab per view. Views own their settings and ask the engine on worker
// threads; the window only arranges them, offers File > Open / Save / Recent (scenario files, the
// same the CLI runs), Edit > Undo / Redo of the Training settings, Presets (samples/*.json, opened
// as untitled copies so Save never overwrites a shipped sample), Export for the current tab and
// Help, and renders itself for --screenshot. Topology and Teaching follow the scenario by default.
// The title names the scenario file and marks unsaved edits; quitting or opening another scenario
// with unsaved edits asks Save / Discard / Cancel.
#include <QMainWindow>
#include <QMessageBox>
#include <functional>
#include <string>

class QMenu;
class QTabWidget;

namespace commlab::views {
struct WorkloadSettings;
}

namespace commlab::ui {

class BusbwView;
class HelpBrowser;
class CompareView;
class Exportable;
class TeachingView;
class TopologyView;
class TrainingView;
class WorkloadView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;
  // True once every view has drawn what the engine computed (used by --screenshot and tests).
  bool idle() const;
  bool select_tab(const QString& name);
  QStringList tab_names() const;
  BusbwView* busbw_view() const { return busbw_; }
  TeachingView* teaching_view() const { return teaching_; }
  TopologyView* topology_view() const { return topology_; }
  TrainingView* training_view() const { return training_; }
  CompareView* compare_view() const { return compare_; }
  WorkloadView* workload_view() const { return workload_; }

  // The Workload tab's settings (a catalog workload or a Chakra trace); replays once.
  void set_workload_settings(const views::WorkloadSettings& settings);
  // Chooses the Throughput tab's cluster by its place in the chooser (0: the flat network of the
  // controls, then the NCCL clusters). An index outside [0, count) changes nothing and comes back
  // with valid = false; count is the number of clusters either way.
  struct ClusterChoice {
    bool valid = false;
    int count = 0;
  };
  ClusterChoice choose_throughput_cluster(int index);
  // The current tab as an exportable view, or null.
  Exportable* current_exportable() const;
  // Exports the current tab by the file's suffix (.png, .svg, .csv); empty string = success.
  QString export_current(const QString& file);
  // Loads a scenario into the Training tab (its runs in the run chooser). On failure returns the
  // problems ("FILE:JSON.PATH: message" each) and keeps the current settings. A shipped sample
  // (samples/*.json) opens as an untitled copy. Does not ask about unsaved edits (the menus do).
  QStringList open_scenario(const QString& file);
  // Saves what the Training tab shows: every run of its runs table (names, order, baseline, each
  // live fork's provenance), then the scenario's runs no row holds (the chosen one as edited);
  // empty string = success. Refuses a shipped sample's path.
  QString save_scenario(const QString& file);
  // The file Save writes to; empty for an untitled document (a preset, or nothing opened).
  QString scenario_file() const { return scenario_file_; }
  // Edited settings, or a runs table that differs from the one last opened or saved (runs
  // trained, pinned, renamed or removed, another baseline): what Save would change in the file.
  bool modified() const;
  // Recent scenario files, newest first (QSettings "recent_files").
  QStringList recent_files() const;

  // Topology and Teaching follow the Training tab's scenario (cluster, backend, background,
  // algorithm, SkipReduce, trimming) as it is opened or edited; View > Follow the scenario.
  void set_follow_scenario(bool follow);
  bool follow_scenario() const;

  // What the window asks the user; tests replace these. The defaults show dialogs.
  struct Prompts {
    std::function<QMessageBox::StandardButton()> unsaved;        // Save, Discard or Cancel
    std::function<QString(const QString& suggested)> save_file;  // empty: cancelled
  };
  void set_prompts(Prompts prompts);
  // With unsaved edits, asks Save / Discard / Cancel; true when the caller may go on.
  bool maybe_save();
  // File > Save (ask = false: Ctrl+S, which does nothing on an unmodified titled document) and
  // Save as (ask = true). True when the document was written.
  bool save_dialog(bool ask);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void add_menus();
  void add_help_menu();
  void show_help(const QString& path, const QString& section);
  void export_dialog(const QString& suffix, const QString& filter);
  void open_dialog();
  void open_asking(const QString& file);  // maybe_save, then open (problems in a dialog)
  void show_load_problems(const QString& file, const QStringList& problems);
  void remember(const QString& file);
  void fill_recent_menu();
  void update_title();
  std::string table_key() const;  // the runs table as Save writes it, to compare
  void follow();  // pushes the scenario's settings to Topology and Teaching when following

  QTabWidget* tabs_;
  HelpBrowser* help_ = nullptr;  // Help's pages, made on first use
  BusbwView* busbw_;
  TeachingView* teaching_;
  TopologyView* topology_;
  TrainingView* training_;
  CompareView* compare_;
  WorkloadView* workload_;
  QMenu* recent_menu_ = nullptr;
  QAction* follow_ = nullptr;
  QString scenario_file_;
  QString scenario_name_, scenario_description_;  // as loaded (Save adds what was edited)
  QString scenario_source_;                       // the loaded file's name, a preset's too
  std::string saved_table_;  // table_key() when the file was opened or last saved
  QString save_note_;        // what the last save renamed or moved to name the baseline (plan_save)
  Prompts prompts_;
};

}  // namespace commlab::ui
