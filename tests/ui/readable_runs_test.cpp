// A dozen runs read at 1280x800: the runs table fits the width (names elided, whole in the
// tooltip), shows at least 10 of 12 rows, remembers its divider, renames in place; bar labels fit
// their bars; each run keeps one colour of a palette whose colours stay apart (CIE delta-E).
#include <gtest/gtest.h>

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QLineEdit>
#include <QLineSeries>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "main_window.h"
#include "run_chart_pages.h"
#include "run_charts.h"
#include "runs_list.h"
#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

// QSettings of the test's own, so a remembered divider neither comes from nor goes to the user's.
struct OwnSettings {
  QTemporaryDir dir;
  OwnSettings() {
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
    QCoreApplication::setOrganizationName("commlab-readable-test");
  }
};

// Twelve rows as a lecture's comparison fills them: short names, one long name a user typed,
// every figure column filled with its widest text.
std::vector<RunRow> twelve_rows() {
  std::vector<RunRow> rows;
  for (int i = 0; i < 12; ++i) {
    RunRow r;
    r.id = i + 1;
    r.name = i == 0 ? QString("baseline") : QString("flat:16, netzip-paper +%1").arg(i);
    if (i == 5)
      r.name = "my renamed run: leaf-spine with 16 servers, SkipReduce s=4 and NetZIP as published";
    r.scenario = "lecture";
    r.changes = "cluster.spec leafspine:servers=16, codec netzip-paper, skip 4, ranks 16";
    r.color = run_color(i);
    r.accuracy = "0.8765";
    r.per_iteration = "123.4";
    r.tta = i % 2 ? "not reached" : "12345";
    r.speedup = i % 2 ? "-" : "12.34x";
    r.wire = "1234.5";
    r.baseline = i == 0;
    rows.push_back(r);
  }
  return rows;
}

// The rows whose whole height is inside the table's viewport.
int rows_in_view(QTreeWidget* tree) {
  int shown = 0;
  const QRect view = tree->viewport()->rect();
  for (int i = 0; i < tree->topLevelItemCount(); ++i) {
    const QRect row = tree->visualItemRect(tree->topLevelItem(i));
    shown += row.top() >= view.top() && row.bottom() <= view.bottom();
  }
  return shown;
}

// At 1280x800 the table of 12 runs has no horizontal scroll bar (its columns add up to the
// viewport: before, a long name made it scroll and the seed columns left the screen), every
// figure is whole, the long name is elided with its whole text in the row's tooltip, and 10 or
// more rows are in view (4 were).
TEST(ReadableRuns, TwelveRunsFitTheTableAt1280x800WithTenRowsInView) {
  app();
  OwnSettings settings;
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  ASSERT_TRUE(window.select_tab("Training"));
  RunsList* list = window.training_view()->runs_list();
  const std::vector<RunRow> rows = twelve_rows();
  list->set_rows(rows);
  QApplication::processEvents();
  QTreeWidget* tree = list->tree();
  EXPECT_EQ(tree->horizontalScrollBar()->maximum(), 0);
  int used = 0;
  for (int c = 0; c < tree->columnCount(); ++c)
    if (!tree->isColumnHidden(c)) used += tree->columnWidth(c);
  EXPECT_LE(used, tree->viewport()->width()) << [&] {
    std::string widths;
    for (int c = 0; c < tree->columnCount(); ++c)
      widths += std::to_string(tree->isColumnHidden(c) ? -1 : tree->columnWidth(c)) + " ";
    return widths;
  }();
  for (int c = 2; c + 1 < tree->columnCount(); ++c) {  // the figures: never elided
    int needed = tree->header()->fontMetrics().horizontalAdvance(tree->headerItem()->text(c));
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
      needed =
          std::max(needed, tree->fontMetrics().horizontalAdvance(tree->topLevelItem(i)->text(c)));
    EXPECT_GE(tree->columnWidth(c), needed) << "column " << c;
  }
  EXPECT_LT(tree->columnWidth(0), tree->fontMetrics().horizontalAdvance(rows[5].name));
  EXPECT_TRUE(tree->topLevelItem(5)->toolTip(0).startsWith(rows[5].name));
  EXPECT_GE(rows_in_view(tree), 10) << "viewport height " << tree->viewport()->height();
}

// Promotes QSplitter::moveSplitter (protected), what a drag of the divider calls.
struct DraggableSplitter : QSplitter {
  using QSplitter::moveSplitter;
};

// A dragged divider between the charts and the runs table is there in the next session.
TEST(ReadableRuns, TheDividerBetweenChartsAndTableIsRemembered) {
  app();
  OwnSettings settings;
  QList<int> dragged;
  {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(window.select_tab("Training"));
    QApplication::processEvents();
    auto* split = window.training_view()->findChild<QSplitter*>("runs_splitter");
    ASSERT_NE(split, nullptr);
    const QList<int> before = split->sizes();
    // Down: the table smaller (the charts are at their minimum height above).
    static_cast<DraggableSplitter*>(split)->moveSplitter(before[0] + 60, 1);
    dragged = split->sizes();
    ASSERT_NE(dragged, before);
  }
  MainWindow again;
  again.resize(1280, 800);
  again.show();
  ASSERT_TRUE(again.select_tab("Training"));
  QApplication::processEvents();
  auto* split = again.training_view()->findChild<QSplitter*>("runs_splitter");
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->sizes(), dragged);
}

// Rename in place: typing a new name into the name cell renames the run, and what Save writes
// (the table's runs) has the new name.
TEST(ReadableRuns, ANameEditedInItsCellIsTheSavedName) {
  app();
  TrainingView view;
  view.set_live(false);
  RunConfig a = test::spiral_run("baseline", 4, 2), b = a;
  b.name = "lr";
  b.training.lr = 0.2;
  view.set_runs({a, b}, "rename");
  view.show();
  ASSERT_TRUE(view.run_all());
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.run_ids().size() == 2; }));
  QTreeWidget* tree = view.runs_list()->tree();
  QTreeWidgetItem* item = tree->topLevelItem(1);
  ASSERT_NE(item, nullptr);
  tree->setCurrentItem(item, 0);
  tree->editItem(item, 0);
  QApplication::processEvents();
  auto* editor = tree->viewport()->findChild<QLineEdit*>();
  ASSERT_NE(editor, nullptr) << "the name cell opens no editor";
  editor->selectAll();
  QTest::keyClicks(editor, "larger learning rate");
  QTest::keyClick(editor, Qt::Key_Return);
  QApplication::processEvents();
  EXPECT_EQ(tree->topLevelItem(1)->text(0), "larger learning rate");
  const std::vector<SavedRun> saved = view.table_runs();
  ASSERT_EQ(saved.size(), 2u);
  EXPECT_EQ(saved[1].config.name, "larger learning rate");
  EXPECT_EQ(saved[1].config.training.lr, 0.2);
}

// The category axis of a bar chart (along the bottom or down the side), or null.
QBarCategoryAxis* category_axis(QChart* chart) {
  for (QAbstractAxis* axis : chart->axes())
    if (auto* c = qobject_cast<QBarCategoryAxis*>(axis)) return c;
  return nullptr;
}

// A dozen bars in the Training tab at 1280x800: under twelve vertical bars each name had 55 px and
// read "al...hm tree". Each bar's label is its run's name whole, as assigned and as painted (a
// 24-character short name included), on a row at least a line high, no two labels overlapping;
// the hover readout names the bar's run.
TEST(ReadableRuns, ADozenBarLabelsAreTheRunsWholeNamesAt1280x800) {
  app();
  OwnSettings settings;
  QSize size;  // the chart pages' size in the Training tab of a 1280x800 window
  {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(window.select_tab("Training"));
    QApplication::processEvents();
    size = window.training_view()->charts()->size();
  }
  ASSERT_GT(size.width(), 600);
  const QStringList names = {"baseline",       "algorithm tree", "algorithm hd",
                             "skipreduce s=2", "skipreduce s=4", "netzip-paper",
                             "codec zstd-1",   "trim-eden-20",   "trim-eden-50",
                             "lr 0.1",         "lr 0.02",        "flat:16, netzip-paper +2"};
  std::vector<std::vector<Sample>> curves(names.size(), std::vector<Sample>(3));
  for (auto& c : curves)
    for (Sample& s : c) s.comm_time_s = 1e-3;
  std::vector<RunSeries> runs;
  for (int i = 0; i < names.size(); ++i)
    runs.push_back({names[i].toStdString(), &curves[static_cast<size_t>(i)], -1, true, i});
  RunChartPages pages;
  pages.resize(size);
  pages.show();
  pages.set_runs(runs);
  QApplication::processEvents();
  pages.set_runs(runs);  // laid out: the fit uses the view's real size
  QApplication::processEvents();
  QChart* chart = pages.chart(RunChart::kTimeSplit);
  QBarCategoryAxis* axis = category_axis(chart);
  ASSERT_NE(axis, nullptr);
  QStringList bottom_first = names;  // Qt lists a horizontal chart's categories upwards
  std::reverse(bottom_first.begin(), bottom_first.end());
  EXPECT_EQ(axis->categories(), bottom_first);
  const QFontMetricsF fm(axis->labelsFont());
  EXPECT_GE(chart->plotArea().height() / names.size(), fm.height());
  // As painted: a text item per name reading it whole, none overlapping another.
  std::vector<QRectF> painted;
  for (const QString& name : names) {
    int found = 0;
    for (QGraphicsItem* item : chart->scene()->items())
      if (auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item);
          text && text->isVisible() && text->toPlainText() == name) {
        ++found;
        painted.push_back(text->sceneBoundingRect());
      }
    EXPECT_EQ(found, 1) << name.toStdString();
  }
  ASSERT_EQ(painted.size(), static_cast<size_t>(names.size()));
  for (size_t i = 0; i < painted.size(); ++i)
    for (size_t j = i + 1; j < painted.size(); ++j) {
      // Top to bottom in the runs table's order.
      EXPECT_LT(painted[i].center().y(), painted[j].center().y());
      // Qt's text items carry a 4 px document margin around the glyphs.
      EXPECT_FALSE(painted[i].adjusted(4, 4, -4, -4).intersects(painted[j].adjusted(4, 4, -4, -4)))
          << names[static_cast<int>(i)].toStdString() << " / "
          << names[static_cast<int>(j)].toStdString();
    }
  // The parts' legend stays (the runs table is no legend for compute / communication / codec).
  EXPECT_TRUE(chart->legend()->isVisible());
  auto* series = qobject_cast<QAbstractBarSeries*>(chart->series().front());
  ASSERT_NE(series, nullptr);
  auto* view = qobject_cast<QChartView*>(chart->scene()->views().front());
  emit series->hovered(true, 2, series->barSets()[1]);  // the third bar from the bottom
  EXPECT_TRUE(view->property("hover_readout").toString().contains(bottom_first[2]))
      << view->property("hover_readout").toString().toStdString();
}

// Labels along the bottom (the other bar charts) that do not fit wrap at their spaces; labels
// down the side are elided only past their width, and become numbers on rows lower than a line.
TEST(ReadableRuns, CategoryLabelsWrapOrElideOnlyWhenTheyMust) {
  app();
  const QFont font;
  const QFontMetricsF fm(font);
  const double room = fm.horizontalAdvance("algorithm") + 2;
  EXPECT_EQ(fit_category_labels({"algorithm tree", "algorithm hd"}, font, room),
            QStringList({"algorithm<br>tree", "algorithm<br>hd"}));
  EXPECT_EQ(fit_category_labels({"ring", "tree"}, font, room), QStringList({"ring", "tree"}));
  EXPECT_EQ(fit_row_labels({"algorithm tree", "lr 0.1"}, font, 200, fm.height()),
            QStringList({"algorithm tree", "lr 0.1"}));
  // Bottom first: "lr 0.1" is the top row, run 1 of the table.
  EXPECT_EQ(fit_row_labels({"algorithm tree", "lr 0.1"}, font, 200, fm.height() - 1),
            QStringList({"2", "1"}));
  const QStringList cut =
      fit_row_labels({"a very long renamed run name of many words"}, font, room, fm.height());
  EXPECT_LE(fm.horizontalAdvance(cut.front()), room);
}

// CIE L*a*b* (D65) of an sRGB colour: each channel c in [0, 1] is linearised
// (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055)^2.4), turned into XYZ by the sRGB matrix,
// divided by the D65 white (0.95047, 1, 1.08883) and mapped by f(t) = t^(1/3) above (6/29)^3,
// else t / (3 (6/29)^2) + 4/29: L = 116 f(Y) - 16, a = 500 (f(X) - f(Y)), b = 200 (f(Y) - f(Z)).
std::array<double, 3> lab(const QColor& c) {
  auto linear = [](double v) {
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  const double r = linear(c.redF()), g = linear(c.greenF()), b = linear(c.blueF());
  const double X = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const double Y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const double Z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  auto f = [](double t) {
    constexpr double d = 6.0 / 29;
    return t > d * d * d ? std::cbrt(t) : t / (3 * d * d) + 4.0 / 29;
  };
  return {116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))};
}

// CIE76: delta-E = the Euclidean distance of the two colours in L*a*b*.
double delta_e(const QColor& p, const QColor& q) {
  const auto a = lab(p), b = lab(q);
  return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

TEST(RunPalette, TwentyColoursAtLeastDeltaE20ApartTheFirstEightOkabeIto) {
  ASSERT_EQ(run_palette_size(), 20);
  // Known value: white against black is L 100 vs 0, delta-E 100.
  EXPECT_NEAR(delta_e(Qt::white, Qt::black), 100, 0.01);
  double smallest = 1e9;
  for (int i = 0; i < 20; ++i) {
    EXPECT_GE(delta_e(run_color(i), QColor(kGhostColor.rgb())), 20) << i << " vs the ghost";
    for (int j = 0; j < i; ++j) {
      smallest = std::min(smallest, delta_e(run_color(i), run_color(j)));
      EXPECT_GE(delta_e(run_color(i), run_color(j)), 20) << i << " vs " << j;
    }
  }
  RecordProperty("smallest_delta_e", std::to_string(smallest));
  // Okabe and Ito's eight colour-blind-safe colours, in some order.
  const QSet<QRgb> okabe_ito{0xff000000, 0xffe69f00, 0xff56b4e9, 0xff009e73,
                             0xfff0e442, 0xff0072b2, 0xffd55e00, 0xffcc79a7};
  QSet<QRgb> first;
  for (int i = 0; i < 8; ++i) first.insert(run_color(i).rgb());
  EXPECT_EQ(first, okabe_ito);
}

QColor loss_colour(TrainingView& view, const QString& name) {
  for (QAbstractSeries* s : view.charts()->chart(RunChart::kLossIteration)->series())
    if (s->name() == name) return qobject_cast<QLineSeries*>(s)->pen().color();
  return QColor();
}

// The baseline's colour is the palette's first whatever ran before it: a session that starts
// with an edit and one that starts with Run all draw it alike (it was red in one and blue in the
// other); removing a run recolours no other.
TEST(RunPalette, TheBaselineHasTheSameColourWhateverRanFirst) {
  app();
  RunConfig a = test::spiral_run("baseline", 4, 2), b = a, c = a;
  b.name = "b";
  b.training.lr = 0.2;
  c.name = "c";
  c.training.lr = 0.02;
  for (bool edit_first : {true, false}) {
    SCOPED_TRACE(edit_first ? "an edit first" : "Run all first");
    TrainingView view;
    view.set_live(false);
    view.set_runs({a, b, c}, "colours");
    if (edit_first) {
      RunConfig edited = a;
      edited.training.lr = 0.3;
      view.panel()->set_config(edited);
      ASSERT_TRUE(view.run());
      ASSERT_TRUE(wait_for([&] { return view.idle(); }));
      view.pin();
      view.panel()->set_config(a);  // back to the scenario's settings: Run all runs them
    }
    ASSERT_TRUE(view.run_all());
    ASSERT_TRUE(wait_for([&] { return view.idle() && view.summaries().size() >= 3; }));
    EXPECT_EQ(loss_colour(view, "baseline"), run_color(0));
    EXPECT_EQ(loss_colour(view, "b"), run_color(1));
    const QColor c_colour = loss_colour(view, "c");
    EXPECT_EQ(c_colour, run_color(2));
    view.remove_run(view.run_ids().front());
    EXPECT_EQ(loss_colour(view, "c"), c_colour);
    EXPECT_EQ(loss_colour(view, "b"), run_color(1));
  }
}

}  // namespace
}  // namespace commlab::ui
