#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QTemporaryDir>

#include "busbw_view.h"
#include "chart_export.h"
#include "main_window.h"
#include "teaching_view.h"
#include "topology_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

QByteArray read_all(const QString& file) {
  QFile f(file);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

TEST(Export, EveryTabWritesPngSvgAndCsv) {
  app();
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  MainWindow window;
  window.show();
  ASSERT_TRUE(wait_for([&] { return window.idle(); }));
  for (const QString& tab : window.tab_names()) {
    ASSERT_TRUE(window.select_tab(tab));
    const QString stem = dir.filePath(tab);
    ASSERT_EQ(window.export_current(stem + ".png"), "") << tab.toStdString();
    ASSERT_EQ(window.export_current(stem + ".svg"), "") << tab.toStdString();
    ASSERT_EQ(window.export_current(stem + ".csv"), "") << tab.toStdString();
    QImage png(stem + ".png");
    ASSERT_FALSE(png.isNull()) << tab.toStdString();
    // Exported at twice the view's size.
    EXPECT_EQ(png.size(), window.current_exportable()->export_size() * 2);
    // Not blank: some pixel differs from the white background.
    bool drawn = false;
    for (int y = 0; y < png.height() && !drawn; y += 7)
      for (int x = 0; x < png.width() && !drawn; x += 7) drawn = png.pixel(x, y) != png.pixel(0, 0);
    EXPECT_TRUE(drawn) << tab.toStdString();
    const QByteArray svg = read_all(stem + ".svg");
    EXPECT_TRUE(svg.contains("<svg")) << tab.toStdString();
    EXPECT_GT(svg.size(), 2000) << tab.toStdString();
    const QByteArray csv = read_all(stem + ".csv");
    // Training and Compare have no rows before a run: their CSV is the header alone.
    const bool header_only = tab == "Training" || tab == "Compare";
    EXPECT_GT(csv.count('\n'), header_only ? 0 : 4) << tab.toStdString();
  }
  EXPECT_NE(window.export_current(dir.filePath("x.bmp")), "");
}

TEST(Export, BusbwCsvHasOneRowPerAlgorithmAndSize) {
  app();
  BusbwView view;
  view.show();
  ASSERT_TRUE(wait_for([&] { return view.idle() && view.series_count() > 0; }));
  CsvTable table = view.export_data();
  EXPECT_EQ(table.header, (QStringList{"algorithm", "bytes", "busbw_gbps"}));
  int points = 0;
  for (const QStringList& row : table.rows) points += !row[1].isEmpty();
  // 4 algorithms x sizes 1 KiB .. 256 MiB doubling (19 sizes).
  EXPECT_EQ(points, 4 * 19);
  EXPECT_EQ(table.rows.front()[1], "1024");
}

TEST(Export, CsvQuotesFieldsThatNeedIt) {
  app();
  QTemporaryDir dir;
  CsvTable table{{"a", "b"}, {{"x,y", "say \"hi\""}}};
  ASSERT_EQ(export_csv(table, dir.filePath("t.csv")), "");
  EXPECT_EQ(read_all(dir.filePath("t.csv")), QByteArray("a,b\n\"x,y\",\"say \"\"hi\"\"\"\n"));
}

}  // namespace
}  // namespace commlab::ui
