// write_run_charts (chart_files.h) as commlab-cli calls it: no QApplication exists beforehand,
// the files appear, PNGs are real images, SVGs name the runs, and only charts with data are drawn.
#include "chart_files.h"

#include <gtest/gtest.h>

#include <QChart>
#include <QImage>
#include <QLineSeries>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "run_charts.h"
#include "scenario/runner.h"
#include "support/files.h"
#include "ui_test_util.h"

namespace commlab {
namespace {

using commlab::testing::read_file;

namespace fs = std::filesystem;

ChartRun run_of(const std::string& name, int skip) {
  RunConfig c = ui::test::spiral_run(name, 6, 3);
  c.workload.hidden = {16};
  c.training.global_batch = 32;
  c.training.eval_rows = 100;
  c.techniques.skipreduce.skip = skip;
  c.techniques.skipreduce.min_elements = 0;
  RunSession session(c);
  while (!session.done()) session.step();
  return ChartRun{name, session.samples(), session.summary()};
}

TEST(ChartFiles, WritesPngAndSvgOfEveryChartWithDataWithoutAnApplication) {
  ASSERT_TRUE(charts_available());
  const std::vector<ChartRun> runs{run_of("baseline-run", 0), run_of("skip-one-run", 1)};
  const fs::path dir = fs::path(::testing::TempDir()) / "commlab_chart_files";
  fs::remove_all(dir);
  std::string error = "unset";
  const std::vector<std::string> files = write_run_charts(runs, dir.string(), &error);
  EXPECT_EQ(error, "");
  // Convergence (4), time split, codec (ratio known from the summary) and SkipReduce per
  // iteration at least, each as PNG + SVG.
  for (const char* stem : {"loss_iteration", "loss_time", "accuracy_iteration", "accuracy_time",
                           "time_split", "codec", "skipreduce"}) {
    for (const char* ext : {".png", ".svg"}) {
      const fs::path p = dir / (std::string(stem) + ext);
      EXPECT_NE(std::find(files.begin(), files.end(), p.string()), files.end()) << p;
      ASSERT_TRUE(fs::exists(p)) << p;
      EXPECT_GT(fs::file_size(p), 1000u) << p;
    }
    QImage png(QString::fromStdString((dir / (std::string(stem) + ".png")).string()));
    EXPECT_EQ(png.width(), 1800) << stem;  // 900 px at 2x
    const std::string svg = read_file(dir / (std::string(stem) + ".svg"));
    EXPECT_NE(svg.find("<svg"), std::string::npos) << stem;
    // Every chart names both runs: legends of line charts, categories of bar charts.
    if (std::string(stem) != "time_split") {
      EXPECT_NE(svg.find("baseline-run"), std::string::npos) << stem;
      EXPECT_NE(svg.find("skip-one-run"), std::string::npos) << stem;
    }
  }
  // The time split names its parts.
  EXPECT_NE(read_file(dir / "time_split.svg").find("exposed communication"), std::string::npos);
  // No trimming in these runs: no trimming charts.
  EXPECT_FALSE(fs::exists(dir / "trimmed_packets.png"));
  // (NMSE is there: SkipReduce alone leaves an error in the reduced gradient.)
  EXPECT_TRUE(fs::exists(dir / "nmse.svg"));
  // A white image would have one colour: the curves put many in.
  QImage png(QString::fromStdString((dir / "loss_iteration.png").string()));
  std::set<QRgb> colours;
  for (int y = 0; y < png.height(); y += 7)
    for (int x = 0; x < png.width(); x += 7) colours.insert(png.pixel(x, y));
  EXPECT_GT(colours.size(), 20u);

  // A baseline alone has no SkipReduce chart.
  const fs::path solo = dir / "solo";
  const std::vector<std::string> few = write_run_charts({runs[0]}, solo.string(), &error);
  EXPECT_EQ(error, "");
  EXPECT_FALSE(fs::exists(solo / "skipreduce.png"));
  EXPECT_TRUE(fs::exists(solo / "loss_iteration.svg"));
}

// A run evaluated only at its last iteration has one accuracy point, which a line does not draw:
// it is drawn as a marker. A run evaluated every 3 iterations draws its line without markers.
TEST(ChartFiles, AccuracyOfOneEvaluationIsDrawnAsAPoint) {
  ui::test::app();  // a chart built directly (not through write_run_charts) needs the application
  auto samples_of_run = [](int eval_every) {
    RunConfig c = ui::test::spiral_run("r", 9, eval_every);
    RunSession session(c);
    while (!session.done()) session.step();
    return session.samples();
  };
  const std::vector<Sample> last_only = samples_of_run(100), every_third = samples_of_run(3);
  const std::vector<ui::RunSeries> runs{{"last-only", &last_only}, {"every-third", &every_third}};
  std::unique_ptr<QChart> chart(ui::build_run_chart(ui::RunChart::kAccuracyIteration, runs));
  ASSERT_EQ(chart->series().size(), 2);
  auto* one = qobject_cast<QLineSeries*>(chart->series()[0]);
  auto* many = qobject_cast<QLineSeries*>(chart->series()[1]);
  ASSERT_TRUE(one && many);
  EXPECT_EQ(one->count(), 1);  // iteration 9, the last, is always evaluated
  EXPECT_TRUE(one->pointsVisible());
  EXPECT_EQ(many->count(), 3);  // iterations 3, 6 and 9
  EXPECT_FALSE(many->pointsVisible());
}

TEST(ChartFiles, AnUnwritableDirectoryIsReported) {
  std::string error;
  const auto files = write_run_charts({}, "/proc/no/such/dir", &error);
  EXPECT_TRUE(files.empty());
  EXPECT_NE(error.find("/proc/no/such/dir"), std::string::npos) << error;
}

}  // namespace
}  // namespace commlab
