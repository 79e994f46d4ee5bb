#include "main_window.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

#include "busbw_view.h"
#include "chart_export.h"
#include "scenario_files.h"
#include "teaching_view.h"
#include "topology_view.h"
#include "training_panel.h"
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
  file->setToolTipsVisible(true);
  QAction* open =
      file->addAction("&Open scenario...", QKeySequence::Open, this, &MainWindow::open_dialog);
  open->setToolTip("Load a scenario file (JSON, as commlab-cli runs it) into the Training tab.");
  QAction* save =
      file->addAction("&Save scenario", QKeySequence::Save, this, [this] { save_dialog(false); });
  save->setToolTip("Write the Training tab's runs back to the scenario file.");
  QAction* save_as = file->addAction("Save scenario &as...", QKeySequence::SaveAs, this,
                                     [this] { save_dialog(true); });
  save_as->setToolTip("Write the Training tab's runs to a new scenario file.");
  QMenu* presets = menuBar()->addMenu("&Presets");
  presets->setToolTipsVisible(true);
  const QStringList files = preset_files();
  for (const QString& f : files) {
    QAction* a = presets->addAction(QFileInfo(f).completeBaseName(), this, [this, f] {
      const QStringList problems = open_scenario(f);
      if (!problems.isEmpty()) show_load_problems(f, problems);
    });
    a->setToolTip("Open " + f);
  }
  if (files.isEmpty()) presets->addAction("(no samples/ folder found)")->setEnabled(false);
  file->addSeparator();
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

QStringList MainWindow::open_scenario(const QString& file) {
  LoadedScenario loaded = load_scenario_file(file);
  if (!loaded.problems.isEmpty()) return loaded.problems;
  training_->reset();
  training_->set_runs(loaded.runs);
  scenario_file_ = file;
  scenario_name_ = loaded.name;
  scenario_description_ = loaded.description;
  select_tab("Training");
  statusBar()->showMessage(QString("Opened %1 (%2 run%3)")
                               .arg(file)
                               .arg(loaded.runs.size())
                               .arg(loaded.runs.size() == 1 ? "" : "s"),
                           5000);
  return {};
}

QString MainWindow::save_scenario(const QString& file) {
  const QString name =
      scenario_name_.isEmpty() ? QFileInfo(file).completeBaseName() : scenario_name_;
  const QString error = save_scenario_file(file, name, scenario_description_,
                                           training_->panel()->config(), training_->runs());
  if (error.isEmpty()) scenario_file_ = file;
  return error;
}

void MainWindow::show_load_problems(const QString& file, const QStringList& problems) {
  QMessageBox box(QMessageBox::Warning, "Scenario not loaded",
                  QFileInfo(file).fileName() + " has problems; your current settings are kept.",
                  QMessageBox::Ok, this);
  box.setDetailedText(problems.join("\n"));
  box.setInformativeText(problems.mid(0, 5).join("\n"));
  box.exec();
}

void MainWindow::open_dialog() {
  const QString file = QFileDialog::getOpenFileName(this, "Open scenario", samples_dir(),
                                                    "Scenario (*.json);;All files (*)");
  if (file.isEmpty()) return;
  const QStringList problems = open_scenario(file);
  if (!problems.isEmpty()) show_load_problems(file, problems);
}

void MainWindow::save_dialog(bool ask) {
  QString file = scenario_file_;
  if (ask || file.isEmpty())
    file = QFileDialog::getSaveFileName(
        this, "Save scenario", file.isEmpty() ? "scenario.json" : file, "Scenario (*.json)");
  if (file.isEmpty()) return;
  if (QFileInfo(file).suffix().isEmpty()) file += ".json";
  const QString error = save_scenario(file);
  if (error.isEmpty())
    statusBar()->showMessage("Saved " + file, 5000);
  else
    QMessageBox::warning(this, "Save failed", error);
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
