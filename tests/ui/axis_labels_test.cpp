// Every page at 1280x800 shows its chart text whole: Qt Charts cuts an axis title or tick label
// that does not fit its room down to "..." (ChartPresenter::truncatedText), so a page too cramped
// for its charts shows elided labels. Checked on the rendered text items of every visible chart
// (Training: after a short run, on each of its chart pages), and through the axes: each title's
// width by its font metrics fits the side of the plot area it labels.
#include <gtest/gtest.h>

#include <QApplication>
#include <QChartView>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QTextDocumentFragment>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>

#include "main_window.h"
#include "run_chart_pages.h"
#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

// Elided text and over-long axis titles in the charts now on screen; one line each.
QStringList cramped_text(const QWidget& root) {
  QStringList found;
  for (QChartView* view : root.findChildren<QChartView*>()) {
    if (!view->isVisible() || !view->chart()) continue;
    const QString where =
        view->chart()->title().isEmpty() ? view->objectName() : view->chart()->title();
    for (QGraphicsItem* item : view->scene()->items()) {
      if (!item->isVisible()) continue;
      QString text;
      if (auto* t = qgraphicsitem_cast<QGraphicsTextItem*>(item))
        text = t->toPlainText();
      else if (auto* s = qgraphicsitem_cast<QGraphicsSimpleTextItem*>(item))
        text = s->text();
      if (text.endsWith("...")) found << where + ": elided '" + text + "'";
    }
    const QRectF plot = view->chart()->plotArea();
    for (QAbstractAxis* axis : view->chart()->axes()) {
      if (!axis->isVisible() || !axis->isTitleVisible() || axis->titleText().isEmpty()) continue;
      const QString title = QTextDocumentFragment::fromHtml(axis->titleText()).toPlainText();
      const double room = axis->orientation() == Qt::Horizontal ? plot.width() : plot.height();
      if (QFontMetricsF(axis->titleFont()).horizontalAdvance(title) > room)
        found << where + ": axis title '" + title + "' wider than its " + QString::number(room) +
                     " px";
    }
  }
  return found;
}

TEST(Layout, EveryPageAt1280x800ShowsItsChartTextWhole) {
  app();
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  ASSERT_TRUE(wait_for([&] { return window.idle(); }));
  // The Training charts have text only once a run drew them: a short run of the default scenario.
  TrainingView* training = window.training_view();
  RunConfig c = training->panel()->config();
  c.training.iterations = 20;
  training->panel()->set_config(c);
  ASSERT_TRUE(training->run());
  ASSERT_TRUE(wait_for([&] { return window.idle(); }));
  for (const QString& tab : window.tab_names()) {
    ASSERT_TRUE(window.select_tab(tab));
    ASSERT_TRUE(wait_for([&] { return window.idle(); })) << tab.toStdString();
    QStringList pages{""};
    if (tab == "Training") pages = training->charts()->page_names();
    for (const QString& page : pages) {
      if (!page.isEmpty()) ASSERT_TRUE(training->charts()->select_page(page));
      QApplication::processEvents();
      const QStringList found = cramped_text(window);
      EXPECT_TRUE(found.isEmpty()) << tab.toStdString() << " " << page.toStdString() << ":\n"
                                   << found.join("\n").toStdString();
    }
  }
}

// Issue 33: each technique's key knobs are above the fold of the settings column at 1280x800,
// seen without scrolling: every one lies inside the visible part of the window's training page.
TEST(Layout, TechniqueKnobsAreAboveTheFoldAt1280x800) {
  app();
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  ASSERT_TRUE(window.select_tab("Training"));
  ASSERT_TRUE(wait_for([&] { return window.idle(); }));
  QApplication::processEvents();
  TrainingPanel* panel = window.training_view()->panel();
  for (const char* path : {"collective.algorithm", "techniques.codec", "techniques.skipreduce.skip",
                           "techniques.skipreduce.policy", "techniques.trimming.enabled",
                           "techniques.trimming.rate"}) {
    QWidget* knob = panel->control(path);
    ASSERT_NE(knob, nullptr) << path;
    // visibleRegion() is what the scroll area's viewport leaves of the control on screen.
    const QRect seen = knob->visibleRegion().boundingRect();
    EXPECT_EQ(seen.size(), knob->rect().size())
        << path << ": " << seen.height() << " of " << knob->height() << " px visible";
  }
}

}  // namespace
}  // namespace commlab::ui
