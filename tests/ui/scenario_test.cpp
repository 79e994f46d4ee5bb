// Scenario files in the GUI (File > Open / Save, Presets), the full scenario panel, and the run
// charts of the Training tab filling live.
#include "scenario/scenario.h"

#include <gtest/gtest.h>

#include <QAbstractBarSeries>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QXYSeries>
#include <cmath>
#include <fstream>

#include "cluster_editor.h"
#include "main_window.h"
#include "run_chart_pages.h"
#include "scenario/config_enums.h"
#include "scenario/schema.h"
#include "scenario_files.h"
#include "topology/presets.h"
#include "training_bridge.h"
#include "training_panel.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

QString temp_file(const QString& name) {
  return QString::fromStdString(::testing::TempDir()) + "/" + name;
}

int points(QChart* chart) {
  if (!chart || chart->series().isEmpty()) return 0;
  auto* xy = qobject_cast<QXYSeries*>(chart->series().front());
  return xy ? static_cast<int>(xy->count()) : 0;
}

TEST(Scenarios, EverySampleLoadsWithAllItsRuns) {
  app();
  MainWindow window;
  const QStringList files = preset_files();
  ASSERT_FALSE(files.isEmpty()) << "samples/ not found";
  for (const QString& f : files) {
    const QStringList problems = window.open_scenario(f);
    EXPECT_TRUE(problems.isEmpty()) << f.toStdString() << ": " << problems.join("\n").toStdString();
    const Experiment e = load_scenario(f.toStdString());
    ASSERT_EQ(window.training_view()->runs().size(), e.runs.size()) << f.toStdString();
    // The panel shows the first run exactly (nothing lost between file and controls).
    EXPECT_EQ(to_json(window.training_view()->panel()->config()), to_json(e.runs.front()))
        << f.toStdString();
  }
}

TEST(Scenarios, AFailedLoadReportsEveryProblemAndKeepsTheEdits) {
  app();
  MainWindow window;
  RunConfig edited = window.training_view()->panel()->config();
  edited.training.lr = 0.123;
  window.training_view()->panel()->set_config(edited);
  const QString bad = temp_file("bad_scenario.json");
  std::ofstream(bad.toStdString()) << R"({"training": {"ranks": -4, "lrr": 1}})";
  const QStringList problems = window.open_scenario(bad);
  ASSERT_GE(problems.size(), 2) << problems.join("\n").toStdString();
  for (const QString& p : problems) EXPECT_TRUE(p.startsWith(bad + ":")) << p.toStdString();
  EXPECT_TRUE(problems.join("\n").contains("training.ranks"));
  EXPECT_TRUE(problems.join("\n").contains("training.lrr"));
  EXPECT_DOUBLE_EQ(window.training_view()->panel()->config().training.lr, 0.123);
}

TEST(Scenarios, SaveThenOpenGivesTheSameRunsWithTheEditKept) {
  app();
  MainWindow window;
  ASSERT_TRUE(
      window.open_scenario(QString(COMMLAB_SOURCE_DIR) + "/samples/quickstart.json").isEmpty());
  TrainingView* view = window.training_view();
  view->choose_run(1);
  RunConfig c = view->panel()->config();
  c.training.lr = 0.07;
  view->panel()->set_config(c);
  view->choose_run(2);  // switching keeps run 1's edit
  const std::vector<RunConfig> before = view->runs();
  EXPECT_DOUBLE_EQ(before[1].training.lr, 0.07);
  const QString file = temp_file("saved_scenario.json");
  ASSERT_EQ(window.save_scenario(file), "");
  const Experiment again = load_scenario(file.toStdString());
  ASSERT_EQ(again.runs.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i)
    EXPECT_EQ(to_json(again.runs[i]), to_json(before[i])) << i;
  EXPECT_EQ(again.name, "quickstart");
}

// The quickstart's accuracy chart is the first one a lecture shows; evaluated every 50
// of 200 iterations it was 4 points joined by straight lines. Each run evaluates at least 10 times
// (iterations / eval_every >= 10; evaluating does not change the training: the CLI's final loss
// and accuracy of its baseline are the same at eval_every 50 and 10).
TEST(Scenarios, TheQuickstartAccuracyCurveHasPointsToRead) {
  app();
  MainWindow window;
  ASSERT_TRUE(
      window.open_scenario(QString(COMMLAB_SOURCE_DIR) + "/samples/quickstart.json").isEmpty());
  const std::vector<RunConfig> runs = window.training_view()->runs();
  ASSERT_EQ(runs.size(), 4u);
  for (const RunConfig& r : runs) {
    ASSERT_GT(r.training.eval_every, 0) << r.name;
    EXPECT_GE(r.training.iterations / r.training.eval_every, 10) << r.name;
  }
}

TEST(ScenarioPanel, EveryControlExplainsItselfInATooltip) {
  app();
  TrainingPanel panel;
  int controls = 0;
  for (QWidget* w : panel.findChildren<QWidget*>()) {
    if (!qobject_cast<QSpinBox*>(w) && !qobject_cast<QDoubleSpinBox*>(w) &&
        !qobject_cast<QComboBox*>(w) && !qobject_cast<QCheckBox*>(w) &&
        !qobject_cast<QLineEdit*>(w))
      continue;
    if (qobject_cast<QComboBox*>(w->parentWidget())) continue;  // an editable combo's line edit
    if (qobject_cast<QAbstractSpinBox*>(w->parentWidget())) continue;
    ++controls;
    EXPECT_FALSE(w->toolTip().isEmpty()) << w->metaObject()->className();
  }
  EXPECT_GE(controls, 30);
}

// The panel's combo boxes list the scenario's own spellings (config_enums.h for the typed
// enums, the field table's choices for the string enums), in the docs' order, so the GUI cannot
// offer a word validation refuses or miss one it accepts (the transport combo once lacked "roce",
// the wire combo listed bf16 before fp32).
template <class E>
QStringList enum_items() {
  QStringList out;
  for (const std::string& name : enum_names<E>()) out << QString::fromStdString(name);
  return out;
}

QStringList combo_items(const TrainingPanel& panel, const std::string& path) {
  auto* box = qobject_cast<QComboBox*>(panel.control(path));
  if (!box) return {"(no combo box for " + QString::fromStdString(path) + ")"};
  QStringList out;
  for (int i = 0; i < box->count(); ++i) out << box->itemText(i);
  return out;
}

TEST(ScenarioPanel, EveryEnumComboListsTheScenariosSpellings) {
  app();
  TrainingPanel panel;
  EXPECT_EQ(combo_items(panel, "techniques.skipreduce.policy"), enum_items<SkipPolicy>());
  EXPECT_EQ(combo_items(panel, "techniques.trimming.encoding"), enum_items<trim::TrimEncoding>());
  EXPECT_EQ(combo_items(panel, "techniques.trimming.mode"), enum_items<TrimMode>());
  EXPECT_EQ(combo_items(panel, "packet.transport"), enum_items<Transport>());
  EXPECT_EQ(combo_items(panel, "cluster.backend"), enum_items<ClusterBackend>());
  EXPECT_EQ(combo_items(panel, "workload.kind"), enum_items<WorkloadKind>());
  EXPECT_EQ(combo_items(panel, "training.optimizer"), enum_items<OptimizerKind>());
  EXPECT_EQ(combo_items(panel, "training.decay"), enum_items<DecayKind>());
  EXPECT_EQ(combo_items(panel, "training.sharding"), enum_items<ShardingMode>());
  // Every enum field with a combo box: exactly the field table's choices, in its order.
  int combos = 0;
  for (const Field& f : scenario_fields()) {
    if (f.type != FieldType::kEnum || !qobject_cast<QComboBox*>(panel.control(f.path))) continue;
    ++combos;
    QStringList choices;
    for (const std::string& c : f.choices) choices << QString::fromStdString(c);
    EXPECT_EQ(combo_items(panel, f.path), choices) << f.path;
  }
  EXPECT_GE(combos, 12);  // the nine above, algorithm, wire and model
  // A value chosen in each combo is what the configuration holds (the spelling parses back).
  auto* decay = qobject_cast<QComboBox*>(panel.control("training.decay"));
  decay->setCurrentText("cosine");
  EXPECT_EQ(panel.config().training.decay, DecayKind::kCosine);
  auto* transport = qobject_cast<QComboBox*>(panel.control("packet.transport"));
  transport->setCurrentText("roce");
  EXPECT_EQ(panel.config().packet.transport, Transport::kRoce);
  RunConfig adamw = panel.config();
  adamw.training.optimizer = OptimizerKind::kAdamW;
  panel.set_config(adamw);
  EXPECT_EQ(qobject_cast<QComboBox*>(panel.control("training.optimizer"))->currentText(), "adamw");
}

TEST(ScenarioPanel, CustomClusterWritesASpecThePresetsBuild) {
  app();
  CustomCluster c{"leafspine", 2, 4, "h100", 0, 2};
  const QString spec = custom_cluster_spec(c);
  EXPECT_EQ(spec, "leafspine:servers=2,gpus_per_server=4,gpu=h100,oversub=2");
  EXPECT_EQ(cluster_from_spec(spec.toStdString()).gpus().size(), 8u);
  CustomCluster back;
  ASSERT_TRUE(parse_custom_cluster(spec, &back));
  EXPECT_EQ(custom_cluster_spec(back), spec);
  // Parameters the controls do not own survive an edit.
  CustomCluster flat{"flat", 1, 8, "h100", 200, 1};
  EXPECT_EQ(custom_cluster_spec(flat, "flat:4,gbps=100,alpha_us=5"), "flat:8,gbps=200,alpha_us=5");
  EXPECT_FALSE(parse_custom_cluster("dgx-h100-pod:nodes=2", &back));
  // NVLink is editable: the spec carries nvlink=GB/s and the built GPU -> NVSwitch links run at it.
  CustomCluster nv{"node", 1, 4, "h100", 0, 1, 200};
  const QString nv_spec = custom_cluster_spec(nv);
  EXPECT_EQ(nv_spec, "node:gpus=4,gpu=h100,nvlink=200");
  ASSERT_TRUE(parse_custom_cluster(nv_spec, &back));
  EXPECT_DOUBLE_EQ(back.nvlink_GBps, 200);
  const Topology node = cluster_from_spec(nv_spec.toStdString());
  for (const Link& l : node.links())
    if (node.nodes()[l.from].kind == NodeKind::kGpu) EXPECT_DOUBLE_EQ(l.bandwidth_Bps, 200e9);

  // Ticking Custom in the panel rewrites cluster.spec and sets the ranks to its GPU count.
  TrainingPanel panel;
  panel.cluster_editor()->show_spec("leafspine:servers=2,gpus_per_server=2,gpu=a100,oversub=1");
  panel.cluster_editor()->findChild<QSpinBox*>()->setValue(3);  // nodes
  EXPECT_EQ(panel.config().cluster.spec,
            "leafspine:servers=3,gpus_per_server=2,gpu=a100,oversub=1");
  EXPECT_EQ(panel.config().training.ranks, 6);
  EXPECT_EQ(panel.config().cluster.gpu, "a100");
}

TEST(ScenarioPanel, ATypoIsMarkedInPlaceAndKept) {
  app();
  TrainingView view;
  auto* hidden = qobject_cast<QLineEdit*>(view.panel()->control("workload.hidden"));
  ASSERT_NE(hidden, nullptr);
  hidden->setText("64,abc");
  EXPECT_FALSE(view.run());
  EXPECT_TRUE(view.panel()->marked_fields().contains("workload.hidden"))
      << view.panel()->problems_text().toStdString();
  EXPECT_EQ(hidden->text(), "64,abc");
  // A catalog workload cannot be trimmed (time plane only): refused, the reason next to the
  // trimming control, the settings kept.
  hidden->setText("32");
  RunConfig c = view.panel()->config();
  c.workload.kind = WorkloadKind::kCatalog;
  c.techniques.trimming.enabled = true;
  view.panel()->set_config(c);
  view.run();
  EXPECT_TRUE(wait_for([&] {
    return view.panel()->marked_fields().contains("techniques.trimming.enabled");
  })) << view.panel()->problems_text().toStdString();
  EXPECT_EQ(view.panel()->config().workload.kind, WorkloadKind::kCatalog);
  EXPECT_TRUE(wait_for([&] { return view.idle(); }));
}

RunConfig technique_config() {
  RunConfig c;
  c.name = "all-three";
  c.cluster.spec = "flat:4";
  c.workload.dataset = "spiral";
  c.workload.hidden = {32};
  c.training.ranks = 4;
  c.training.iterations = 6;
  c.training.global_batch = 64;
  c.training.eval_every = 3;
  c.training.eval_rows = 100;
  c.collective.wire = DType::kFp32;
  c.techniques.skipreduce.skip = 1;
  c.techniques.skipreduce.min_elements = 0;
  c.techniques.trimming.enabled = true;
  c.techniques.trimming.rate = 0.3;
  return c;
}

TEST(TrainingCharts, SkipReduceAndTrimmingChartsFillDuringARun) {
  app();
  TrainingView view;
  view.show();
  view.panel()->set_config(technique_config());
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  ASSERT_EQ(view.samples().size(), 6u);
  RunChartPages* pages = view.charts();
  EXPECT_EQ(points(pages->chart(RunChart::kLossIteration)), 6);
  EXPECT_EQ(points(pages->chart(RunChart::kSkipReduce)), 6);
  EXPECT_EQ(points(pages->chart(RunChart::kTrimmed)), 6);
  EXPECT_GT(points(pages->chart(RunChart::kNmse)), 0);
  EXPECT_EQ(points(pages->chart(RunChart::kEffectiveBits)), 6);
  // Codec: one bar per bucket of the MLP (two layers), one set for the run.
  QChart* codec = pages->chart(RunChart::kCodec);
  ASSERT_NE(codec, nullptr);
  auto* bars = qobject_cast<QBarSeries*>(codec->series().front());
  ASSERT_NE(bars, nullptr);
  ASSERT_EQ(bars->count(), 1);
  EXPECT_EQ(bars->barSets().front()->count(), static_cast<int>(view.samples()[0].buckets.size()));
  // Byte-plane entropy: one run drawn, so one bar set per bucket, one bar per byte of the FP32
  // wire (4), each an entropy in [0, 8] bits per byte, equal to the last sample's values.
  QChart* planes = pages->chart(RunChart::kPlaneEntropy);
  ASSERT_NE(planes, nullptr);
  auto* plane_bars = qobject_cast<QBarSeries*>(planes->series().front());
  ASSERT_NE(plane_bars, nullptr);
  const Sample& last = view.samples().back();
  ASSERT_EQ(plane_bars->count(), static_cast<int>(last.buckets.size()));
  for (int b = 0; b < plane_bars->count(); ++b) {
    QBarSet* set = plane_bars->barSets()[b];
    ASSERT_EQ(set->count(), 4);
    for (int p = 0; p < 4; ++p) EXPECT_DOUBLE_EQ(set->at(p), last.buckets[b].plane_entropy[p]);
  }
  // Visible page switch draws that page's charts.
  ASSERT_TRUE(pages->select_page("trimming"));
  EXPECT_EQ(view.summaries().size(), 1u);
}

TEST(TrainingCharts, PauseHoldsAndResetClearsTheView) {
  app();
  TrainingView view;
  RunConfig c = technique_config();
  c.training.iterations = 100000;
  view.panel()->set_config(c);
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.bridge()->completed() >= 2; }));
  view.pause_or_resume();
  EXPECT_TRUE(view.bridge()->paused());
  QTest::qWait(200);
  const int held = view.bridge()->completed();
  QTest::qWait(300);
  EXPECT_EQ(view.bridge()->completed(), held);
  view.reset();
  EXPECT_TRUE(view.samples().empty());
  EXPECT_EQ(view.drawn_points(), 0);
  EXPECT_TRUE(wait_for([&] { return view.idle(); }));
}

TEST(TrainingCharts, ACatalogWorkloadRunsOnTheTimePlane) {
  // GPT-3 175B on 64 GPUs (tp 4 x dp 16): every iteration costs the same time split, no loss.
  app();
  TrainingView view;
  RunConfig c;
  c.cluster.spec = "flat:64";
  c.training.ranks = 64;
  c.training.iterations = 3;
  c.training.global_batch = 128;
  c.workload.kind = WorkloadKind::kCatalog;
  c.workload.catalog = "gpt3-175b";
  c.workload.tp = 4;
  view.panel()->set_config(c);
  ASSERT_EQ(view.panel()->config().workload.tp, 4);
  ASSERT_TRUE(view.run());
  ASSERT_TRUE(wait_for([&] { return view.idle(); }));
  ASSERT_EQ(view.samples().size(), 3u) << view.panel()->problems_text().toStdString();
  const Sample& first = view.samples().front();
  EXPECT_TRUE(std::isnan(first.train_loss));
  EXPECT_GT(first.compute_time_s, 0);
  EXPECT_GT(first.comm_time_s, 0);
  // Simulated time is cumulative: 3 identical iterations end at 3 x the first one's time.
  EXPECT_NEAR(view.samples().back().sim_time_s, 3 * first.sim_time_s, 1e-9 * first.sim_time_s);
  // The time split chart draws it: one stacked category, compute bar = compute time in ms.
  QChart* split = view.charts()->chart(RunChart::kTimeSplit);
  ASSERT_NE(split, nullptr);
  auto* bars = qobject_cast<QAbstractBarSeries*>(split->series().front());
  ASSERT_NE(bars, nullptr);
  EXPECT_NEAR(bars->barSets()[0]->at(0), first.compute_time_s * 1e3, 1e-6);
}

}  // namespace
}  // namespace commlab::ui
