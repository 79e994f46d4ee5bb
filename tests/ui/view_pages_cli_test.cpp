// The pages and `commlab-cli view PAGE` show the same numbers: a page's
// current picture, converted by the same to_json, equals the CLI's document.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "busbw_view.h"
#include "support/cli_runner.h"
#include "teaching_view.h"
#include "topology_test_util.h"
#include "views/views_json.h"
#include "workload_view.h"

namespace commlab::ui {
namespace {

TEST(GuiVsCli, TheTopologyPageDrawsWhatViewTopologyPrints) {
  const auto view = test::shown_topology_view(900, 600);
  ASSERT_NE(view, nullptr) << "no first picture";
  // The page as it opens is `view topology` without flags.
  const auto opened = commlab::testing::run_cli("view topology");
  ASSERT_EQ(opened.code, 0) << opened.err;
  EXPECT_EQ(views::to_json(*view->picture()), nlohmann::json::parse(opened.out));

  TopologySettings s;
  s.algorithm = "tree";
  s.message_bytes = 16 << 20;  // not one of the page's sizes: set_settings adds it
  s.step = 2;
  view->set_settings(s);
  ASSERT_TRUE(test::wait_for([&] { return view->idle() && view->picture()->settings == s; }));
  EXPECT_TRUE(view->error_text().isEmpty()) << view->error_text().toStdString();
  EXPECT_EQ(view->settings(), s);
  const auto cli = commlab::testing::run_cli("view topology --algorithm tree --bytes 16M --step 2");
  ASSERT_EQ(cli.code, 0) << cli.err;
  const nlohmann::json page = views::to_json(*view->picture());
  EXPECT_EQ(page, nlohmann::json::parse(cli.out));
  EXPECT_EQ(page["step"], 2);
}

TEST(GuiVsCli, TheThroughputPageDrawsWhatViewThroughputPrints) {
  test::app();
  BusbwView view;
  view.resize(900, 600);
  view.show();
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && view.series_count() > 0; }));
  const auto flat = commlab::testing::run_cli("view throughput");
  ASSERT_EQ(flat.code, 0) << flat.err;
  EXPECT_EQ(views::to_json(view.settings(), view.series()), nlohmann::json::parse(flat.out));
  // NCCL mode on one 8 x H100 node (the chooser's first cluster), 1 KiB to 1 GiB.
  ASSERT_TRUE(view.choose_cluster(1));
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && !view.settings().cluster.empty(); }));
  const auto nccl = commlab::testing::run_cli("view throughput --cluster dgx-h100-pod:nodes=1");
  ASSERT_EQ(nccl.code, 0) << nccl.err;
  const nlohmann::json page = views::to_json(view.settings(), view.series());
  EXPECT_EQ(page, nlohmann::json::parse(nccl.out));
  EXPECT_EQ(page["series"][0]["algorithm"], "NCCL");
}

TEST(GuiVsCli, TheTeachingPageDrawsWhatViewTeachingPrints) {
  test::app();
  TeachingView view;
  view.show();
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && view.trace(); }));
  const auto opened = commlab::testing::run_cli("view teaching");
  ASSERT_EQ(opened.code, 0) << opened.err;
  EXPECT_EQ(views::to_json(*view.trace()), nlohmann::json::parse(opened.out));
  TeachingSettings s;
  s.ranks = 5;
  s.skip = 1;
  s.trim_rate = 0.25;
  view.set_settings(s);
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && view.trace()->settings == s; }));
  const auto cli = commlab::testing::run_cli("view teaching --ranks 5 --skip 1 --trim-rate 0.25");
  ASSERT_EQ(cli.code, 0) << cli.err;
  EXPECT_EQ(views::to_json(*view.trace()), nlohmann::json::parse(cli.out));
}

TEST(GuiVsCli, TheWorkloadPageDrawsWhatViewWorkloadPrints) {
  test::app();
  WorkloadView view;
  view.resize(1000, 600);
  view.show();
  WorkloadSettings s;
  s.model = "gpt-7b";
  s.dp = 1;
  s.pp = 2;
  s.global_batch = 4;
  s.max_ranks = 2;
  view.set_settings(s);
  ASSERT_TRUE(test::wait_for(
      [&] { return view.idle() && view.picture() && view.picture()->settings == s; }));
  const auto cli = commlab::testing::run_cli(
      "view workload --model gpt-7b --dp 1 --pp 2 --global-batch 4 --max-ranks 2");
  ASSERT_EQ(cli.code, 0) << cli.err;
  EXPECT_EQ(views::to_json(*view.picture()), nlohmann::json::parse(cli.out));
}

}  // namespace
}  // namespace commlab::ui
