#include "main_window.h"

#include <QStatusBar>
#include <QTabWidget>

#include "busbw_view.h"

namespace commlab::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("CommLab");
  resize(1200, 760);
  tabs_ = new QTabWidget;
  busbw_ = new BusbwView;
  tabs_->addTab(busbw_, "Throughput");
  setCentralWidget(tabs_);
  statusBar()->showMessage("CommLab: communication of distributed training on a simulated cluster");
}

bool MainWindow::idle() const {
  return busbw_->idle();
}

bool MainWindow::select_tab(const QString& name) {
  for (int i = 0; i < tabs_->count(); ++i) {
    if (tabs_->tabText(i).compare(name, Qt::CaseInsensitive) == 0) {
      tabs_->setCurrentIndex(i);
      return true;
    }
  }
  return false;
}

}  // namespace commlab::ui
