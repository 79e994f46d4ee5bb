#pragma once
// The main window: one tab per view. Views own their settings and ask the engine on worker
// threads; the window only arranges them, offers File > Open / Save (scenario files, the same the
// CLI runs), Presets (samples/*.json) and Export for the current tab, and renders itself for
// --screenshot.
#include <QMainWindow>

class QTabWidget;

namespace commlab::ui {

class BusbwView;
class Exportable;
class TeachingView;
class TopologyView;
class TrainingView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  // True once every view has drawn what the engine computed (used by --screenshot and tests).
  bool idle() const;
  bool select_tab(const QString& name);
  QStringList tab_names() const;
  BusbwView* busbw_view() const { return busbw_; }
  TeachingView* teaching_view() const { return teaching_; }
  TopologyView* topology_view() const { return topology_; }
  TrainingView* training_view() const { return training_; }
  // The current tab as an exportable view, or null.
  Exportable* current_exportable() const;
  // Exports the current tab by the file's suffix (.png, .svg, .csv); empty string = success.
  QString export_current(const QString& file);
  // Loads a scenario into the Training tab (its runs in the run chooser). On failure returns the
  // problems ("FILE:JSON.PATH: message" each) and keeps the current settings.
  QStringList open_scenario(const QString& file);
  // Saves the Training tab's runs (the chosen one as edited); empty string = success.
  QString save_scenario(const QString& file);
  QString scenario_file() const { return scenario_file_; }

 private:
  void add_menus();
  void export_dialog(const QString& suffix, const QString& filter);
  void open_dialog();
  void save_dialog(bool ask);
  void show_load_problems(const QString& file, const QStringList& problems);

  QTabWidget* tabs_;
  BusbwView* busbw_;
  TeachingView* teaching_;
  TopologyView* topology_;
  TrainingView* training_;
  QString scenario_file_;
  QString scenario_name_, scenario_description_;
};

}  // namespace commlab::ui
