// MainWindow's scenario document: open and save (the runs table as shown, scenario_files.h),
// the recent files, the title with its modified mark, and the unsaved-changes prompt before a
// file is replaced or the window closes. The window's tabs and menus are main_window.cpp.
#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QUndoStack>

#include "main_window.h"
#include "run_naming.h"
#include "scenario/schema.h"
#include "scenario_files.h"
#include "training_view.h"

namespace commlab::ui {

namespace {

constexpr int kRecentFiles = 8;

// A shipped sample: opened as an untitled copy, never written over.
bool is_preset(const QString& file) {
  const QString samples = samples_dir();
  if (samples.isEmpty()) return false;
  return QFileInfo(QFileInfo(file).absolutePath()).canonicalFilePath() ==
         QFileInfo(samples).canonicalFilePath();
}

}  // namespace

void MainWindow::set_prompts(Prompts prompts) {
  if (prompts.unsaved) prompts_.unsaved = std::move(prompts.unsaved);
  if (prompts.save_file) prompts_.save_file = std::move(prompts.save_file);
}

bool MainWindow::modified() const {
  return !training_->undo_stack()->isClean() || table_key() != saved_table_;
}

std::string MainWindow::table_key() const {
  // What Save writes of the runs table: each row's name, settings and fork, and the baseline.
  int baseline = 0;
  std::string key;
  for (const SavedRun& r : training_->table_runs(&baseline))
    key += to_json(r.config).dump() + "|" + r.forked_from.run + "|" +
           std::to_string(r.forked_from.iteration) + "\n";
  return key + std::to_string(baseline);
}

void MainWindow::update_title() {
  QString name;
  if (!scenario_file_.isEmpty())
    name = QFileInfo(scenario_file_).fileName();
  else if (!scenario_name_.isEmpty())
    name = scenario_name_ + " (untitled copy)";
  else
    name = "untitled";
  setWindowTitle(name + "[*] - CommLab");
  setWindowModified(modified());
}

bool MainWindow::maybe_save() {
  if (!modified()) return true;
  switch (prompts_.unsaved()) {
    case QMessageBox::Save: return save_dialog(false);
    case QMessageBox::Discard: return true;
    default: return false;
  }
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (maybe_save())
    event->accept();
  else
    event->ignore();
}

QStringList MainWindow::recent_files() const {
  return QSettings().value("recent_files").toStringList();
}

void MainWindow::remember(const QString& file) {
  QStringList files = recent_files();
  const QString path = QFileInfo(file).absoluteFilePath();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kRecentFiles) files.removeLast();
  QSettings().setValue("recent_files", files);
}

void MainWindow::fill_recent_menu() {
  recent_menu_->clear();
  const QStringList files = recent_files();
  for (const QString& f : files) {
    QAction* a =
        recent_menu_->addAction(QFileInfo(f).fileName(), this, [this, f] { open_asking(f); });
    a->setToolTip(f);
  }
  if (files.isEmpty()) recent_menu_->addAction("(none yet)")->setEnabled(false);
}

void MainWindow::open_asking(const QString& file) {
  if (!maybe_save()) return;
  const QStringList problems = open_scenario(file);
  if (!problems.isEmpty()) show_load_problems(file, problems);
}

QStringList MainWindow::open_scenario(const QString& file) {
  LoadedScenario loaded = load_scenario_file(file);
  if (!loaded.problems.isEmpty()) return loaded.problems;
  training_->reset();
  // Runs kept from before stay, labelled.
  training_->set_runs(loaded.runs, loaded.name, loaded.forked_from, loaded.colors);
  training_->set_description(loaded.description);
  saved_table_ = table_key();  // runs kept from before are not an edit of this file
  const bool preset = is_preset(file);
  scenario_file_ = preset ? QString() : file;
  scenario_name_ = loaded.name;
  scenario_description_ = loaded.description;
  scenario_source_ = QFileInfo(file).fileName();
  if (!preset) remember(file);
  update_title();
  select_tab("Training");
  statusBar()->showMessage(QString("Opened %1 (%2 run%3)")
                               .arg(file)
                               .arg(loaded.runs.size())
                               .arg(loaded.runs.size() == 1 ? "" : "s"),
                           5000);
  return {};
}

QString MainWindow::save_scenario(const QString& file) {
  if (is_preset(file))
    return file + " is a shipped sample; save your copy under another name or folder";
  const QString name =
      scenario_name_.isEmpty() ? QFileInfo(file).completeBaseName() : scenario_name_;
  // Edited settings: the file's prose may name values that are no longer true ("8 ranks"), so
  // the saved description says what changed, field by field.
  const QString description = edited_description(scenario_description_, scenario_source_,
                                                 training_->loaded_runs(), training_->runs());
  // What is on screen: every row of the runs table with its baseline and forks, then the
  // scenario's runs no row holds.
  int baseline = 0;
  std::vector<SavedRun> rows = training_->table_runs(&baseline);
  const SavePlan plan = plan_save(std::move(rows), baseline, training_->scenario_runs());
  const QString error = save_scenario_file(file, name, description, plan.runs);
  if (error.isEmpty()) {
    training_->set_description(description);
    scenario_file_ = file;
    training_->undo_stack()->setClean();
    saved_table_ = table_key();
    remember(file);
    update_title();
    save_note_ = plan.note;
  }
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
  if (!maybe_save()) return;
  const QString file = QFileDialog::getOpenFileName(this, "Open scenario", samples_dir(),
                                                    "Scenario (*.json);;All files (*)");
  if (file.isEmpty()) return;
  const QStringList problems = open_scenario(file);
  if (!problems.isEmpty()) show_load_problems(file, problems);
}

bool MainWindow::save_dialog(bool ask) {
  QString file = scenario_file_;
  if (!ask && !file.isEmpty() && !modified()) return true;  // Ctrl+S with nothing to save
  if (ask || file.isEmpty()) {
    const QString suggested =
        file.isEmpty() ? QDir::home().filePath(
                             (scenario_name_.isEmpty() ? "scenario" : scenario_name_) + ".json")
                       : file;
    file = prompts_.save_file(suggested);
  }
  if (file.isEmpty()) return false;
  if (QFileInfo(file).suffix().isEmpty()) file += ".json";
  const QString error = save_scenario(file);
  if (error.isEmpty()) {
    statusBar()->showMessage(
        "Saved " + file + (save_note_.isEmpty() ? QString() : " (" + save_note_ + ")"), 8000);
    return true;
  }
  QMessageBox::warning(this, "Save failed", error);
  return false;
}

}  // namespace commlab::ui
