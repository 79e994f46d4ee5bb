#include "main_window.h"

#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <algorithm>
#include <cmath>

#include "busbw_view.h"
#include "chart_export.h"
#include "collective/algorithms.h"
#include "compare_view.h"
#include "help_browser.h"
#include "runs_list.h"
#include "scenario_files.h"
#include "teaching_view.h"
#include "topology_view.h"
#include "training_bridge.h"
#include "training_panel.h"
#include "training_view.h"
#include "workload_view.h"

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
  compare_ = new CompareView([this] { return training_->runs(); });
  compare_->set_colors([this] { return training_->run_colors(); });
  tabs_->setTabToolTip(tabs_->addTab(compare_, "Compare"),
                       "The Training tab's runs over several seeds: mean curves with 95% bands, "
                       "time to target and speedup against the baseline with paired intervals.");
  // The Training tab's runs table shows the same intervals for the rows with the same settings.
  // Its Run seeds starts this comparison (the same runner, the Compare tab shows it too), and its
  // seeds row follows every comparison, whichever tab started it.
  RunsList* table = training_->runs_list();
  // A cancelled or failed comparison keeps the columns' earlier results (its incomplete runs
  // would read as seeds that never reached the target).
  connect(compare_, &CompareView::finished, training_, [this, table] {
    if (compare_->last_complete())
      training_->set_seed_results(compare_->summary(), compare_->compared_runs());
    table->set_seeds_running(false, compare_->status_text());
  });
  connect(compare_, &CompareView::progress, table, [this, table](const QString& status) {
    table->set_seeds_running(true, status, compare_->seeds());
  });
  connect(table, &RunsList::seeds_requested, compare_, [this, table](int seeds) {
    // The seed columns belong to the table's rows: with none there is nothing to fill, and the
    // status bar says so rather than start a comparison nobody sees.
    if (training_->run_ids().empty()) {
      const QString why =
          "Run seeds: the runs table is empty. Train the runs first (Run, or Run all), then Run "
          "seeds fills their seed columns.";
      table->set_seeds_running(false, why);
      statusBar()->showMessage(why, 15000);
      return;
    }
    compare_->set_seeds(seeds);
    if (!compare_->run()) {
      table->set_seeds_running(!compare_->idle(), compare_->status_text());
      statusBar()->showMessage("Run seeds: " + compare_->status_text(), 15000);
    }
  });
  workload_ = new WorkloadView;
  tabs_->setTabToolTip(tabs_->addTab(workload_, "Workload"),
                       "A catalog workload or Chakra trace as a timeline per rank and stream.");
  setCentralWidget(tabs_);
  prompts_.unsaved = [this] {
    return QMessageBox::question(
        this, "Unsaved changes",
        "The scenario has changes that are not saved. Save them before going on?",
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  };
  prompts_.save_file = [this](const QString& suggested) {
    return QFileDialog::getSaveFileName(this, "Save scenario", suggested, "Scenario (*.json)");
  };
  add_menus();
  connect(training_->undo_stack(), &QUndoStack::cleanChanged, this, [this] { update_title(); });
  // A run that ends may add a row (Run all keeps each): the title marks what Save would add.
  connect(training_->bridge(), &TrainingBridge::finished, this, [this] { update_title(); });
  connect(training_->panel(), &TrainingPanel::changed, this, &MainWindow::follow);
  connect(training_->panel(), &TrainingPanel::replaced, this, &MainWindow::follow);
  saved_table_ = table_key();
  update_title();
  statusBar()->showMessage("CommLab: communication of distributed training on a simulated cluster");
}

MainWindow::~MainWindow() {
  // The tabs are destroyed after this window's members (QWidget deletes its children last), and
  // the Training tab's undo stack says it is clean as it goes: the title slot would then read
  // members already freed and corrupt the heap. The tabs' signals to the window end here.
  for (QObject* sender :
       {static_cast<QObject*>(training_->undo_stack()), static_cast<QObject*>(training_->bridge()),
        static_cast<QObject*>(training_->panel())})
    disconnect(sender, nullptr, this, nullptr);
}

void MainWindow::add_menus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->setToolTipsVisible(true);
  QAction* open =
      file->addAction("&Open scenario...", QKeySequence::Open, this, &MainWindow::open_dialog);
  open->setToolTip("Load a scenario file (JSON, as commlab-cli runs it) into the Training tab.");
  recent_menu_ = file->addMenu("Open &recent");
  recent_menu_->setToolTipsVisible(true);
  connect(recent_menu_, &QMenu::aboutToShow, this, &MainWindow::fill_recent_menu);
  fill_recent_menu();
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
    QAction* a =
        presets->addAction(QFileInfo(f).completeBaseName(), this, [this, f] { open_asking(f); });
    a->setToolTip("Open an untitled copy of " + f);
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
  // Edit: undo / redo of the Training settings (the menu entries name the change).
  QMenu* edit = menuBar()->addMenu("&Edit");
  QAction* undo = training_->undo_stack()->createUndoAction(this, "&Undo");
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = training_->undo_stack()->createRedoAction(this, "&Redo");
  redo->setShortcut(QKeySequence::Redo);
  edit->addAction(undo);
  edit->addAction(redo);
  QMenu* view = menuBar()->addMenu("&View");
  view->setToolTipsVisible(true);
  follow_ = view->addAction("&Follow the scenario");
  follow_->setCheckable(true);
  follow_->setChecked(true);
  follow_->setToolTip(
      "Topology and Teaching show the Training scenario's cluster, backend, background traffic, "
      "algorithm, SkipReduce and trimming, as it is opened or edited.");
  connect(follow_, &QAction::toggled, this, [this](bool on) {
    if (on) follow();
  });
  add_help_menu();
}

void MainWindow::set_follow_scenario(bool follow) {
  follow_->setChecked(follow);
}

bool MainWindow::follow_scenario() const {
  return follow_->isChecked();
}

void MainWindow::follow() {
  if (!follow_->isChecked()) return;
  const RunConfig c = training_->panel()->config();
  TopologySettings t = topology_->settings();
  t.spec = c.cluster.spec;
  t.backend = enum_name(c.cluster.backend);
  t.background = c.packet.background;
  t.algorithm = c.collective.algorithm;
  if (!(t == topology_->settings())) topology_->set_settings(t);
  // The teaching page draws 2 to kTeachingMaxRanks GPUs and the ring, tree, hd, hier and direct
  // algorithms; SkipReduce for those whose descriptor has a skip limit, within it.
  TeachingSettings s = teaching_->settings();
  s.ranks = std::clamp(c.training.ranks, 2, views::kTeachingMaxRanks);
  const QStringList drawn{"ring", "tree", "hd", "hier", "direct"};
  if (drawn.contains(QString::fromStdString(c.collective.algorithm)))
    s.algorithm = c.collective.algorithm;
  if (c.collective.ranks_per_node > 0)
    s.ranks_per_node = std::min(c.collective.ranks_per_node, views::kTeachingMaxRanks);
  const int skip = c.techniques.skipreduce.skip > 0
                       ? c.techniques.skipreduce.skip
                       : static_cast<int>(std::lround(c.techniques.skipreduce.ratio * s.ranks));
  const Algorithm* algorithm = lookup_algorithm(s.algorithm);
  s.skip = algorithm != nullptr && algorithm->skips()
               ? std::clamp(skip, 0, algorithm->skip_limit(s.ranks).max)
               : 0;
  s.policy = enum_name(c.techniques.skipreduce.policy);
  s.trim_rate = c.techniques.trimming.enabled ? c.techniques.trimming.rate : 0;
  if (!(s == teaching_->settings())) teaching_->set_settings(s);
}

void MainWindow::add_help_menu() {
  QMenu* help = menuBar()->addMenu("&Help");
  help->setToolTipsVisible(true);
  help->addAction("&Keyboard shortcuts", this, [this] {
    QMessageBox::information(
        this, "Keyboard shortcuts",
        "Ctrl+O open a scenario, Ctrl+S save it, Ctrl+Shift+S save as, Ctrl+Q quit\n"
        "Ctrl+Z undo a setting change, Ctrl+Shift+Z redo it\n"
        "Teaching: Left / Right step, Space play or pause, Home back to the start, Ctrl+= and "
        "Ctrl+- zoom the picture for a class, Ctrl+0 back to 100%\n"
        "Training: with Live on, any setting change re-trains at once\n"
        "Mouse wheel: scrolls the settings; it changes a spin box or list only after a click "
        "on it");
  });
  // The docs live beside the samples in the source tree (docs/*.md).
  const QString docs = QDir(samples_dir()).filePath("../docs");
  for (const auto& [title, page] :
       {std::pair{"&GUI guide", "gui.md"}, std::pair{"&Scenario files", "scenario.md"},
        std::pair{"&Collectives", "collectives.md"},
        std::pair{"&Training and techniques", "training.md"}}) {
    const QString path = QDir(docs).absoluteFilePath(page);
    const bool guide = QString(page) == "gui.md";
    QAction* a = help->addAction(title, this, [this, path, guide] {
      // The GUI guide opens at the section of the tab in front.
      show_help(path, guide ? tabs_->tabText(tabs_->currentIndex()) : QString());
    });
    a->setToolTip("Show " + path + (guide ? " at the current tab's section" : ""));
  }
  help->addSeparator();
  help->addAction("&About CommLab", this, [this] {
    QMessageBox::about(this, "About CommLab",
                       "<b>CommLab</b> " + QApplication::applicationVersion() +
                           "<p>A laboratory for the communication of distributed training: "
                           "collectives, networks, codecs, SkipReduce and trimming on a "
                           "simulated cluster, with the real gradients.</p>");
  });
}

void MainWindow::show_help(const QString& path, const QString& section) {
  if (!help_) help_ = new HelpBrowser(this);
  help_->open_page(path, section);
  help_->show();
  help_->raise();
}

bool MainWindow::idle() const {
  return busbw_->idle() && teaching_->idle() && topology_->idle() && training_->idle() &&
         compare_->idle() && workload_->idle();
}

void MainWindow::set_workload_settings(const views::WorkloadSettings& settings) {
  workload_->set_settings(settings);
}

MainWindow::ClusterChoice MainWindow::choose_throughput_cluster(int index) {
  return {busbw_->choose_cluster(index), busbw_->cluster_count()};
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
