#pragma once
// The main window: one tab per view. Views own their settings and ask the engine on worker
// threads; the window only arranges them and renders itself for --screenshot.
#include <QMainWindow>

class QTabWidget;

namespace commlab::ui {

class BusbwView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  // True once every view has drawn what the engine computed (used by --screenshot and tests).
  bool idle() const;
  bool select_tab(const QString& name);
  BusbwView* busbw_view() const { return busbw_; }

 private:
  QTabWidget* tabs_;
  BusbwView* busbw_;
};

}  // namespace commlab::ui
