// Flags validated as scenario fields (scenario/flag_config.h): the same limits and the
// same messages as a scenario, naming the flag; and SkipReduce's limit per algorithm, which the
// scenarios and `collective --skip` share.
#include "scenario/flag_config.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include "collective/collective_settings.h"
#include "scenario/scenario.h"

namespace commlab {
namespace {

RunConfig flat_base() {
  RunConfig base;
  base.cluster.spec.clear();  // flat:<training.ranks>, as `train` builds it
  return base;
}

// The one-line message of run_config_from_flags, or "" when it accepts.
std::string refusal(const std::vector<FlagSetting>& flags) {
  try {
    run_config_from_flags(flags, flat_base());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The scenario's message for the same field and value, without "FILE:PATH: ".
std::string scenario_message(const std::string& path, const nlohmann::json& value) {
  nlohmann::json doc = nlohmann::json::object();
  doc[nlohmann::json::json_pointer("/" + std::string(path).replace(path.find('.'), 1, "/"))] =
      value;
  try {
    parse_scenario(doc, "s.json");
  } catch (const ScenarioError& e) {
    const std::string prefix = "s.json:" + path + ": ";
    EXPECT_EQ(e.problems.size(), 1u) << e.what();
    EXPECT_EQ(e.lines()[0].rfind(prefix, 0), 0u) << e.lines()[0];
    return e.lines()[0].substr(prefix.size());
  }
  return "";
}

TEST(FlagConfig, AFlagIsRefusedExactlyAsTheScenarioFieldItSets) {
  struct Case {
    const char* flag;
    const char* path;
    nlohmann::json value;
  };
  const Case cases[] = {{"--momentum", "training.momentum", 5.0},
                        {"--lr", "training.lr", 0.0},
                        {"--lr", "training.lr", 1000.0},
                        {"--batch", "training.global_batch", 0},
                        {"--iterations", "training.iterations", 100000000},
                        {"--ranks", "training.ranks", 100000},
                        {"--weight-decay", "training.weight_decay", -1.0},
                        {"--mfu", "cluster.mfu", 0.0},
                        {"--gpu", "cluster.gpu", "v100"},
                        {"--optimizer", "training.optimizer", "lion"},
                        {"--hidden", "workload.hidden", nlohmann::json::array({0})},
                        {"--max-train", "workload.max_train", -5}};
  for (const Case& c : cases) {
    // A number flag holds a double; the user typed "5", as a scenario would hold 5.
    const bool whole =
        c.value.is_number_float() && c.value.get<double>() == int(c.value.get<double>());
    const std::string expected =
        scenario_message(c.path, whole ? nlohmann::json(int(c.value.get<double>())) : c.value);
    ASSERT_FALSE(expected.empty()) << c.path << " accepted " << c.value;
    EXPECT_EQ(refusal({{c.flag, c.path, c.value}}), std::string(c.flag) + ": " + expected);
  }
  EXPECT_EQ(refusal({{"--momentum", "training.momentum", 5.0}}),
            "--momentum: expected a number in [0, 1], got 5");
}

TEST(FlagConfig, CrossFieldChecksNameTheFlagsNotTheFieldPaths) {
  EXPECT_EQ(refusal({{"--ranks", "training.ranks", 3}, {"--batch", "training.global_batch", 64}}),
            "--batch: must be a multiple of --ranks (3), got 64");
  // The scenario's memory limits: 2,000,000 rows of the default 256-wide hidden layer (spiral
  // points are only 2 wide: the default width must be counted, or it is missed).
  EXPECT_EQ(refusal({{"--data", "workload.dataset", "spiral"},
                     {"--hidden", "workload.hidden", nlohmann::json::array()},
                     {"--ranks", "training.ranks", 1},
                     {"--batch", "training.global_batch", 2000000}}),
            "--batch: batches of 2000000 rows of up to 256 values are more than 134217728 floats");
  EXPECT_EQ(refusal({{"--ranks", "training.ranks", 256},
                     {"--batch", "training.global_batch", 256},
                     {"--hidden", "workload.hidden", nlohmann::json::array({4096, 4096})}}),
            "--hidden: the model has 20037642 parameters per replica; times 256 ranks that is "
            "more than 134217728 floats");
  EXPECT_EQ(
      refusal({{"--ranks", "training.ranks", 300}, {"--batch", "training.global_batch", 300}}),
      "--ranks: training runs (workload.kind train) support at most 256 ranks, got 300");
  // Several problems: one line, all of them.
  EXPECT_EQ(refusal({{"--lr", "training.lr", -1.0}, {"--momentum", "training.momentum", 2.0}}),
            "--lr: expected a number in (0, 100], got -1; --momentum: expected a number in [0, "
            "1], got 2");
  // Accepted settings come back as the run.
  const RunConfig ok = run_config_from_flags(
      {{"--ranks", "training.ranks", 4}, {"--momentum", "training.momentum", 0.5}}, flat_base());
  EXPECT_EQ(ok.training.ranks, 4);
  EXPECT_EQ(ok.training.momentum, 0.5);
  EXPECT_EQ(ok.cluster.spec, "flat:4");
}

TEST(FlagConfig, FlagsWithoutAFieldHaveTheirOwnRowsInTheSameStyle) {
  EXPECT_NO_THROW(check_flags({{"--threads", "threads", 0}, {"--threads", "threads", 256}}));
  try {
    check_flags({{"--threads", "threads", 100000}, {"--link-gbps", "link_gbps", 0.0}});
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--threads: expected an integer in [0, 256], got 100000; --link-gbps: expected "
                 "a number in (0, 1000000], got 0");
  }
  EXPECT_THROW(check_flags({{"--x", "no.such.field", 1}}), std::logic_error);
}

TEST(SkipLimit, EachAlgorithmRefusesWhatItsPlanWouldClamp) {
  // "" when the skip is within the limit, else the problem's message (field "skip").
  const auto problem = [](const char* algorithm, int ranks, long long skip) {
    const std::optional<Status> bad = skip_problem(algorithm, ranks, skip);
    if (bad) EXPECT_EQ(bad->field, "skip");
    return bad ? bad->message : std::string();
  };
  EXPECT_EQ(problem("ring", 8, 7), "");
  EXPECT_EQ(problem("ring", 8, 8), "ring on 8 ranks skips at most 7 steps (N-1), got 8");
  EXPECT_EQ(problem("tree", 8, 3), "");
  EXPECT_EQ(problem("tree", 8, 4),
            "tree on 8 ranks skips at most 3 reduce levels (its depth), got 4");
  // hd on 6 ranks folds into 4: two halving rounds.
  EXPECT_EQ(problem("hd", 6, 2), "");
  EXPECT_EQ(problem("hd", 6, 3), "hd on 6 ranks skips at most 2 halving rounds (log2 N), got 3");
  EXPECT_EQ(problem("direct", 8, 3), "");  // refused by build_plan's own message
  EXPECT_EQ(problem("ring", 8, -1), "expected a non-negative integer, got -1");
}

TEST(SkipLimit, ScenariosRefuseASkipTheAlgorithmWouldClamp) {
  auto problems = [](const std::string& text) {
    try {
      parse_scenario_text(text, "s.json");
    } catch (const ScenarioError& e) {
      return e.lines();
    }
    return std::vector<std::string>{};
  };
  // Must not pass and run with 3 skipped levels, reported as 5.
  EXPECT_EQ(problems(R"({"collective": {"algorithm": "tree"},
                         "techniques": {"skipreduce": {"skip": 5}}})"),
            std::vector<std::string>{"s.json:techniques.skipreduce.skip: tree on 8 ranks skips at "
                                     "most 3 reduce levels (its depth), got 5"});
  EXPECT_EQ(problems(R"({"techniques": {"skipreduce": {"ratio": 1}}})"),
            std::vector<std::string>{"s.json:techniques.skipreduce.ratio: ratio 1 gives skip 8: "
                                     "ring on 8 ranks skips at most 7 steps (N-1), got 8"});
  EXPECT_EQ(problems(R"({"techniques": {"skipreduce": {"skip": 7}}})"), std::vector<std::string>{});
  // A catalog model skips steps of its DP ring: 16 ranks at tp 4 are a ring of 4 (the run would
  // fail only when it started).
  EXPECT_EQ(problems(R"({"workload": {"kind": "catalog", "tp": 4}, "training": {"ranks": 16},
                         "techniques": {"skipreduce": {"skip": 4}}})"),
            std::vector<std::string>{"s.json:techniques.skipreduce.skip: ring on 4 ranks skips at "
                                     "most 3 steps (N-1), got 4"});
}

}  // namespace
}  // namespace commlab
