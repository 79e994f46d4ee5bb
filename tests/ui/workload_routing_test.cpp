// The Workload page's routing line against `commlab-cli workload --json` on the same
// leaf-spine: the ECMP penalty and the busiest link's load are the CLI's, because the page's
// replay and the CLI's run the same scheduler on the same backend under both routing modes.
#include <gtest/gtest.h>

#include <QComboBox>
#include <cmath>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "ui_test_util.h"
#include "views/workload_model.h"
#include "workload_view.h"

namespace commlab::ui {
namespace {

// 128 GPUs, one per server (as netzip-512): 4 leaves of 32 server ports at radix 64. TP 4 runs
// four DP rings of 32 at once, whose cross-leaf flows per-flow ECMP hashes onto the spines, where
// they collide: DP takes about twice as long as under ideal spraying (docs/workload.md).
WorkloadSettings four_leaf_settings() {
  WorkloadSettings s;
  s.model = "llama3-8b";
  s.dp = 32;
  s.tp = 4;
  s.pp = 1;
  s.global_batch = 32;
  s.gpus_per_server = 1;
  s.gbps = 100;
  return s;
}

nlohmann::json cli_workload(const WorkloadSettings& s, const std::string& routing) {
  // The page's cluster as a spec string, and the page's compute model (ComputeModel's default
  // GPU, a100, at MFU 0.4).
  const std::string spec = views::workload_cluster(s, s.dp * s.tp * s.pp).spec();
  const auto cli = commlab::testing::run_cli(
      "workload --catalog " + s.model + " --cluster " + spec + " --dp " + std::to_string(s.dp) +
      " --tp " + std::to_string(s.tp) + " --pp " + std::to_string(s.pp) + " --global-batch " +
      std::to_string(s.global_batch) + " --gpu a100 --routing " + routing + " --json");
  EXPECT_EQ(cli.code, 0) << cli.err;
  return nlohmann::json::parse(cli.out);
}

TEST(WorkloadRouting, PenaltyEqualsTheCliJson) {
  test::app();
  WorkloadView view;
  WorkloadSettings s = four_leaf_settings();
  view.set_settings(s);
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && view.picture(); }, 60000));
  ASSERT_TRUE(view.error_text().isEmpty()) << view.error_text().toStdString();
  const nlohmann::json cli = cli_workload(s, "ecmp");
  ASSERT_TRUE(cli["ecmp_choices"].get<bool>()) << cli.dump(2);
  const RoutingComparison& r = view.picture()->routing;
  ASSERT_TRUE(r.ecmp_choices);
  // ecmp_penalty_dp = DP(ecmp) / DP(ideal), both replays the CLI's.
  const double penalty = cli["routing_comparison"]["ecmp_penalty_dp"].get<double>();
  ASSERT_GT(penalty, 1.5);  // the collisions cost something here (1.99x measured)
  EXPECT_NEAR(r.ecmp_penalty_dp, penalty, 1e-12 * penalty);
  EXPECT_NEAR(r.dp_s, cli["baseline"]["dp_s"].get<double>(), 1e-12);
  EXPECT_NEAR(r.other_dp_s, cli["routing_comparison"]["baseline"]["dp_s"].get<double>(), 1e-12);
  EXPECT_EQ(r.load.tier, cli["link_load"]["tier"].get<std::string>());
  EXPECT_NEAR(r.load.ratio(), cli["link_load"]["busiest_over_mean"].get<double>(), 1e-12);
  EXPECT_TRUE(
      view.routing_text().contains("ECMP penalty " + QString::number(penalty, 'f', 2) + "x"))
      << view.routing_text().toStdString();

  // Ideal chosen on the page: the line leads with ideal, and the penalty is the same ratio.
  auto* routing = view.findChild<QComboBox*>("routing");
  ASSERT_NE(routing, nullptr);
  routing->setCurrentIndex(routing->findData("ideal"));
  ASSERT_TRUE(test::wait_for(
      [&] { return view.idle() && view.picture()->settings.routing == RoutingMode::kIdeal; },
      60000));
  EXPECT_TRUE(view.routing_text().startsWith("Routing ideal")) << view.routing_text().toStdString();
  EXPECT_NEAR(view.picture()->routing.ecmp_penalty_dp, penalty, 1e-12 * penalty);
  const nlohmann::json ideal = cli_workload(s, "ideal");
  EXPECT_NEAR(view.picture()->routing.dp_s, ideal["baseline"]["dp_s"].get<double>(), 1e-12);
}

// 8 servers under one leaf: no flow has a choice of paths, the page says the modes agree.
TEST(WorkloadRouting, OneLeafSaysTheModesAgree) {
  test::app();
  WorkloadView view;
  WorkloadSettings s = four_leaf_settings();
  s.dp = 2;
  view.set_settings(s);
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && view.picture(); }, 60000));
  EXPECT_FALSE(view.picture()->routing.ecmp_choices);
  EXPECT_EQ(view.picture()->routing.ecmp_penalty_dp, 0.0);
  EXPECT_TRUE(view.routing_text().contains("ECMP and ideal routing agree"))
      << view.routing_text().toStdString();
}

}  // namespace
}  // namespace commlab::ui
