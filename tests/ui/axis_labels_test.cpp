// Every page at 1280x800 shows its chart text whole: Qt Charts cuts an axis title or tick label
// that does not fit its room down to "..." (ChartPresenter::truncatedText), so a page too cramped
// for its charts shows elided labels. Checked on the rendered text items of every visible chart
// (Training: after a short run, on each of its chart pages), and through the axes: each title's
// width by its font metrics fits the side of the plot area it labels.
#include <gtest/gtest.h>

#include <QApplication>
#include <QChartView>
#include <QDir>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QTextDocumentFragment>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>

#include "main_window.h"
#include "run_chart_pages.h"
#include "run_charts.h"
#include "scenario_files.h"
#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

// The text a chart's scene item draws (empty for other items).
QString item_text(QGraphicsItem* item) {
  if (auto* t = qgraphicsitem_cast<QGraphicsTextItem*>(item)) return t->toPlainText();
  if (auto* s = qgraphicsitem_cast<QGraphicsSimpleTextItem*>(item)) return s->text();
  return {};
}

// Elided text and over-long axis titles in the charts now on screen; one line each.
QStringList cramped_text(const QWidget& root) {
  QStringList found;
  for (QChartView* view : root.findChildren<QChartView*>()) {
    if (!view->isVisible() || !view->chart()) continue;
    const QString where =
        view->chart()->title().isEmpty() ? view->objectName() : view->chart()->title();
    for (QGraphicsItem* item : view->scene()->items()) {
      if (!item->isVisible()) continue;
      const QString text = item_text(item);
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

// Each technique's key knobs are above the fold of the settings column at 1280x800,
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

// The numbers drawn left of the view's plot area (its value axis's tick labels), top to bottom.
std::vector<double> drawn_y_labels(const QChartView& view) {
  const QChart* chart = view.chart();
  std::vector<std::pair<double, double>> found;  // (y on screen, value)
  for (QGraphicsItem* item : view.scene()->items()) {
    if (!item->isVisible()) continue;
    bool number = false;
    const double v = item_text(item).toDouble(&number);
    const QRectF box = item->sceneBoundingRect();
    if (number && box.right() <= chart->plotArea().left() + 1) found.push_back({box.top(), v});
  }
  std::sort(found.begin(), found.end());
  std::vector<double> values;
  for (const auto& f : found) values.push_back(f.second);
  return values;
}

// After Run all the loss axis read 0, 1.33333, 2.66667, 4. A chart refreshed in
// place ran Qt's applyNiceNumbers from the previous tick count: a fresh axis (5 ticks) over a loss
// up to 2.6 became 0..3 in 4 ticks, the next refresh 0..4 in 3 ticks, set as the range first (the
// labels laid out with the old 4) and then the count, which alone does not lay them out again.
// The drawn labels are now the axis's own: tickCount of them, (max - min) / (tickCount - 1)
// apart, and that step is 1, 2 or 5 times a power of ten.
TEST(Layout, ARefreshedLossChartDrawsNiceTickLabels) {
  app();
  std::vector<Sample> samples;
  for (int it = 1; it <= 40; ++it) {
    Sample s;
    s.iteration = it;
    s.train_loss = 0.6 + 2.0 * std::exp(-it / 8.0);  // 2.38 at iteration 1
    samples.push_back(s);
  }
  const std::vector<RunSeries> runs{{"a", &samples}, {"b", &samples}};
  QChartView view;
  view.resize(500, 350);
  view.setChart(build_run_chart(RunChart::kLossIteration, runs));
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  QApplication::processEvents();
  for (int refresh = 0; refresh < 3; ++refresh) {
    ASSERT_EQ(build_run_chart(RunChart::kLossIteration, runs, view.chart()), view.chart());
    QTest::qWait(50);
    view.grab();
    auto* y = qobject_cast<QValueAxis*>(view.chart()->axes(Qt::Vertical).front());
    ASSERT_NE(y, nullptr);
    const double step = (y->max() - y->min()) / (y->tickCount() - 1);
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    EXPECT_TRUE(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 ||
                std::abs(mantissa - 5) < 1e-6)
        << y->min() << ".." << y->max() << " in " << y->tickCount() << " ticks";
    const std::vector<double> drawn = drawn_y_labels(view);
    ASSERT_EQ(static_cast<int>(drawn.size()), y->tickCount())
        << "refresh " << refresh << ": " << ::testing::PrintToString(drawn);
    for (size_t k = 0; k < drawn.size(); ++k)  // top to bottom: max, max - step, ..., min
      EXPECT_NEAR(drawn[k], y->max() - static_cast<double>(k) * step, 1e-6 * step)
          << "refresh " << refresh << " label " << k;
  }
}

}  // namespace
}  // namespace commlab::ui
