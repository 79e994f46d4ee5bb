// Save writes what the Training tab shows: every row of the runs table (runs of
// Run all, pinned runs, live edits, live forks, renamed runs) in its order, the row the table calls
// baseline as the file's baseline, and each fork's provenance; a fresh window that opens the file
// lists the same runs, and Run all there gives the same table.
#include <gtest/gtest.h>

#include <QChart>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLineSeries>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <fstream>
#include <map>
#include <set>

#include "main_window.h"
#include "run_chart_pages.h"
#include "run_charts.h"
#include "runs_list.h"
#include "scenario/scenario.h"
#include "scenario/schema.h"
#include "scenario_files.h"
#include "training_bridge.h"
#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

// Four spiral runs of 20 iterations: fast enough to train a dozen in a test.
constexpr const char* kScenario = R"({"name": "saved-runs", "seed": 3,
  "cluster": {"spec": "flat:4"},
  "workload": {"model": "mlp", "hidden": [16], "dataset": "spiral"},
  "training": {"ranks": 4, "iterations": 20, "global_batch": 32, "eval_every": 2, "eval_rows": 0},
  "runs": [{"name": "baseline"},
           {"name": "fast", "set": {"training": {"lr": 0.2}}},
           {"name": "skip", "set": {"techniques": {"skipreduce":
               {"skip": 2, "policy": "random", "min_elements": 0}}}},
           {"name": "slow", "set": {"training": {"lr": 0.01}}}]})";

QDoubleSpinBox* lr_box(TrainingView* view) {
  return qobject_cast<QDoubleSpinBox*>(view->panel()->control("training.lr"));
}

// A row as the table shows it: its name (without the fork mark), whether it is the baseline (the
// speedup column in bold), and its settings under that name.
struct Row {
  QString name;
  bool baseline = false;
  std::string config;
};

std::vector<Row> table_rows(TrainingView* view) {
  std::vector<Row> out;
  QTreeWidget* tree = view->runs_list()->tree();
  const std::vector<SavedRun> saved = view->table_runs();
  EXPECT_EQ(static_cast<int>(saved.size()), tree->topLevelItemCount());
  for (int i = 0; i < tree->topLevelItemCount() && i < static_cast<int>(saved.size()); ++i) {
    const QTreeWidgetItem* item = tree->topLevelItem(i);
    out.push_back({item->data(0, Qt::UserRole).toString(), item->font(5).bold(),
                   to_json(saved[i].config).dump()});
  }
  return out;
}

struct SaveRuns : ::testing::Test {
  QTemporaryDir dir;
  std::unique_ptr<MainWindow> window;
  TrainingView* view = nullptr;

  void SetUp() override {
    app();
    const QString file = dir.filePath("saved-runs.json");
    std::ofstream(file.toStdString()) << kScenario;
    window = std::make_unique<MainWindow>();
    view = window->training_view();
    view->set_live(false);
    ASSERT_TRUE(window->open_scenario(file).isEmpty());
  }
  void idle() {
    ASSERT_TRUE(wait_for([&] { return view->idle(); }));
  }
  // Live off: the panel's settings with lr = `lr`, run to the end and pinned.
  void run_and_pin(double lr) {
    lr_box(view)->setValue(lr);
    ASSERT_TRUE(view->run());
    idle();
    view->pin();
  }
  // Live on with "Live edits fork": a run stepped to iteration `at`, then an lr edit forks it
  // there; the fork runs to the end.
  void fork_at(int at, double lr) {
    view->findChild<QCheckBox*>("fork")->setChecked(true);
    for (int i = 0; i < at; ++i) view->step();
    ASSERT_TRUE(wait_for([&] { return view->bridge()->completed() == at; }));
    view->set_live(true);
    lr_box(view)->setValue(lr);
    ASSERT_TRUE(wait_for([&] { return view->bridge()->forked_at() == at; }));
    idle();
    view->set_live(false);
    view->findChild<QCheckBox*>("fork")->setChecked(false);
  }
  // Twelve rows: Run all's four, four pinned edits, two forks (one renamed), a pinned edit of
  // another run, and the last live edit as the current run.
  void build_twelve() {
    ASSERT_TRUE(view->run_all());
    idle();
    run_and_pin(0.3);
    run_and_pin(0.15);
    run_and_pin(0.07);
    run_and_pin(0.02);
    fork_at(5, 0.25);
    view->pin();
    fork_at(8, 0.04);
    view->rename_run(view->run_ids().back(), "my fork");
    view->pin();
    view->choose_run(2);  // "skip", edited
    run_and_pin(0.09);
    lr_box(view)->setValue(0.11);
    ASSERT_TRUE(view->run());
    idle();
    ASSERT_EQ(view->runs_list()->row_count(), 12);
  }
};

TEST_F(SaveRuns, ReopeningTheSavedFileGivesTheSameTable) {
  build_twelve();
  const std::vector<Row> before = table_rows(view);
  ASSERT_EQ(before.size(), 12u);
  if (qEnvironmentVariableIsSet("COMMLAB_SHOTS")) {  // for a look: the Training page, 12 runs
    window->resize(1280, 800);
    window->select_tab("Training");
    window->show();
    QTest::qWait(200);
    window->grab().save(qEnvironmentVariable("COMMLAB_SHOTS") + "/training_12_runs.png");
    view->runs_list()->tree()->scrollToBottom();
    QTest::qWait(50);
    view->runs_list()->grab().save(qEnvironmentVariable("COMMLAB_SHOTS") + "/runs_12_end.png");
  }
  ASSERT_TRUE(before[0].baseline);  // Run all's "baseline" row
  ASSERT_EQ(before[0].name, "baseline");
  // Two rows are forks: marked in the name column, the fork point in the tooltip.
  QTreeWidget* tree = view->runs_list()->tree();
  const QTreeWidgetItem* fork = tree->topLevelItem(8);
  EXPECT_TRUE(fork->text(0).startsWith(kForkMark)) << fork->text(0).toStdString();
  EXPECT_TRUE(fork->toolTip(0).contains("at iteration 5")) << fork->toolTip(0).toStdString();
  EXPECT_EQ(tree->topLevelItem(9)->data(0, Qt::UserRole).toString(), "my fork");

  const QString saved = dir.filePath("twelve.json");
  ASSERT_EQ(window->save_scenario(saved), "");
  const LoadedScenario loaded = load_scenario_file(saved);
  ASSERT_TRUE(loaded.problems.isEmpty()) << loaded.problems.join("\n").toStdString();
  // Every row, in order, with its settings; the file's baseline is its run named "baseline".
  ASSERT_EQ(loaded.runs.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(QString::fromStdString(loaded.runs[i].name), before[i].name) << i;
    EXPECT_EQ(to_json(loaded.runs[i]).dump(), before[i].config) << i;
  }
  // The forks' provenance: the run each continued and the iteration.
  ASSERT_EQ(loaded.forked_from.size(), before.size());
  EXPECT_EQ(loaded.forked_from[8].iteration, 5);
  EXPECT_EQ(loaded.forked_from[9].iteration, 8);
  EXPECT_FALSE(loaded.forked_from[8].run.empty());
  // The second fork continued a live run named "lr 0.25" that was not kept, not the saved row of
  // that name.
  EXPECT_EQ(loaded.forked_from[9].run, "lr 0.25 (not saved)");
  for (size_t i : {0u, 1u, 4u, 10u, 11u}) EXPECT_EQ(loaded.forked_from[i].iteration, 0) << i;

  // A fresh window: the same runs to choose from, and Run all gives the same table.
  MainWindow again;
  TrainingView* view2 = again.training_view();
  view2->set_live(false);
  ASSERT_TRUE(again.open_scenario(saved).isEmpty());
  const std::vector<RunConfig> runs = view2->runs();
  ASSERT_EQ(runs.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(QString::fromStdString(runs[i].name), before[i].name) << i;
    EXPECT_EQ(to_json(runs[i]).dump(), before[i].config) << i;
  }
  ASSERT_TRUE(view2->run_all());
  ASSERT_TRUE(wait_for([&] { return view2->idle(); }, 60000));
  const std::vector<Row> after = table_rows(view2);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].name, before[i].name) << i;
    EXPECT_EQ(after[i].baseline, before[i].baseline) << i;
    EXPECT_EQ(after[i].config, before[i].config) << i;
  }
  // Run all trains a saved fork from iteration 1, and its row says so.
  const QTreeWidgetItem* refork = view2->runs_list()->tree()->topLevelItem(8);
  EXPECT_FALSE(refork->text(0).startsWith(kForkMark));
  EXPECT_TRUE(refork->toolTip(0).contains("saved as a fork of"))
      << refork->toolTip(0).toStdString();
}

// Each run's colour as drawn: the pen of its curve in the loss chart, by the curve's name.
std::map<QString, QRgb> drawn_colors(TrainingView* view) {
  std::map<QString, QRgb> out;
  if (QChart* chart = view->charts()->chart(RunChart::kLossIteration))
    for (QAbstractSeries* s : chart->series())
      if (auto* line = qobject_cast<QLineSeries*>(s)) out[s->name()] = line->pen().color().rgb();
  return out;
}

// A run keeps its colour through Save as and opening the file again, also when a run in the
// middle of the table was removed (the rows after it would otherwise shift onto the next colours):
// Save writes each run's palette index, and a run opened with the settings of the file's run i
// takes the file's colour of run i.
TEST_F(SaveRuns, ReopeningKeepsEveryRunsColour) {
  ASSERT_TRUE(view->run_all());
  idle();
  run_and_pin(0.3);
  run_and_pin(0.15);
  const std::vector<SavedRun> all = view->table_runs();
  ASSERT_EQ(all.size(), 6u);
  ASSERT_EQ(all[1].config.name, "fast");
  const int fast_color = all[1].color;
  view->remove_run(view->run_ids()[1]);
  const std::vector<SavedRun> before = view->table_runs();
  ASSERT_EQ(before.size(), 5u);
  // The rows' colours differ from their positions: "skip" keeps colour 2 in row 1.
  std::set<int> distinct{fast_color};
  for (const SavedRun& r : before) distinct.insert(r.color);
  ASSERT_EQ(distinct.size(), 6u);
  ASSERT_NE(before[1].color, 1);
  ASSERT_TRUE(wait_for([&] { return drawn_colors(view).size() == before.size(); }));
  const std::map<QString, QRgb> drawn = drawn_colors(view);

  const QString saved = dir.filePath("colours.json");
  ASSERT_EQ(window->save_scenario(saved), "");
  const LoadedScenario loaded = load_scenario_file(saved);
  ASSERT_TRUE(loaded.problems.isEmpty()) << loaded.problems.join("\n").toStdString();
  // The rows, then "fast" (a run of the scenario no row holds) in the colour it had.
  ASSERT_EQ(loaded.colors.size(), 6u);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(loaded.colors[i], before[i].color) << i;
  EXPECT_EQ(loaded.runs[5].name, "fast");
  EXPECT_EQ(loaded.colors[5], fast_color);

  MainWindow again;
  TrainingView* view2 = again.training_view();
  view2->set_live(false);
  ASSERT_TRUE(again.open_scenario(saved).isEmpty());
  ASSERT_TRUE(view2->run_all());
  ASSERT_TRUE(wait_for([&] { return view2->idle(); }, 60000));
  const std::vector<SavedRun> after = view2->table_runs();
  ASSERT_EQ(after.size(), 6u);
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].config.name, before[i].config.name) << i;
    EXPECT_EQ(after[i].color, before[i].color) << after[i].config.name;
  }
  EXPECT_EQ(after[5].color, fast_color);
  // As drawn: every run's curve in the colour it had before saving.
  ASSERT_TRUE(wait_for([&] { return drawn_colors(view2).size() == after.size(); }));
  const std::map<QString, QRgb> drawn2 = drawn_colors(view2);
  for (const auto& [name, rgb] : drawn) {
    ASSERT_TRUE(drawn2.count(name)) << name.toStdString();
    EXPECT_EQ(drawn2.at(name), rgb) << name.toStdString();
  }
  EXPECT_EQ(drawn2.at("fast"), run_color(fast_color).rgb());
}

// A scenario run that Save adds after the rows keeps its colour unless a saved run holds it.
TEST(SavePlan, AnAddedScenarioRunNeverSharesARowsColour) {
  auto run = [](const char* name, double lr, int color) {
    SavedRun r;
    r.config.name = name;
    r.config.training.lr = lr;
    r.color = color;
    return r;
  };
  // Rows in colours 0 and 3; the scenario's runs in 0 (shown), 3 (taken by a row) and 5.
  const SavePlan plan =
      plan_save({run("a", 0.1, 0), run("b", 0.2, 3)}, 0,
                {run("a", 0.1, 0), run("c", 0.3, 3), run("d", 0.4, 5), run("e", 0.5, -1)});
  ASSERT_EQ(plan.runs.size(), 5u);
  std::vector<int> colors;
  for (const SavedRun& r : plan.runs) colors.push_back(r.color);
  // c: 3 is b's, so the smallest free (1); d keeps 5; e has none: the smallest free then (2).
  EXPECT_EQ(colors, (std::vector<int>{0, 3, 1, 5, 2}));
  const std::string text = scenario_text("s", "", plan.runs);
  const Experiment e = parse_scenario_text(text, "s.json");
  EXPECT_EQ(e.colors, colors);
}

// The baseline the user chose ("Use as baseline") is the file's baseline: it is saved first, and
// the run named "baseline" under another name, so the file's rule (the run named "baseline",
// else the first) picks the same run as the table.
TEST_F(SaveRuns, TheChosenBaselineIsTheFilesBaseline) {
  ASSERT_TRUE(view->run_all());
  idle();
  const std::vector<int> ids = view->run_ids();
  ASSERT_EQ(ids.size(), 4u);
  view->set_baseline_run(ids[2]);  // "skip"
  const QString saved = dir.filePath("chosen.json");
  ASSERT_EQ(window->save_scenario(saved), "");
  const LoadedScenario loaded = load_scenario_file(saved);
  ASSERT_TRUE(loaded.problems.isEmpty()) << loaded.problems.join("\n").toStdString();
  QStringList names;
  for (const RunConfig& r : loaded.runs) names << QString::fromStdString(r.name);
  EXPECT_EQ(names, QStringList({"skip", "baseline (earlier)", "fast", "slow"}));
  MainWindow again;
  again.training_view()->set_live(false);
  ASSERT_TRUE(again.open_scenario(saved).isEmpty());
  ASSERT_TRUE(again.training_view()->run_all());
  ASSERT_TRUE(wait_for([&] { return again.training_view()->idle(); }));
  const std::vector<Row> rows = table_rows(again.training_view());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(rows[0].baseline);
  EXPECT_EQ(rows[0].name, "skip");
}

// A run of the scenario that no row holds (an edit not run yet) is saved too, after the rows.
TEST_F(SaveRuns, AnEditNotRunYetIsSavedAfterTheRows) {
  EXPECT_FALSE(window->modified());
  ASSERT_TRUE(view->run_all());
  idle();
  // New rows are what Save would add: the document is modified (quitting asks, Ctrl+S writes).
  EXPECT_TRUE(window->modified());
  view->choose_run(3);
  lr_box(view)->setValue(0.33);  // live off: not run
  const QString saved = dir.filePath("pending.json");
  ASSERT_EQ(window->save_scenario(saved), "");
  const LoadedScenario loaded = load_scenario_file(saved);
  ASSERT_EQ(loaded.runs.size(), 5u);
  EXPECT_EQ(loaded.runs[4].name, "slow (2)");
  EXPECT_DOUBLE_EQ(loaded.runs[4].training.lr, 0.33);
  EXPECT_FALSE(window->modified());
  view->remove_run(view->run_ids().front());
  EXPECT_TRUE(window->modified());
}

}  // namespace
}  // namespace commlab::ui

namespace commlab::ui {
namespace {

// The scenario file's "forked_from" (core/scenario): provenance read back, a bad one refused with
// its JSON path, the fork point before the run's last iteration.
std::string problems_of(const std::string& runs) {
  try {
    parse_scenario_text(R"({"training": {"iterations": 20}, "runs": )" + runs + "}", "f.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(ForkedFrom, TheScenarioReaderKeepsAndChecksIt) {
  const Experiment e = parse_scenario_text(
      R"({"training": {"iterations": 20}, "runs": [{"name": "a"},
          {"name": "b", "forked_from": {"run": "a", "iteration": 5}}],
          "sweep": [{"path": "training.lr", "values": [0.1, 0.2]}]})",
      "f.json");
  ASSERT_EQ(e.forked_from.size(), 4u);  // one per run, sweeps expanded
  EXPECT_EQ(e.forked_from[0].iteration, 0);
  EXPECT_EQ(e.forked_from[2].run, "a");
  EXPECT_EQ(e.forked_from[3].iteration, 5);
  EXPECT_EQ(e.resolved["runs"][3]["forked_from"]["iteration"], 5);
  EXPECT_NE(problems_of(R"([{"name": "b", "forked_from": {"run": "a", "iteration": 0}}])")
                .find("f.json:runs[0].forked_from.iteration: expected an iteration >= 1, got 0"),
            std::string::npos);
  EXPECT_NE(problems_of(R"([{"name": "b", "forked_from": {"run": "a", "iteration": 20}}])")
                .find("runs[0].forked_from.iteration: a fork point must come before the run's "
                      "last iteration (20), got 20"),
            std::string::npos);
  EXPECT_NE(problems_of(R"([{"name": "b", "forked_from": {"iteration": 3}}])")
                .find("runs[0].forked_from: missing run"),
            std::string::npos);
  EXPECT_NE(problems_of(R"([{"name": "b", "forked_from": {"run": "a", "iteration": 3, "at": 1}}])")
                .find("runs[0].forked_from.at"),
            std::string::npos);
  EXPECT_NE(problems_of(R"([{"name": "b", "forked_from": "a"}])").find("runs[0].forked_from:"),
            std::string::npos);
}

// A run's "color": a palette index kept per run (sweep points share their run's), written back
// in the resolved scenario, a bad one refused with its JSON path.
TEST(RunColor, TheScenarioReaderKeepsAndChecksIt) {
  const Experiment e = parse_scenario_text(
      R"({"runs": [{"name": "a"}, {"name": "b", "color": 7}],
          "sweep": [{"path": "training.lr", "values": [0.1, 0.2]}]})",
      "f.json");
  EXPECT_EQ(e.colors, (std::vector<int>{-1, -1, 7, 7}));
  EXPECT_FALSE(e.resolved["runs"][0].contains("color"));
  EXPECT_EQ(e.resolved["runs"][3]["color"], 7);
  EXPECT_NE(problems_of(R"([{"name": "b", "color": -1}])")
                .find("f.json:runs[0].color: expected a run palette index from 0 to 1000000, "
                      "got -1"),
            std::string::npos);
  EXPECT_NE(problems_of(R"([{"name": "b", "color": "red"}])").find("runs[0].color:"),
            std::string::npos);
  EXPECT_NE(problems_of(R"([{"name": "b", "colour": 2}])").find("did you mean 'color'"),
            std::string::npos)
      << problems_of(R"([{"name": "b", "colour": 2}])");
}

}  // namespace
}  // namespace commlab::ui
