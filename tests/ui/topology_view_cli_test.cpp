// The Topology page and `commlab-cli view topology` show the same numbers (issue 34, outcome 4):
// the page's current picture, converted by the same to_json, equals the CLI's document.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "topology_test_util.h"
#include "views/views_json.h"

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

}  // namespace
}  // namespace commlab::ui
