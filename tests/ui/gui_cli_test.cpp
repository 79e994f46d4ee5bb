// The GUI and commlab-cli give the same numbers for the same scenario: the golden tiny
// scenario through the Training tab's bridge (Run all) against `commlab-cli run`'s summary.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "main_window.h"
#include "support/cli_runner.h"
#include "training_view.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

TEST(GuiVsCli, TheTinyScenarioGivesExactlyTheCliSummary) {
  test::app();
  const std::string scenario = std::string(COMMLAB_SOURCE_DIR) + "/tests/data/golden/tiny.json";
  const std::string out = ::testing::TempDir() + "/gui_vs_cli";
  std::filesystem::remove_all(out);
  const auto cli = commlab::testing::run_cli("run " + scenario + " --out " + out + " --quiet");
  ASSERT_EQ(cli.code, 0) << cli.err;
  nlohmann::json summary;
  std::ifstream(out + "/summary.json") >> summary;
  const auto& cli_runs = summary.at("runs");

  MainWindow window;
  ASSERT_TRUE(window.open_scenario(QString::fromStdString(scenario)).isEmpty());
  TrainingView* view = window.training_view();
  ASSERT_TRUE(view->run_all());
  ASSERT_TRUE(test::wait_for([&] { return view->idle(); }, 120000));
  ASSERT_EQ(view->summaries().size(), cli_runs.size());
  // Every Run all result is kept, the last one too (a later Run never takes it away).
  EXPECT_EQ(view->pinned_count(), static_cast<int>(cli_runs.size()));
  for (size_t i = 0; i < cli_runs.size(); ++i) {
    const RunSummary& gui = view->summaries()[i];
    const auto& c = cli_runs[i];
    SCOPED_TRACE(gui.name);
    EXPECT_EQ(gui.name, c.at("name").get<std::string>());
    EXPECT_EQ(gui.iterations, c.at("iterations").get<int>());
    // Exact: same engine, same seed, no randomness of the GUI's own (JSON keeps 17 digits).
    EXPECT_EQ(gui.final_train_loss, c.at("final_train_loss").get<double>());
    EXPECT_EQ(gui.final_test_accuracy, c.at("final_test_accuracy").get<double>());
    EXPECT_EQ(gui.bytes_on_wire, c.at("bytes_on_wire").get<uint64_t>());
    EXPECT_EQ(gui.sim_time_s, c.at("sim_time_s").get<double>());
    EXPECT_EQ(gui.trimmed_packets, c.at("trimmed_packets").get<uint64_t>());
    EXPECT_EQ(gui.skipped_steps, c.at("skipped_steps").get<uint64_t>());
  }
}

}  // namespace
}  // namespace commlab::ui
