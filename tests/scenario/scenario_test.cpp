// Runs (merge patch), sweeps (grid), --set overrides, cluster/ranks resolution, the resolved
// scenario reloading to the same runs, hostile sizes, and packet.trim_bytes keeping the whole head
// (the default derives from the encoding; a value that cuts into the head is refused).
#include "scenario/scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "scenario/schema.h"

namespace commlab {
namespace {

using nlohmann::json;

std::vector<std::string> problems_of(const json& doc, const std::vector<std::string>& sets = {}) {
  try {
    parse_scenario(doc, "t.json", sets);
  } catch (const ScenarioError& e) {
    return e.lines();
  }
  return {};
}

TEST(Scenario, RunsMergePatchTheBase) {
  json doc = json::parse(R"({
    "name": "cmp", "training": {"iterations": 50, "lr": 0.1},
    "runs": [ {"name": "baseline"},
              {"name": "skip4", "set": {"techniques": {"skipreduce": {"skip": 4}}}},
              {"name": "default_lr", "set": {"training": {"lr": null}}} ]})");
  Experiment exp = parse_scenario(doc, "t.json");
  EXPECT_EQ(exp.name, "cmp");
  ASSERT_EQ(exp.runs.size(), 3u);
  EXPECT_EQ(exp.runs[0].name, "baseline");
  EXPECT_EQ(exp.runs[0].techniques.skipreduce.skip, 0);
  EXPECT_EQ(exp.runs[1].name, "skip4");
  EXPECT_EQ(exp.runs[1].techniques.skipreduce.skip, 4);
  EXPECT_EQ(exp.runs[1].training.iterations, 50);  // the base survives the patch
  EXPECT_EQ(exp.runs[1].training.lr, 0.1);
  EXPECT_EQ(exp.runs[2].training.lr, RunConfig{}.training.lr);  // null: back to the default
}

TEST(Scenario, SweepsFormAGridOverEveryRunLastEntryFastest) {
  json doc = json::parse(R"({
    "runs": [ {"name": "a"}, {"name": "b", "set": {"training": {"iterations": 7}}} ],
    "sweep": [ {"path": "techniques.skipreduce.skip", "values": [0, 2, 4]},
               {"path": "training.optimizer", "values": ["sgd", "adamw"]} ]})");
  Experiment exp = parse_scenario(doc, "t.json");
  // 2 runs x 3 skips x 2 optimizers.
  ASSERT_EQ(exp.runs.size(), 12u);
  EXPECT_EQ(exp.runs[0].name, "a/techniques.skipreduce.skip=0,training.optimizer=sgd");
  EXPECT_EQ(exp.runs[1].name, "a/techniques.skipreduce.skip=0,training.optimizer=adamw");
  EXPECT_EQ(exp.runs[2].name, "a/techniques.skipreduce.skip=2,training.optimizer=sgd");
  EXPECT_EQ(exp.runs[11].name, "b/techniques.skipreduce.skip=4,training.optimizer=adamw");
  for (size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(exp.runs[i].techniques.skipreduce.skip, int((i / 2) % 3) * 2) << i;
    EXPECT_EQ(exp.runs[i].training.optimizer, i % 2 ? OptimizerKind::kAdamW : OptimizerKind::kSgd)
        << i;
    EXPECT_EQ(exp.runs[i].training.iterations, i < 6 ? 300 : 7) << i;
  }
}

TEST(Scenario, SingleRunTakesTheScenarioNameAndSweepSuffix) {
  json doc = json::parse(R"({"name": "s", "sweep": [{"path": "training.lr", "values": [0.5]}]})");
  Experiment exp = parse_scenario(doc, "t.json");
  ASSERT_EQ(exp.runs.size(), 1u);
  EXPECT_EQ(exp.runs[0].name, "s/training.lr=0.5");
}

TEST(Scenario, SetOverridesWinOverRunsAndParseValues) {
  json doc = json::parse(R"({"runs": [{"name": "r", "set": {"training": {"iterations": 9}}}]})");
  Experiment exp = parse_scenario(
      doc, "t.json",
      {"training.iterations=3", "cluster.gpu=a100", "workload.hidden=[32,16]", "seed=42",
       "techniques.skipreduce.unbiased=true", "techniques.skipreduce.policy=\"naive\""});
  const RunConfig& c = exp.runs.at(0);
  EXPECT_EQ(c.training.iterations, 3);  // the command line wins over the run's set
  EXPECT_EQ(c.cluster.gpu, "a100");     // not JSON: taken as a string
  EXPECT_EQ(c.workload.hidden, (std::vector<int>{32, 16}));
  EXPECT_EQ(c.seed, 42u);
  EXPECT_TRUE(c.techniques.skipreduce.unbiased);
  EXPECT_EQ(c.techniques.skipreduce.policy, SkipPolicy::kNaive);
}

TEST(Scenario, SetProblemsAreReported) {
  EXPECT_EQ(problems_of(json::object(), {"training.rnaks=3", "training.lr=nan", "oops"}),
            (std::vector<std::string>{
                "t.json:training.rnaks: unknown field (did you mean 'training.ranks'?) in --set",
                "t.json:training.lr: expected a number, got \"nan\" (from --set)",
                "t.json:--set oops: expected PATH=VALUE (at most 4096 characters)"}));
}

TEST(Scenario, ClusterAndRanksResolveFromEachOther) {
  // Only a cluster: ranks = its GPUs. Only ranks: a flat cluster of that size. Both: must agree.
  auto only_spec = parse_scenario(json::parse(R"({"cluster": {"spec": "dgx-h100"}})"), "t.json");
  EXPECT_EQ(only_spec.runs[0].training.ranks, 8);
  auto flat = parse_scenario(json::parse(R"({"cluster": {"spec": "flat:16"}})"), "t.json");
  EXPECT_EQ(flat.runs[0].training.ranks, 16);
  auto only_ranks = parse_scenario(json::parse(R"({"training": {"ranks": 4}})"), "t.json");
  EXPECT_EQ(only_ranks.runs[0].cluster.spec, "flat:4");
  EXPECT_EQ(
      problems_of(json::parse(R"({"cluster": {"spec": "flat:16"}, "training": {"ranks": 8}})")),
      (std::vector<std::string>{"t.json:training.ranks: is 8 but cluster.spec 'flat:16' has "
                                "16 GPUs (omit one of them to take the other's)"}));
}

TEST(Scenario, ResolvedScenarioReloadsToTheSameRuns) {
  json doc = json::parse(R"({
    "name": "x", "description": "d", "cluster": {"spec": "flat:4"},
    "runs": [ {"name": "a"}, {"name": "b", "set": {"techniques": {"codec": "lz4"}}} ],
    "sweep": [ {"path": "training.lr", "values": [0.01, 0.02]} ]})");
  Experiment exp = parse_scenario(doc, "t.json", {"training.iterations=5"});
  Experiment again = parse_scenario(exp.resolved, "t.json");
  ASSERT_EQ(again.runs.size(), exp.runs.size());
  for (size_t i = 0; i < exp.runs.size(); ++i)
    EXPECT_EQ(to_json(again.runs[i]), to_json(exp.runs[i])) << i;
  EXPECT_EQ(again.resolved, exp.resolved);
  // The base has every field filled; a run's set holds only what differs from it.
  EXPECT_EQ(exp.resolved["training"]["iterations"], 5);
  EXPECT_EQ(exp.resolved["runs"][3]["set"],
            json::parse(R"({"techniques": {"codec": "lz4"}, "training": {"lr": 0.02}})"));
}

TEST(Scenario, ProblemsRepeatedAcrossRunsAreReportedOnce) {
  json doc = json::parse(R"({"collective": {"algorithm": "direct"},
    "techniques": {"skipreduce": {"skip": 2}},
    "sweep": [{"path": "training.lr", "values": [0.1, 0.2, 0.3]}]})");
  EXPECT_EQ(problems_of(doc),
            (std::vector<std::string>{"t.json:techniques.skipreduce.skip: SkipReduce needs "
                                      "collective.algorithm ring, tree or hd, got direct (run "
                                      "'t/training.lr=0.1')"}));
}

TEST(Scenario, HostileSizesAreRefusedQuickly) {
  auto start = std::chrono::steady_clock::now();
  // 16 sweep entries of 1,000 values each: 10^48 points; refused by counting, never expanded.
  json sweep = json::array();
  const char* paths[] = {"seed", "training.iterations", "training.eval_every", "training.warmup"};
  for (const char* p : paths) {
    json values = json::array();
    for (int i = 1; i <= 1000; ++i) values.push_back(i);
    sweep.push_back({{"path", p}, {"values", values}});
  }
  EXPECT_EQ(problems_of({{"sweep", sweep}}),
            (std::vector<std::string>{"t.json:sweep: more than 1000 runs in all (runs x grid)"}));
  // A file over 1 MiB is refused after reading at most 1 MiB + 1 byte.
  const std::string big = ::testing::TempDir() + "/big_scenario.json";
  {
    std::ofstream out(big);
    out << "{\"description\": \"" << std::string(2 << 20, 'x') << "\"}";
  }
  try {
    load_scenario(big);
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.lines(),
              (std::vector<std::string>{big + ": file too large (more than 1048576 bytes)"}));
  }
  // A million-GPU cluster is refused from its spec, before the graph is allocated.
  EXPECT_EQ(
      problems_of(json::parse(R"({"cluster": {"spec": "flat:1000000"}})")),
      (std::vector<std::string>{"t.json:cluster.spec: cluster has 1000000 GPUs, at most 65536"}));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

// Problems are values: the file, each problem's JSON path and code apart from the
// message; lines() alone makes "FILE:PATH: message". A JSON syntax error names its own place, so
// its error has no file of its own.
TEST(Scenario, ProblemsCarryTheFieldAndTheCode) {
  try {
    parse_scenario(json::parse(R"({"training": {"ranks": -3, "lr": "x"}})"), "t.json");
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.file, "t.json");
    ASSERT_EQ(e.problems.size(), 2u) << e.what();
    std::vector<std::string> fields;
    for (const ConfigProblem& p : e.problems) {
      EXPECT_EQ(p.code, ErrorCode::kBadInput);
      EXPECT_EQ(p.message.find("t.json"), std::string::npos) << p.message;  // not rewritten
      fields.push_back(p.field);
    }
    std::sort(fields.begin(), fields.end());
    EXPECT_EQ(fields, (std::vector<std::string>{"training.lr", "training.ranks"}));
    EXPECT_EQ(e.lines()[0], "t.json:" + e.problems[0].field + ": " + e.problems[0].message);
  }
  try {
    parse_scenario_text("{\"training\": }", "s.json");
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.file, "");
    ASSERT_EQ(e.problems.size(), 1u);
    EXPECT_EQ(e.problems[0].field, "");
    EXPECT_EQ(e.lines()[0].rfind("s.json:1:", 0), 0u) << e.lines()[0];
  }
}

TEST(Scenario, MissingFileIsOneLine) {
  try {
    load_scenario("/nonexistent/x.json");
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(
        e.lines(),
        (std::vector<std::string>{"/nonexistent/x.json: cannot open: No such file or directory"}));
  }
}

// packet.trim_bytes keeps the whole head.
RunConfig trimmed(const std::string& encoding, int bits, const std::string& wire, uint32_t mtu) {
  RunConfig c;
  c.cluster.backend = ClusterBackend::kPacket;
  c.packet.admission = Admission::kTrim;
  c.packet.mtu = mtu;
  c.collective.wire = *parse_enum<DType>(wire);
  c.techniques.trimming.enabled = true;
  c.techniques.trimming.mode = TrimMode::kQueue;
  c.techniques.trimming.encoding = *parse_enum<trim::TrimEncoding>(encoding);
  c.techniques.trimming.head_bits = bits;
  return c;
}

TEST(TrimBytes, DefaultKeepsTheHeaderAndTheWholeHead) {
  // 64 B packet header + trim header (32 + 4 per scale) + head_bits planes of the RHT block.
  // EDEN 1-bit FP32, MTU 4096: 36 + 128 + 4n <= 4096 gives n = 983 (block 1024, 128 B plane).
  EXPECT_EQ(head_trim_bytes(trimmed("eden", 1, "fp32", 4096)), 64u + 36u + 128u);
  EXPECT_EQ(effective_trim_bytes(trimmed("eden", 1, "fp32", 4096)), 228u);
  // EDEN 2-bit: 40 + 256 + 4n <= 4096: n = 950, two 128 B planes.
  EXPECT_EQ(head_trim_bytes(trimmed("eden", 2, "fp32", 4096)), 64u + 40u + 256u);
  // BF16 tails: 36 + 256 + 2n <= 4096: n = 1902 needs the 2048 block, a 256 B plane.
  EXPECT_EQ(head_trim_bytes(trimmed("eden", 1, "bf16", 4096)), 64u + 36u + 256u);
  // SQ has no RHT block: 40 + ceil(n/8) + 4n <= 4096: n = 983, a 123 B plane.
  EXPECT_EQ(head_trim_bytes(trimmed("sq", 1, "fp32", 4096)), 64u + 40u + 123u);
  // MTU 1500: 36 + 64 + 4n <= 1500: n = 350 (block 512, 64 B plane).
  EXPECT_EQ(head_trim_bytes(trimmed("eden", 1, "fp32", 1500)), 64u + 36u + 64u);
  // Without trimming the field keeps the packet backend's default.
  RunConfig plain;
  EXPECT_EQ(head_trim_bytes(plain), 0u);
  EXPECT_EQ(effective_trim_bytes(plain), kDefaultTrimBytes);
  // An explicit value is used as given.
  RunConfig c = trimmed("eden", 1, "fp32", 4096);
  c.packet.trim_bytes = 300;
  EXPECT_EQ(effective_trim_bytes(c), 300u);
}

TEST(TrimBytes, AValueThatCutsIntoTheHeadIsRefused) {
  RunConfig c = trimmed("eden", 1, "fp32", 4096);
  c.cluster.spec = "flat:8";
  c.packet.trim_bytes = 128;
  bool found = false;
  for (const ConfigProblem& p : check_run_config(c))
    if (p.field == "packet.trim_bytes") {
      found = true;
      EXPECT_EQ(p.code, ErrorCode::kBadInput);
      EXPECT_EQ(p.text(),
                "packet.trim_bytes: 128 B cuts into the 1-bit eden head: a full packet of 983 "
                "fp32 coordinates keeps its head in 228 B (64 B packet header + 36 B trim header "
                "+ 1 x 128 B head plane); set 0 (auto) or at least 228");
    }
  EXPECT_TRUE(found);
  for (uint32_t ok : {0u, 228u, 1000u}) {
    c.packet.trim_bytes = ok;
    for (const ConfigProblem& p : check_run_config(c))
      EXPECT_NE(p.field, "packet.trim_bytes") << ok << ": " << p.text();
  }
  // Bernoulli trimming on the analytical backend never uses trim_bytes: no complaint.
  c.packet.trim_bytes = 128;
  c.cluster.backend = ClusterBackend::kAnalytical;
  c.techniques.trimming.mode = TrimMode::kBernoulli;
  for (const ConfigProblem& p : check_run_config(c))
    EXPECT_NE(p.field, "packet.trim_bytes") << p.text();
}

}  // namespace
}  // namespace commlab
