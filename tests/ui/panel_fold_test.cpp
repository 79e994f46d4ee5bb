// "the key knobs of each technique above the fold at 1280x800". The Cluster section was
// below it, so a teacher changing the ranks scrolled away from the codec. At 1280x800, with the
// quickstart scenario's description shown above the settings, the cluster spec, Ranks, GPUs per
// node and each technique's key knob (codec, SkipReduce's s, trimming) lie inside the settings
// scroll area's viewport without scrolling.
#include <gtest/gtest.h>

#include <QDir>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>

#include "cluster_editor.h"
#include "main_window.h"
#include "scenario_files.h"
#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

void expect_above_the_fold(int width, int height) {
  test::app();
  MainWindow window;
  window.training_view()->set_live(false);
  ASSERT_TRUE(window.open_scenario(QDir(samples_dir()).filePath("quickstart.json")).isEmpty());
  window.resize(width, height);
  window.show();
  ASSERT_TRUE(window.select_tab("Training"));
  QApplication::processEvents();
  ASSERT_EQ(window.size(), QSize(width, height));
  auto* scroll = window.training_view()->findChild<QScrollArea*>("settings_scroll");
  ASSERT_NE(scroll, nullptr);
  ASSERT_EQ(scroll->verticalScrollBar()->value(), 0);
  const QWidget* viewport = scroll->viewport();
  TrainingPanel* panel = window.training_view()->panel();
  const std::vector<std::pair<QString, QWidget*>> knobs{
      {"cluster spec", panel->control("cluster.spec")},
      {"ranks", panel->control("training.ranks")},
      {"GPUs per node", panel->cluster_editor()->gpus_per_node_box()},
      {"codec", panel->control("techniques.codec")},
      {"skip", panel->control("techniques.skipreduce.skip")},
      {"trimming", panel->control("techniques.trimming.enabled")}};
  for (const auto& [name, w] : knobs) {
    ASSERT_NE(w, nullptr) << name.toStdString();
    EXPECT_TRUE(w->isVisible()) << name.toStdString();
    // The control's rectangle in the viewport's coordinates lies wholly inside the viewport.
    const QRect r(w->mapTo(viewport, QPoint(0, 0)), w->size());
    EXPECT_TRUE(viewport->rect().contains(r))
        << name.toStdString() << " at " << width << "x" << height << ": y " << r.top() << "-"
        << r.bottom() << ", viewport height " << viewport->height();
  }
}

TEST(PanelFold, ClusterSizeAndTechniqueKnobsAreVisibleAt1280x800) {
  expect_above_the_fold(1280, 800);
}

TEST(PanelFold, ClusterSizeAndTechniqueKnobsAreVisibleAt1600x1000) {
  expect_above_the_fold(1600, 1000);
}

}  // namespace
}  // namespace commlab::ui
