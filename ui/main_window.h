#pragma once
// The main window: one tab per view. Views own their settings and ask the engine on worker
// threads; the window only arranges them, offers File > Export for the current tab, and renders
// itself for --screenshot.
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

 private:
  void add_menus();
  void export_dialog(const QString& suffix, const QString& filter);

  QTabWidget* tabs_;
  BusbwView* busbw_;
  TeachingView* teaching_;
  TopologyView* topology_;
  TrainingView* training_;
};

}  // namespace commlab::ui
