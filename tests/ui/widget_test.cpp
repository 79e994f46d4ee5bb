#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QCategoryAxis>
#include <QChart>
#include <QComboBox>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QToolTip>
#include <cmath>

#include "busbw_view.h"
#include "main_window.h"
#include "teaching_view.h"
#include "topology_test_util.h"
#include "topology_view.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

TEST(MainWindow, OpensWithItsTabsAndEveryViewComputes) {
  app();
  MainWindow window;
  window.show();
  EXPECT_EQ(window.tab_names(),
            (QStringList{"Teaching", "Topology", "Throughput", "Training", "Compare", "Workload"}));
  ASSERT_TRUE(wait_for([&] { return window.idle(); }));
  EXPECT_TRUE(window.select_tab("topology"));
  EXPECT_FALSE(window.select_tab("no such tab"));
  ASSERT_NE(window.teaching_view()->trace(), nullptr);
  ASSERT_NE(window.topology_view()->picture(), nullptr);
  // 4 algorithms plus at least one ceiling line.
  EXPECT_GE(window.busbw_view()->series_count(), 5);
}

TEST(MainWindow, EveryControlHasATooltip) {
  app();
  MainWindow window;
  for (QWidget* w : window.findChildren<QWidget*>()) {
    const bool control = qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w) ||
                         qobject_cast<QAbstractButton*>(w);
    // Skip Qt's internal children (tab scroll arrows, line edits inside spin boxes).
    if (!control || w->objectName().startsWith("qt_") || !w->parentWidget() ||
        qobject_cast<QAbstractSpinBox*>(w->parentWidget()) || w->inherits("QToolButton"))
      continue;
    EXPECT_FALSE(w->toolTip().isEmpty())
        << w->metaObject()->className() << " " << w->objectName().toStdString();
  }
}

TEST(TeachingView, StepsForwardToTheCompleteSum) {
  app();
  TeachingView view;
  view.resize(1000, 700);
  view.show();
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.trace(); }));
  auto trace = view.trace();
  EXPECT_EQ(view.frame(), 0);
  for (int i = 0; i < 10; ++i) view.forward();  // clamps at the last step
  EXPECT_EQ(view.frame(), trace->steps());
  for (const auto& rank : trace->frames[view.frame()].masks)
    for (uint32_t mask : rank) EXPECT_EQ(mask, 0xFu);
  view.back();
  EXPECT_EQ(view.frame(), trace->steps() - 1);
  view.reset();
  EXPECT_EQ(view.frame(), 0);

  TeachingSettings s;
  s.ranks = 6;
  s.skip = 2;
  view.set_settings(s);
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.trace() != trace; }));
  // 6 ranks, s = 2: 5 - 2 reduce-scatter steps + 5 all-gather steps.
  EXPECT_EQ(view.trace()->steps(), 8);
  EXPECT_TRUE(view.error_text().isEmpty());
}

TEST(TeachingView, PlayAdvancesOnItsTimer) {
  app();
  TeachingView view;
  view.show();
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.trace(); }));
  view.toggle_play();
  ASSERT_TRUE(wait_for([&] { return view.frame() >= 2; }, 5000));
  view.toggle_play();  // pause
  const int paused_at = view.frame();
  QTest::qWait(1200);
  EXPECT_EQ(view.frame(), paused_at);
}

TEST(TeachingView, KeysStepPlayAndResetAndThePlayButtonUsesAnIcon) {
  app();
  TeachingView view;
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&view));
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.trace(); }));
  view.canvas()->setFocus();  // the page has focus, no control that uses the keys itself
  QTest::keyClick(view.canvas(), Qt::Key_Right);
  QTest::keyClick(view.canvas(), Qt::Key_Right);
  EXPECT_EQ(view.frame(), 2);
  QTest::keyClick(view.canvas(), Qt::Key_Left);
  EXPECT_EQ(view.frame(), 1);
  QTest::keyClick(view.canvas(), Qt::Key_Home);
  EXPECT_EQ(view.frame(), 0);
  QAbstractButton* play = nullptr;
  for (QAbstractButton* b : view.findChildren<QAbstractButton*>())
    if (b->text() == "Play") play = b;
  ASSERT_NE(play, nullptr);
  // A theme icon, and text without symbols a font may lack (U+23F8 drew a box).
  EXPECT_FALSE(play->icon().isNull());
  QTest::keyClick(view.canvas(), Qt::Key_Space);
  EXPECT_EQ(play->text(), "Pause");
  QTest::keyClick(view.canvas(), Qt::Key_Space);
  EXPECT_EQ(play->text(), "Play");
  for (QAbstractButton* b : view.findChildren<QAbstractButton*>())
    for (QChar c : b->text()) EXPECT_LT(c.unicode(), 0x2000) << b->text().toStdString();
}

TEST(TopologyView, BuildsItemsForASmallFatTree) {
  const auto view = test::shown_topology_view(1000, 700);
  ASSERT_NE(view, nullptr) << "no first picture";
  auto pic = view->picture();
  EXPECT_EQ(pic->settings.spec, "fattree:k=4");
  int rects = 0, paths = 0, tips = 0;
  for (QGraphicsItem* item : view->scene()->items()) {
    rects += item->type() == QGraphicsRectItem::Type;
    paths += item->type() == QGraphicsPathItem::Type;
    tips += item->type() == QGraphicsPathItem::Type && item->toolTip().contains("busy");
  }
  EXPECT_EQ(rects, 36);  // 16 hosts + 20 switches
  EXPECT_EQ(paths, 48);  // one line per cable
  EXPECT_EQ(tips, 48);   // every line explains its numbers on hover

  view->set_spec("fattree:k=5x");  // invalid: reported in place, the picture stays
  ASSERT_TRUE(wait_for([&] { return view->idle(); }));
  EXPECT_FALSE(view->error_text().isEmpty());
  EXPECT_EQ(view->picture(), pic);
}

TEST(BusbwView, AxisShowsBinarySizes) {  // the curves: tests/views/busbw_model_test.cpp
  app();
  BusbwView view;
  view.show();
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.series_count() > 0; }));
  auto axes = view.chart()->axes(Qt::Horizontal);
  ASSERT_EQ(axes.size(), 1);
  auto* x = qobject_cast<QCategoryAxis*>(axes.front());
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->categoriesLabels().front(), "1K");
  EXPECT_TRUE(x->categoriesLabels().contains("1M"));
  EXPECT_EQ(x->categoriesLabels().back(), "256M");
}

TEST(BusbwView, RingSlicingIsASetting) {  // its curves: tests/views/busbw_model_test.cpp
  app();
  BusbwView view;
  EXPECT_NE(view.findChild<QSpinBox*>("slice"), nullptr);
  EXPECT_NE(view.findChild<QSpinBox*>("chunk"), nullptr);
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));  // its first computation, off the GUI thread
}

TEST(BusbwView, NcclModeMarksTheTunersChoicePerSize) {
  // 2 nodes x 8 H100: the tuner picks the tree with LL, then LL128, for small and mid sizes and
  // the ring for large ones (docs/collectives.md): at least 2 distinct choices, each a marker
  // series named after it, on the NCCL curve's points.
  app();
  BusbwView view;
  view.show();
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.series_count() > 0; }));
  ASSERT_TRUE(view.choose_cluster(2));
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.chart()->title().contains("2 nodes"); }));
  QStringList names, chosen;
  for (QAbstractSeries* s : view.chart()->series()) {
    names << s->name();
    if (s->name().startsWith("chosen: ")) chosen << s->name();
  }
  EXPECT_TRUE(names.contains("NCCL") && names.contains("ring (NCCL)") &&
              names.contains("tree (NCCL)"))
      << names.join(", ").toStdString();
  EXPECT_GE(chosen.size(), 2) << chosen.join(", ").toStdString();
  EXPECT_TRUE(chosen.contains("chosen: ring simple") || chosen.contains("chosen: ring ll128"));
  // The CSV carries the choice per size.
  CsvTable csv = view.export_data();
  EXPECT_EQ(csv.header.back(), "choice");
  // Forcing Simple: every choice is Simple.
  view.findChild<QComboBox*>("proto")->setCurrentText("simple");
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  for (QAbstractSeries* s : view.chart()->series())
    if (s->name().startsWith("chosen: "))
      EXPECT_TRUE(s->name().endsWith(" simple")) << s->name().toStdString();
  // The flat network's controls are off in NCCL mode.
  EXPECT_FALSE(view.findChild<QSpinBox*>("slice")->isEnabled());
}

// The Throughput page's first control read "flat network (controls belc" at 1280x800: every
// cluster choice's text fits the box's text field whole, as the main window lays it out.
TEST(BusbwView, EveryClusterChoiceIsReadableWhole) {
  app();
  MainWindow window;
  window.resize(1280, 800);
  ASSERT_TRUE(window.select_tab("Throughput"));
  window.show();
  QApplication::processEvents();
  auto* cluster = window.findChild<BusbwView*>()->findChild<QComboBox*>("cluster");
  ASSERT_NE(cluster, nullptr);
  QStyleOptionComboBox option;
  option.initFrom(cluster);
  option.rect = cluster->rect();
  const QRect field = cluster->style()->subControlRect(QStyle::CC_ComboBox, &option,
                                                       QStyle::SC_ComboBoxEditField, cluster);
  const QFontMetrics fm(cluster->font());
  for (int i = 0; i < cluster->count(); ++i)
    EXPECT_LE(fm.horizontalAdvance(cluster->itemText(i)), field.width())
        << cluster->itemText(i).toStdString();
}

}  // namespace
}  // namespace commlab::ui
