// The error values of the scenario-to-engine boundary: the text users read, the exit
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
  EXPECT_EQ(e.status.code, ErrorCode::kBadInput);
  EXPECT_EQ(e.status.field, "techniques.codec");
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
  // invalid_argument is a logic_error too: only the other logic errors are internal.
  const ConfigProblem internal = problem_of(std::logic_error("execute_plan: buffer too short"));
  EXPECT_EQ(internal, (ConfigProblem{ErrorCode::kInternal, "", "execute_plan: buffer too short"}));
}

TEST(ConfigProblem, AnEngineBugIsInternalNotBadInput) {
  // A flow graph is built by the engine, never read from the user: a malformed one is a bug, so
  // the CLI exits 1 (exit_status(kInternal)), not 2 ("fix your input").
  FlowGraph g;
  g.flows.push_back({0, 1, 4096, 1});
  g.needs_begin = {0, 0};
  g.after_sent = {-1};  // settle_s is missing: one entry per flow expected
  try {
    check_flow_graph(g);
    ADD_FAILURE() << "a flow graph without settle_s was timed";
  } catch (const std::exception& e) {
    EXPECT_EQ(problem_of(e).code, ErrorCode::kInternal) << e.what();
    EXPECT_EQ(exit_status(problem_of(e).code), 1);
  }
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
    EXPECT_EQ(e.status.field, "techniques.codec");
    EXPECT_EQ(std::string(e.what()),
              "techniques.codec: trimming carries its own encoding; set codec to none when "
              "techniques.trimming.enabled is true");
  }
}

}  // namespace
}  // namespace commlab
