// The error values of the scenario-to-engine boundary (issue 34): the text users read, the exit
// status each code maps to, and the field the engine's refusals carry.
#include "scenario/config_problem.h"

#include <gtest/gtest.h>

#include "network/analytical.h"
#include "scenario/run/collective_reducer.h"
#include "scenario/scenario.h"
#include "topology/presets.h"

namespace commlab {
namespace {

TEST(ConfigProblem, TextIsFieldColonMessageOrTheMessageAlone) {
  const ConfigProblem named{ErrorCode::kBadInput, "training.ranks", "must be at least 1, got 0"};
  EXPECT_EQ(named.text(), "training.ranks: must be at least 1, got 0");
  const ConfigProblem bare{ErrorCode::kFailedRun, "", "out of disk"};
  EXPECT_EQ(bare.text(), "out of disk");
  EXPECT_EQ(problem_lines({named, bare}),
            (std::vector<std::string>{"training.ranks: must be at least 1, got 0", "out of disk"}));
}

TEST(ConfigProblem, CodesMapToTheCliExitStatus) {
  // docs/cli.md: 2 invalid input, 1 a failed run; an internal limit is not the user's input.
  EXPECT_EQ(exit_status(ErrorCode::kBadInput), 2);
  EXPECT_EQ(exit_status(ErrorCode::kFailedRun), 1);
  EXPECT_EQ(exit_status(ErrorCode::kInternal), 1);
}

TEST(ConfigProblem, ConfigErrorIsBadInputWithTheTextAsWhat) {
  const ConfigError e("techniques.codec", "trimming carries its own encoding");
  EXPECT_EQ(e.problem.code, ErrorCode::kBadInput);
  EXPECT_EQ(e.problem.field, "techniques.codec");
  EXPECT_STREQ(e.what(), "techniques.codec: trimming carries its own encoding");
  const std::invalid_argument& base = e;  // caught where bad input is caught today
  EXPECT_STREQ(base.what(), e.what());
}

TEST(ConfigProblem, AnExceptionStandsForTheProblemItCarriesOrItsKind) {
  const ConfigProblem own = problem_of(ConfigError("workload.trace", "no trace file"));
  EXPECT_EQ(own, (ConfigProblem{ErrorCode::kBadInput, "workload.trace", "no trace file"}));
  const ConfigProblem bad = problem_of(std::invalid_argument("unknown algorithm 'x'"));
  EXPECT_EQ(bad, (ConfigProblem{ErrorCode::kBadInput, "", "unknown algorithm 'x'"}));
  const ConfigProblem failed = problem_of(std::runtime_error("cannot write out.csv"));
  EXPECT_EQ(failed, (ConfigProblem{ErrorCode::kFailedRun, "", "cannot write out.csv"}));
}

TEST(ConfigProblem, CrossFieldChecksCarryTheFieldApartFromTheMessage) {
  RunConfig c;
  c.cluster.spec = "flat:4";
  c.training.ranks = 4;
  c.training.global_batch = 66;  // 66 % 4 != 0
  const ConfigProblems problems = check_run_config(c);
  ASSERT_EQ(problems.size(), 1u) << problems.front().text();
  EXPECT_EQ(problems[0].code, ErrorCode::kBadInput);
  EXPECT_EQ(problems[0].field, "training.global_batch");
  EXPECT_EQ(problems[0].message, "must be a multiple of training.ranks (4), got 66");
}

TEST(ConfigProblem, TheEngineRefusesWithTheField) {
  // The reducer repeats a check at run time (a RunConfig edited past the scenario checks).
  RunConfig c;
  c.cluster.spec = "flat:4";
  c.training.ranks = 4;
  c.techniques.trimming.enabled = true;
  c.techniques.codec = "commlab";
  AnalyticalBackend backend(cluster_from_spec("flat:4"));
  try {
    CollectiveReducer reducer(c, backend);
    ADD_FAILURE() << "trimming with a codec was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.problem.field, "techniques.codec");
    EXPECT_EQ(std::string(e.what()),
              "techniques.codec: trimming carries its own encoding; set codec to none when "
              "techniques.trimming.enabled is true");
  }
}

}  // namespace
}  // namespace commlab
