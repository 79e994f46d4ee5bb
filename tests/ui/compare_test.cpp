// The Compare tab against the engine: the GUI's intervals are the CLI's for the same
// scenario and seeds, because both come from run_experiment and summary.json; the table shows
// them, the band has one point per common evaluation, and a failed run keeps the previous result.
#include <gtest/gtest.h>

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QTableWidget>
#include <cmath>
#include <nlohmann/json.hpp>

#include "compare_view.h"
#include "scenario/run/experiment_runner.h"
#include "scenario/scenario.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

std::vector<RunConfig> spiral_runs() {
  return test::spiral_pair_runs(0.6);
}

TEST(CompareView, IntervalsEqualTheCliSummaryForTheSameSeeds) {
  app();
  CompareView view([] { return spiral_runs(); });
  view.set_seeds(3);
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  // What `commlab-cli run --seeds 3` computes for the same runs (its summary.json).
  Experiment exp;
  exp.name = "compare";
  exp.runs = spiral_runs();
  RunnerOptions options;
  options.seeds = 3;
  options.jobs = 1;  // another job count: the numbers must not depend on it
  const nlohmann::json cli = nlohmann::json::parse(run_experiment(exp, options).summary_json);
  const nlohmann::json& gui = view.summary();
  ASSERT_EQ(gui["runs"].size(), 2u);
  EXPECT_EQ(gui["runs"][1]["speedup_vs_baseline"], cli["runs"][1]["speedup_vs_baseline"]);
  EXPECT_EQ(gui["runs"][1]["accuracy_delta_vs_baseline"],
            cli["runs"][1]["accuracy_delta_vs_baseline"]);
  EXPECT_EQ(gui["runs"][0]["time_to_accuracy"], cli["runs"][0]["time_to_accuracy"]);
  // The table's speedup cell shows the estimate to two decimals, then the interval.
  const double estimate = cli["runs"][1]["speedup_vs_baseline"]["estimate"].get<double>();
  const QString cell = view.table()->item(1, 5)->text();
  EXPECT_TRUE(cell.startsWith(QString::number(estimate, 'f', 2) + "x")) << cell.toStdString();
  // One band per run; eval_every 2 over 40 iterations: 20 evaluations common to the 3 seeds, each
  // with n = 3 and lo <= mean <= hi.
  ASSERT_EQ(view.bands().size(), 2u);
  ASSERT_EQ(view.bands()[0].size(), 20u);
  for (const BandPoint& p : view.bands()[0]) {
    EXPECT_EQ(p.n, 3);
    EXPECT_LE(p.lo, p.mean);
    EXPECT_GE(p.hi, p.mean);
  }
  // Hovering the baseline's mean
  // curve near its third evaluation reads out that evaluation: time (ms) = 1e3 x sim_time_s and
  // the mean accuracy over the seeds, the band's own numbers.
  auto* chart_view = view.findChild<QChartView*>();
  ASSERT_NE(chart_view, nullptr);
  QLineSeries* mean = nullptr;
  for (QAbstractSeries* s : chart_view->chart()->series())
    if (s->name() == "baseline") mean = qobject_cast<QLineSeries*>(s);
  ASSERT_NE(mean, nullptr);
  const BandPoint& third = view.bands()[0][2];
  emit mean->hovered({1e3 * third.sim_time_s * 1.001, third.mean + 0.01}, true);
  EXPECT_EQ(chart_view->property("hover_readout").toString().toStdString(),
            "baseline\nsimulated time (ms): " +
                QString::number(1e3 * third.sim_time_s, 'g', 6).toStdString() +
                "\ntest accuracy: " + QString::number(third.mean, 'g', 6).toStdString());
}

TEST(CompareView, AFailedComparisonKeepsThePreviousTable) {
  app();
  bool broken = false;
  CompareView view([&] {
    std::vector<RunConfig> runs = spiral_runs();
    if (broken) runs[1].training.global_batch = 33;  // not a multiple of the 4 ranks
    return runs;
  });
  view.set_seeds(2);
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  ASSERT_EQ(view.table()->rowCount(), 2);
  const QString before = view.table()->item(1, 5)->text();
  broken = true;
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  EXPECT_TRUE(view.status_text().startsWith("Failed")) << view.status_text().toStdString();
  EXPECT_EQ(view.table()->item(1, 5)->text(), before);
}

}  // namespace
}  // namespace commlab::ui
