// The field table: defaults round trip, every row reads and writes its own RunConfig member, exact
// messages of the per-field checks, did-you-mean.
#include "scenario/schema.h"

#include <gtest/gtest.h>

#include <set>

#include "scenario/scenario.h"

namespace commlab {
namespace {

using nlohmann::json;

json without_name(json j) {
  j.erase("name");
  return j;
}

TEST(Schema, EmptyScenarioRunsWithEveryDefault) {
  Experiment exp = parse_scenario(json::object(), "dir/empty_ok.json");
  ASSERT_EQ(exp.runs.size(), 1u);
  EXPECT_EQ(exp.name, "empty_ok");  // no name: the file's stem
  EXPECT_EQ(exp.runs[0].name, "empty_ok");
  // RunConfig's defaults are the table's defaults (flat:8 follows from training.ranks 8).
  EXPECT_EQ(without_name(to_json(exp.runs[0])), default_config_json());
  EXPECT_EQ(without_name(to_json(RunConfig{})), default_config_json());
}

TEST(Schema, EveryDefaultPassesItsOwnCheck) {
  RunConfig defaults;
  for (const Field& f : scenario_fields()) {
    auto bad = check_field_value(f, f.get(defaults));
    EXPECT_FALSE(bad.has_value()) << f.path << ": " << bad.value_or("");
  }
}

TEST(Schema, PathsAreUniqueAndDescribed) {
  std::set<std::string> seen;
  for (const Field& f : scenario_fields()) {
    EXPECT_TRUE(seen.insert(f.path).second) << "duplicate " << f.path;
    EXPECT_FALSE(f.description.empty()) << f.path;
    EXPECT_EQ(f.description.back(), '.') << f.path << ": one sentence";
    EXPECT_EQ(find_field(f.path), &f);
  }
  EXPECT_EQ(find_field("techniques.skipreduce"), nullptr);  // a section, not a field
}

// A valid value different from the default, to catch a row bound to the wrong member.
json other_value(const Field& f, const json& def) {
  switch (f.type) {
    case FieldType::kInt: return def.get<double>() == f.min ? json(f.min + 1) : json(f.min);
    case FieldType::kNumber: return f.min + (f.max - f.min) / 3;
    case FieldType::kBool: return !def.get<bool>();
    case FieldType::kEnum: return def == f.choices.front() ? f.choices.back() : f.choices.front();
    case FieldType::kString: return def;  // free strings keep their (valid) default
    case FieldType::kIntList: return json::array({int(f.min) + 2, int(f.min) + 1});
    case FieldType::kNumberList: return json::array({f.max / 2, f.max / 4});
    case FieldType::kStringList: return json::array({"fc1", "fc2"});
  }
  return def;
}

TEST(Schema, EveryRowWritesTheMemberItReads) {
  for (const Field& f : scenario_fields()) {
    RunConfig c;
    json before = to_json(c);
    json v = other_value(f, f.get(c));
    ASSERT_FALSE(check_field_value(f, v).has_value()) << f.path << " " << v;
    f.set(c, v);
    EXPECT_EQ(f.get(c), v) << f.path;
    // Exactly this field changed: the JSON of the whole config differs only at its path.
    json after = to_json(c);
    after[field_pointer(f.path)] = before[field_pointer(f.path)];
    EXPECT_EQ(after, before) << f.path << " also changed another field";
  }
}

std::string check(const std::string& path, const json& v) {
  return check_field_value(*find_field(path), v).value_or("ok");
}

TEST(Schema, FieldMessagesAreExact) {
  EXPECT_EQ(check("training.ranks", -4), "expected a positive integer, got -4");
  EXPECT_EQ(check("training.ranks", 1000000000),
            "expected an integer in [1, 65536], got 1000000000");
  EXPECT_EQ(check("training.ranks", 8.0), "ok");  // JSON has one number type: 8.0 is 8
  EXPECT_EQ(check("training.ranks", 8.5), "expected an integer, got 8.5");
  EXPECT_EQ(check("training.ranks", "8"), "expected an integer, got \"8\"");
  EXPECT_EQ(check("training.eval_every", -1), "expected a non-negative integer, got -1");
  EXPECT_EQ(check("training.lr", 0), "expected a number in (0, 100], got 0");
  EXPECT_EQ(check("training.lr", "NaN"), "expected a number, got \"NaN\"");
  EXPECT_EQ(check("techniques.skipreduce.ratio", 1.5), "expected a number in [0, 1], got 1.5");
  EXPECT_EQ(check("techniques.skipreduce.policy", "smart"),
            "expected one of naive, random, selective, got \"smart\"");
  EXPECT_EQ(check("techniques.skipreduce.unbiased", 1), "expected true or false, got 1");
  EXPECT_EQ(check("workload.hidden", json::array({64, 0})),
            "item 1: expected a positive integer, got 0");
  EXPECT_EQ(check("workload.hidden", 64), "expected a list of integers, got 64");
  EXPECT_EQ(check("cluster.spec", std::string(5000, 'x')),
            "string too long (5000 characters, at most 1024)");
  EXPECT_EQ(check("techniques.codec", "netzip-paper"), "ok");
  EXPECT_EQ(check("techniques.codec", "none"), "ok");
  EXPECT_EQ(check("workload.dataset", "text:/tmp/a.txt"), "ok");
  EXPECT_EQ(check("packet.background", "incast:4"), "ok");
  EXPECT_EQ(check("packet.background", "incast:0"),
            "incast:K needs K in [1, 65536], got \"incast:0\"");
  EXPECT_EQ(check("workload.tensor_source", "sparse:0.5"), "ok");
  EXPECT_EQ(check("workload.tensor_source", "model:mlp"), "ok");
  EXPECT_EQ(check("workload.tensor_source", "model:nope"),
            "expected model:mlp or model:cnn, got 'model:nope'");
}

TEST(Schema, DidYouMeanFindsTyposOnly) {
  EXPECT_EQ(did_you_mean("polcy", {"skip", "ratio", "policy", "unbiased"}), "policy");
  EXPECT_EQ(did_you_mean("rnaks", {"ranks", "iterations"}), "ranks");
  EXPECT_EQ(did_you_mean("xyzzy", {"ranks", "iterations"}), "");
  EXPECT_EQ(did_you_mean(std::string(10000, 'a'), {"ranks"}), "");  // hostile: no quadratic work
}

}  // namespace
}  // namespace commlab
