// A document you cannot lose: the title marks unsaved edits, quitting or opening a
// preset with unsaved edits asks, presets open untitled (Save asks for a name and never writes a
// shipped sample), Ctrl+S on an unmodified document does nothing, undo / redo of settings, recent
// files, and the wheel changes only a focused control.
#include <gtest/gtest.h>

#include <QAction>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QWheelEvent>

#include "main_window.h"
#include "scenario_files.h"
#include "teaching_view.h"
#include "topology_view.h"
#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

// A window with an editable copy of the tiny scenario and prompts that record what was asked.
struct Document : ::testing::Test {
  QTemporaryDir dir;
  QString file;
  std::unique_ptr<MainWindow> window;
  int unsaved_asked = 0, save_asked = 0;
  QMessageBox::StandardButton answer = QMessageBox::Cancel;
  QString save_to;

  void SetUp() override {
    app();
    // Recent files go to a settings file of the test's own.
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
    QCoreApplication::setOrganizationName("commlab-test");
    file = dir.filePath("tiny.json");
    ASSERT_TRUE(QFile::copy(QString(COMMLAB_SOURCE_DIR) + "/tests/data/golden/tiny.json", file));
    window = std::make_unique<MainWindow>();
    window->training_view()->set_live(false);
    window->set_prompts({[this] {
                           ++unsaved_asked;
                           return answer;
                         },
                         [this](const QString&) {
                           ++save_asked;
                           return save_to;
                         }});
    ASSERT_TRUE(window->open_scenario(file).isEmpty());
  }
  QDoubleSpinBox* lr() {
    return qobject_cast<QDoubleSpinBox*>(window->training_view()->panel()->control("training.lr"));
  }
  QAction* action(const QKeySequence& keys) {
    for (QAction* a : window->findChildren<QAction*>())
      if (a->shortcut() == keys) return a;
    return nullptr;
  }
};

TEST_F(Document, TheTitleMarksAnEditUntilItIsSaved) {
  EXPECT_TRUE(window->windowTitle().startsWith("tiny.json[*]"));
  EXPECT_FALSE(window->isWindowModified());
  lr()->setValue(lr()->value() + 0.01);
  EXPECT_TRUE(window->isWindowModified());
  QAction* save = action(QKeySequence::Save);
  ASSERT_NE(save, nullptr);
  save->trigger();  // Ctrl+S on a titled document writes it without asking
  EXPECT_EQ(save_asked, 0);
  EXPECT_FALSE(window->isWindowModified());
  EXPECT_EQ(window->recent_files().value(0), QFileInfo(file).absoluteFilePath());
  // Ctrl+S with nothing changed writes nothing: a mark put in the file stays.
  {
    QFile f(file);
    ASSERT_TRUE(f.open(QIODevice::Append));
    f.write("\n");
  }
  const qint64 size = QFileInfo(file).size();
  save->trigger();
  EXPECT_EQ(QFileInfo(file).size(), size);
}

TEST_F(Document, UndoRestoresTheValueAndRedoReappliesIt) {
  const double before = lr()->value();
  // Three steps of the same control are one undo entry.
  lr()->setValue(before + 0.01);
  lr()->setValue(before + 0.02);
  lr()->setValue(before + 0.03);
  QUndoStack* undo = window->training_view()->undo_stack();
  EXPECT_EQ(undo->count(), 1);
  undo->undo();
  EXPECT_DOUBLE_EQ(lr()->value(), before);
  EXPECT_DOUBLE_EQ(window->training_view()->panel()->config().training.lr, before);
  EXPECT_FALSE(window->isWindowModified());  // back where it was saved
  undo->redo();
  EXPECT_DOUBLE_EQ(lr()->value(), before + 0.03);
  EXPECT_TRUE(window->isWindowModified());
  // After an undo, an edit of another setting is a new entry, and undo takes back only that.
  auto* iterations =
      qobject_cast<QSpinBox*>(window->training_view()->panel()->control("training.iterations"));
  const int its = iterations->value();
  iterations->setValue(its + 1);
  undo->undo();
  EXPECT_EQ(iterations->value(), its);
  EXPECT_DOUBLE_EQ(lr()->value(), before + 0.03);
}

TEST_F(Document, QuittingWithUnsavedEditsAsksAndCancelKeepsTheWindow) {
  window->show();
  EXPECT_TRUE(window->close());  // unmodified: no question
  EXPECT_EQ(unsaved_asked, 0);
  window->show();
  lr()->setValue(lr()->value() + 0.01);
  answer = QMessageBox::Cancel;
  EXPECT_FALSE(window->close());
  EXPECT_EQ(unsaved_asked, 1);
  EXPECT_TRUE(window->isVisible());
  // Opening a preset asks too; Cancel keeps the document and its edit.
  QAction* preset = nullptr;
  for (QAction* a : window->findChildren<QAction*>())
    if (a->text() == "quickstart") preset = a;
  ASSERT_NE(preset, nullptr);
  preset->trigger();
  EXPECT_EQ(unsaved_asked, 2);
  EXPECT_EQ(window->scenario_file(), file);
  EXPECT_TRUE(window->isWindowModified());
  answer = QMessageBox::Discard;
  EXPECT_TRUE(window->close());
  EXPECT_EQ(unsaved_asked, 3);
}

TEST_F(Document, APresetOpensUntitledAndSaveAsksForANameNeverTheSample) {
  const QString sample = QDir(samples_dir()).filePath("quickstart.json");
  QFile f(sample);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QByteArray shipped = f.readAll();
  f.close();
  ASSERT_TRUE(window->open_scenario(sample).isEmpty());
  EXPECT_EQ(window->scenario_file(), "");
  EXPECT_TRUE(window->windowTitle().startsWith("quickstart (untitled copy)"))
      << window->windowTitle().toStdString();
  // Ctrl+S asks for a name even before an edit; cancelling writes nothing.
  save_to = "";
  action(QKeySequence::Save)->trigger();
  EXPECT_EQ(save_asked, 1);
  EXPECT_EQ(window->scenario_file(), "");
  // The sample's own path is refused; the shipped file is unchanged.
  EXPECT_NE(window->save_scenario(sample), "");
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  EXPECT_EQ(f.readAll(), shipped);
  f.close();
  save_to = dir.filePath("mine.json");
  action(QKeySequence::Save)->trigger();
  EXPECT_EQ(save_asked, 2);
  EXPECT_EQ(window->scenario_file(), save_to);
  EXPECT_TRUE(QFileInfo::exists(save_to));
  EXPECT_TRUE(window->windowTitle().startsWith("mine.json"));
}

TEST(FollowScenario, TopologyAndTeachingShowTheScenariosSettings) {
  app();
  MainWindow window;
  window.training_view()->set_live(false);
  ASSERT_TRUE(window.follow_scenario());  // on by default
  ASSERT_TRUE(window.open_scenario(QDir(samples_dir()).filePath("quickstart.json")).isEmpty());
  EXPECT_EQ(window.topology_view()->settings().spec, "flat:8,gbps=200,alpha_us=5");
  EXPECT_EQ(window.teaching_view()->settings().ranks, 8);
  window.training_view()->choose_run(1);  // skipreduce-50: s = 4 of 8 ranks
  EXPECT_EQ(window.teaching_view()->settings().skip, 4);
  window.training_view()->choose_run(3);  // trim-eden-20: 20% of packets trimmed
  EXPECT_DOUBLE_EQ(window.teaching_view()->settings().trim_rate, 0.2);
  EXPECT_EQ(window.teaching_view()->settings().skip, 0);
  // Not following: the pages keep what they show.
  window.set_follow_scenario(false);
  window.training_view()->choose_run(1);
  EXPECT_EQ(window.teaching_view()->settings().skip, 0);
  EXPECT_TRUE(wait_for([&] { return window.idle(); }));
}

TEST(Wheel, AnUnfocusedSpinBoxIgnoresTheWheelAndAFocusedOneTakesIt) {
  app();
  TrainingView view;
  view.set_live(false);
  view.resize(1280, 800);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  auto* lr = qobject_cast<QDoubleSpinBox*>(view.panel()->control("training.lr"));
  const double before = lr->value();
  auto wheel = [&](QWidget* w) {
    QWheelEvent e(QPointF(5, 5), w->mapToGlobal(QPointF(5, 5)), QPoint(), QPoint(0, 120),
                  Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
  };
  ASSERT_FALSE(lr->hasFocus());
  wheel(lr);
  EXPECT_DOUBLE_EQ(lr->value(), before);  // one wheel notch would be one step (+0.01)
  view.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&view));
  lr->setFocus();
  ASSERT_TRUE(wait_for([&] { return lr->hasFocus(); }, 2000));
  wheel(lr);
  EXPECT_NEAR(lr->value(), before + lr->singleStep(), 1e-9);
}

// Save wrote the file's old prose unchanged over edited settings, so a saved
// file could say "4 ranks" while it held 2. The saved description keeps the prose and adds the
// changed fields from the actual diff; the app shows the new text; an unedited save keeps it.
TEST_F(Document, SavingEditedSettingsSaysWhatChangedInTheDescription) {
  const QString prose = load_scenario_file(file).description;
  ASSERT_TRUE(prose.contains("4 ranks"));
  save_to = dir.filePath("same.json");
  ASSERT_TRUE(window->save_dialog(true));
  EXPECT_EQ(load_scenario_file(save_to).description, prose);  // nothing edited: nothing added
  auto* ranks =
      qobject_cast<QSpinBox*>(window->training_view()->panel()->control("training.ranks"));
  ranks->setValue(2);
  save_to = dir.filePath("edited.json");
  ASSERT_TRUE(window->save_dialog(true));
  const LoadedScenario saved = load_scenario_file(save_to);
  ASSERT_TRUE(saved.problems.isEmpty()) << saved.problems.join("\n").toStdString();
  EXPECT_EQ(saved.runs.front().training.ranks, 2);
  EXPECT_TRUE(saved.description.startsWith(prose + "\nEdited from tiny.json: "))
      << saved.description.toStdString();
  // The first run was edited (several runs: its name leads its list); the others were not.
  EXPECT_TRUE(
      saved.description.contains("run baseline: cluster.spec "
                                 "'flat:4,gbps=100,alpha_us=2' -> "
                                 "'flat:2,gbps=100,alpha_us=2', training.ranks 4 -> 2"))
      << saved.description.toStdString();
  EXPECT_FALSE(saved.description.contains("skip-random-2")) << saved.description.toStdString();
  EXPECT_EQ(window->training_view()->description(), saved.description);
  // A second save after more edits lists the changes against the file as opened, once.
  lr()->setValue(0.05);
  ASSERT_TRUE(window->save_dialog(false));
  const QString again = load_scenario_file(save_to).description;
  EXPECT_EQ(again.count("Edited from"), 1) << again.toStdString();
  EXPECT_TRUE(again.contains("training.ranks 4 -> 2")) << again.toStdString();
  EXPECT_TRUE(again.contains("training.lr 0.1 -> 0.05")) << again.toStdString();
  // Undoing every edit and saving gives the prose back unchanged.
  while (window->training_view()->undo_stack()->canUndo())
    window->training_view()->undo_stack()->undo();
  ASSERT_TRUE(window->save_dialog(true));
  EXPECT_EQ(load_scenario_file(save_to).description, prose);
}

}  // namespace
}  // namespace commlab::ui

namespace commlab::ui {
namespace {

// The file's description was never shown. It now sits above the settings (at
// most four lines; the whole text in its tooltip).
TEST(ScenarioDescription, TheOpenedFilesDescriptionIsShown) {
  test::app();
  MainWindow window;
  window.training_view()->set_live(false);
  ASSERT_TRUE(window.open_scenario(QDir(samples_dir()).filePath("quickstart.json")).isEmpty());
  auto* label = window.training_view()->findChild<QLabel*>("description");
  ASSERT_NE(label, nullptr);
  EXPECT_FALSE(label->isHidden());
  EXPECT_TRUE(label->text().startsWith("8 ranks train an MLP")) << label->text().toStdString();
  EXPECT_TRUE(window.training_view()->description().contains("1-bit EDEN trimming"));
}

}  // namespace
}  // namespace commlab::ui
