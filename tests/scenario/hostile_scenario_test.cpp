// Hostile scenarios too large to commit (tests/data/bad_scenarios holds the small ones): each is
// refused with its exact "FILE:JSON.PATH: message" before anything large is allocated, quickly.
#include <gtest/gtest.h>

#include <chrono>

#include "scenario/scenario.h"
#include "scenario/schema.h"

namespace commlab {
namespace {

std::vector<std::string> problems(const std::string& text,
                                  const std::vector<std::string>& sets = {}) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> got;
  try {
    parse_scenario_text(text, "hostile.json", sets);
  } catch (const ScenarioError& e) {
    got = e.lines();
  }
  // Refusing must not cost more than reading: ten seconds is generous even under ASan on a loaded
  // machine.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
  return got;
}

using Lines = std::vector<std::string>;

TEST(HostileScenario, HundredThousandNestedArraysStopAtTheDepthLimit) {
  // The 33rd '[' (offset 32, column 33) is one level deeper than kMaxNestingDepth = 32; the
  // recursive JSON parser never sees the document.
  const std::string text = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(problems(text),
            Lines{"hostile.json:1:33: nesting deeper than 32 levels (100000 deep)"});
  const std::string in_field = "{\"training\": " + std::string(100000, '[');
  // The object is level 1, so the 32nd '[' (offset 13 + 31, column 45) is level 33.
  EXPECT_EQ(problems(in_field),
            Lines{"hostile.json:1:45: nesting deeper than 32 levels (100001 deep)"});
}

TEST(HostileScenario, FileOverOneMebibyteIsRefusedUnparsed) {
  const std::string text = "{\"name\": \"" + std::string(kMaxScenarioBytes, 'x') + "\"}";
  EXPECT_EQ(problems(text),
            Lines{"hostile.json: file too large (" + std::to_string(kMaxScenarioBytes + 12) +
                  " bytes, at most " + std::to_string(kMaxScenarioBytes) + ")"});
}

TEST(HostileScenario, BillionRanksThroughSet) {
  EXPECT_EQ(problems("{}", {"training.ranks=1000000000"}),
            Lines{"hostile.json:training.ranks: expected an integer in [1, 65536], got 1000000000 "
                  "(from --set)"});
}

TEST(HostileScenario, NaNAndInfinityThroughSetAreStringsNotNumbers) {
  // --set VALUE is JSON when it parses; NaN and Infinity are not JSON, so they arrive as strings.
  Lines got = problems("{}", {"training.lr=NaN", "training.momentum=-Infinity"});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NE(got[0].find("hostile.json:training.lr: expected"), std::string::npos) << got[0];
  EXPECT_NE(got[1].find("hostile.json:training.momentum: expected"), std::string::npos) << got[1];
}

TEST(HostileScenario, HugeHiddenLayersAreRefusedBeforeTheModelIsBuilt) {
  // 784*65536 + 64 * 65537*65536 + 65537*10 parameters: terabytes if make_model ran.
  std::string hidden = "[65536";
  for (int i = 0; i < 63; ++i) hidden += ",65536";
  Lines got =
      problems("{\"training\": {\"ranks\": 2}, \"workload\": {\"hidden\": " + hidden + "]}}");
  // 128 batch rows per rank x 65536 x 2 ranks = 16.8M floats: only the model is too large.
  ASSERT_EQ(got.size(), 1u) << ::testing::PrintToString(got);
  EXPECT_EQ(got[0].rfind("hostile.json:workload.hidden: the model has ", 0), 0u) << got[0];
  EXPECT_NE(got[0].find("times 2 ranks that is more than 134217728 floats"), std::string::npos)
      << got[0];
}

TEST(HostileScenario, HugeBatchAndTrainingSetAreRefused) {
  // 10^7 rows of 784 pixels = 7.8e9 floats > 2^27.
  EXPECT_EQ(problems("{\"training\": {\"ranks\": 1, \"global_batch\": 10000000}}"),
            Lines{"hostile.json:training.global_batch: batches of 10000000 rows of up to 784 "
                  "values are more than 134217728 floats"});
  EXPECT_EQ(problems("{\"training\": {\"ranks\": 1}, \"workload\": {\"dataset\": \"spiral\", "
                     "\"max_train\": 100000000}}"),
            Lines{"hostile.json:workload.max_train: 100000000 rows of 2 values are more than "
                  "134217728 floats"});
}

TEST(HostileScenario, TransformerWidthIsBounded) {
  Lines got = problems(
      "{\"training\": {\"ranks\": 1}, \"workload\": {\"model\": \"transformer\", \"dataset\": "
      "\"text:/dev/null\", \"hidden\": [65536]}}");
  bool found = false;
  for (const auto& l : got) found |= l.rfind("hostile.json:workload.hidden: the model has", 0) == 0;
  EXPECT_TRUE(found) << ::testing::PrintToString(got);
}

TEST(HostileScenario, MillionElementListIsOneProblem) {
  // ~600 KB of JSON (under the file limit): the list is refused by its length, one line.
  std::string list = "[1";
  for (int i = 0; i < 299999; ++i) list += ",1";
  Lines got = problems("{\"workload\": {\"hidden\": " + list + "]}}");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rfind("hostile.json:workload.hidden: ", 0), 0u) << got[0];
}

}  // namespace
}  // namespace commlab
