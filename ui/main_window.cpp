#include "main_window.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

#include "busbw_view.h"
#include "chart_export.h"
#include "teaching_view.h"
#include "topology_view.h"
#include "training_view.h"

namespace commlab::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("CommLab");
  resize(1280, 800);
  tabs_ = new QTabWidget;
  teaching_ = new TeachingView;
  topology_ = new TopologyView;
  busbw_ = new BusbwView;
  tabs_->addTab(teaching_, "Teaching");
  tabs_->setTabToolTip(0, "Step through a collective and watch every rank's buffer fill up.");
  tabs_->addTab(topology_, "Topology");
  tabs_->setTabToolTip(
      1, "The cluster's graph with links coloured by how busy a collective keeps them.");
  tabs_->addTab(busbw_, "Throughput");
  tabs_->setTabToolTip(2, "Bus bandwidth vs message size for each all-reduce algorithm.");
  training_ = new TrainingView;
  tabs_->addTab(training_, "Training");
  tabs_->setTabToolTip(3, "Train a model over the simulated cluster and watch convergence live.");
  setCentralWidget(tabs_);
  add_menus();
  statusBar()->showMessage("CommLab: communication of distributed training on a simulated cluster");
}

void MainWindow::add_menus() {
  QMenu* file = menuBar()->addMenu("&File");
  QMenu* exp = file->addMenu("&Export");
  exp->setToolTipsVisible(true);
  QAction* png = exp->addAction("Current view as &PNG...",
                                [this] { export_dialog("png", "PNG image (*.png)"); });
  png->setToolTip("Save the current tab's chart or picture as a PNG image.");
  QAction* svg = exp->addAction("Current view as &SVG...",
                                [this] { export_dialog("svg", "SVG vector image (*.svg)"); });
  svg->setToolTip("Save the current tab's chart or picture as a scalable SVG drawing.");
  QAction* csv = exp->addAction("Current view's data as &CSV...",
                                [this] { export_dialog("csv", "CSV table (*.csv)"); });
  csv->setToolTip("Save the numbers behind the current tab as a CSV table.");
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
}

bool MainWindow::idle() const {
  return busbw_->idle() && teaching_->idle() && topology_->idle() && training_->idle();
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

QStringList MainWindow::tab_names() const {
  QStringList names;
  for (int i = 0; i < tabs_->count(); ++i) names << tabs_->tabText(i);
  return names;
}

Exportable* MainWindow::current_exportable() const {
  return dynamic_cast<Exportable*>(tabs_->currentWidget());
}

QString MainWindow::export_current(const QString& file) {
  Exportable* view = current_exportable();
  if (!view) return "this tab has nothing to export";
  const QString suffix = QFileInfo(file).suffix().toLower();
  if (suffix == "png") return export_png(*view, file);
  if (suffix == "svg") return export_svg(*view, file);
  if (suffix == "csv") return export_csv(view->export_data(), file);
  return "unknown export format '." + suffix + "' (expected .png, .svg or .csv)";
}

void MainWindow::export_dialog(const QString& suffix, const QString& filter) {
  Exportable* view = current_exportable();
  if (!view) return;
  QString file =
      QFileDialog::getSaveFileName(this, "Export", view->export_name() + "." + suffix, filter);
  if (file.isEmpty()) return;
  if (QFileInfo(file).suffix().isEmpty()) file += "." + suffix;
  const QString error = export_current(file);
  if (error.isEmpty())
    statusBar()->showMessage("Exported " + file, 5000);
  else
    QMessageBox::warning(this, "Export failed", error);
}

}  // namespace commlab::ui
