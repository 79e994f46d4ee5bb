// The scenario's enums (scenario/config_enums.h): every spelling the field table allows parses into
// its enum and is written back unchanged, so scenario.json stays byte-identical.
#include "scenario/config_enums.h"

#include <gtest/gtest.h>

#include <set>

#include "scenario/schema.h"

namespace commlab {
namespace {

using nlohmann::json;

// Each spelling names one value and each value has one spelling: parse(name(v)) == v and
// name(parse(s)) == s for every row, and the table has no repeated word or value.
template <class E>
void expect_bijective_table() {
  std::set<std::string> names;
  std::set<E> values;
  for (const EnumSpelling<E>& row : enum_spellings<E>()) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_TRUE(values.insert(row.value).second) << row.name;
    EXPECT_EQ(parse_enum<E>(row.name), row.value) << row.name;
    EXPECT_EQ(enum_name(row.value), row.name);
  }
  EXPECT_FALSE(names.empty());
  EXPECT_EQ(parse_enum<E>("no-such-value"), std::nullopt);
  EXPECT_EQ(parse_enum<E>(""), std::nullopt);
}

TEST(ConfigEnums, EveryTableIsABijection) {
  expect_bijective_table<ExecutionMode>();
  expect_bijective_table<WorkloadKind>();
  expect_bijective_table<ClusterBackend>();
  expect_bijective_table<Admission>();
  expect_bijective_table<Transport>();
  expect_bijective_table<ShardingMode>();
  expect_bijective_table<OptimizerKind>();
  expect_bijective_table<DecayKind>();
  expect_bijective_table<SkipPolicy>();
  expect_bijective_table<trim::TrimEncoding>();
  expect_bijective_table<TrimMode>();
  expect_bijective_table<WorkloadEngine>();
  expect_bijective_table<DType>();
  expect_bijective_table<CodecPlacement>();
}

// The training words are train's own names: the trainer gets the value the scenario parsed.
TEST(ConfigEnums, TrainingWordsAreTrainValues) {
  for (const EnumSpelling<ShardingMode>& row : enum_spellings<ShardingMode>())
    EXPECT_EQ(parse_sharding_mode(row.name), row.value) << row.name;
  for (const EnumSpelling<OptimizerKind>& row : enum_spellings<OptimizerKind>())
    EXPECT_EQ(parse_optimizer(row.name), row.value) << row.name;
  for (const EnumSpelling<DecayKind>& row : enum_spellings<DecayKind>())
    EXPECT_EQ(parse_decay(row.name), row.value) << row.name;
}

// SkipReduce's policy words are collective's own names for the same values.
TEST(ConfigEnums, SkipPolicyWordsAreCollectiveValues) {
  for (const EnumSpelling<SkipPolicy>& row : enum_spellings<SkipPolicy>())
    EXPECT_EQ(parse_skip_policy(row.name), row.value) << row.name;
}

// The trimming encoding words are the trim codec's own names (what its packets' headers carry).
TEST(ConfigEnums, TrimEncodingWordsAreTrimValues) {
  for (const EnumSpelling<trim::TrimEncoding>& row : enum_spellings<trim::TrimEncoding>()) {
    EXPECT_EQ(trim::parse_encoding(row.name), row.value) << row.name;
    EXPECT_EQ(trim::encoding_name(row.value), row.name);
  }
}

// The alias is resolved once, here: the scenario's "droptail" is network's tail-drop admission,
// and every other admission and transport word is network's own name for the same value.
TEST(ConfigEnums, PacketWordsAreNetworkValues) {
  EXPECT_EQ(parse_enum<Admission>("droptail"), Admission::kTailDrop);
  EXPECT_EQ(parse_enum<Admission>("tail-drop"), std::nullopt);  // not a scenario word
  for (Admission a : {Admission::kEcn, Admission::kTrim})
    EXPECT_EQ(enum_name(a), admission_name(a));
  for (const EnumSpelling<Transport>& row : enum_spellings<Transport>())
    EXPECT_EQ(parse_transport(row.name), row.value) << row.name;
}

// The boundary: for every enum row of the field table and every choice, apply_json parses the
// word into RunConfig and to_json writes the same word back (what results/NAME/scenario.json
// holds), and a default RunConfig writes a word the row allows.
TEST(ConfigEnums, EveryChoiceRoundTripsThroughRunConfig) {
  int enum_rows = 0;
  for (const Field& f : scenario_fields()) {
    if (f.type != FieldType::kEnum) continue;
    ++enum_rows;
    ASSERT_FALSE(f.choices.empty()) << f.path;
    const json defaults = to_json(RunConfig{});
    const json& default_word = defaults[field_pointer(f.path)];
    EXPECT_NE(std::find(f.choices.begin(), f.choices.end(), default_word.get<std::string>()),
              f.choices.end())
        << f.path << " default " << default_word;
    for (const std::string& choice : f.choices) {
      json doc = json::object();
      doc[field_pointer(f.path)] = choice;
      RunConfig c;
      apply_json(doc, c);
      EXPECT_EQ(to_json(c)[field_pointer(f.path)], choice) << f.path;
    }
  }
  EXPECT_GE(enum_rows, 3);
}

TEST(ConfigEnums, FieldChoicesAreTheEnumSpellings) {
  EXPECT_EQ(find_field("execution")->choices, enum_names<ExecutionMode>());
  EXPECT_EQ(find_field("workload.kind")->choices, enum_names<WorkloadKind>());
  EXPECT_EQ(find_field("cluster.backend")->choices, enum_names<ClusterBackend>());
  EXPECT_EQ(find_field("packet.admission")->choices, enum_names<Admission>());
  EXPECT_EQ(find_field("packet.transport")->choices, enum_names<Transport>());
  EXPECT_EQ(find_field("training.sharding")->choices, enum_names<ShardingMode>());
  EXPECT_EQ(find_field("training.optimizer")->choices, enum_names<OptimizerKind>());
  EXPECT_EQ(find_field("training.decay")->choices, enum_names<DecayKind>());
  EXPECT_EQ(find_field("techniques.skipreduce.policy")->choices, enum_names<SkipPolicy>());
  EXPECT_EQ(find_field("techniques.trimming.encoding")->choices, enum_names<trim::TrimEncoding>());
  EXPECT_EQ(find_field("techniques.trimming.mode")->choices, enum_names<TrimMode>());
  EXPECT_EQ(find_field("workload.engine")->choices, enum_names<WorkloadEngine>());
  EXPECT_EQ(find_field("workload.grad_dtype")->choices, enum_names<DType>());
  EXPECT_EQ(find_field("collective.wire")->choices, enum_names<DType>());
  EXPECT_EQ(find_field("techniques.codec_placement")->choices, enum_names<CodecPlacement>());
  // fp16 is a DType of the codecs but no wire format a scenario may name.
  EXPECT_EQ(enum_names<DType>(), (std::vector<std::string>{"fp32", "bf16"}));
  // The documented order, which docs/scenario.md and the GUI's combo boxes show.
  EXPECT_EQ(enum_names<WorkloadKind>(), (std::vector<std::string>{"train", "catalog", "trace"}));
}

// An unknown word is refused before it reaches the enum: the message is "expected one of " and
// the table's spellings joined by ", " (the same words in the same order), then the bad word.
void expect_unknown_word_message(const std::string& path, const std::string& word) {
  const Field* field = find_field(path);
  ASSERT_NE(field, nullptr) << path;
  std::string list;
  for (const std::string& choice : field->choices) list += (list.empty() ? "" : ", ") + choice;
  const std::optional<std::string> problem = check_field_value(*field, json(word));
  ASSERT_TRUE(problem.has_value()) << path;
  EXPECT_EQ(*problem, "expected one of " + list + ", got \"" + word + "\"") << path;
}

TEST(ConfigEnums, UnknownWordNamesTheAcceptedSpellings) {
  expect_unknown_word_message("training.sharding", "iid");
  expect_unknown_word_message("training.optimizer", "lion");
  expect_unknown_word_message("training.decay", "linear");
  expect_unknown_word_message("techniques.skipreduce.policy", "greedy");
  expect_unknown_word_message("techniques.trimming.encoding", "qsgd");
  expect_unknown_word_message("techniques.trimming.mode", "always");
  // Pinned: the words and order docs/scenario.md lists (a near miss is not accepted).
  EXPECT_EQ(*check_field_value(*find_field("training.sharding"), json("noniid")),
            "expected one of random, shard, non-iid, got \"noniid\"");
}

TEST(ConfigEnums, ScenarioWordsBecomeEnumValues) {
  RunConfig c;
  apply_json(json::parse(R"({"execution": "mpi", "workload": {"kind": "trace"},
                             "cluster": {"backend": "packet"}})"),
             c);
  EXPECT_EQ(c.execution, ExecutionMode::kMpi);
  EXPECT_EQ(c.workload.kind, WorkloadKind::kTrace);
  EXPECT_EQ(c.cluster.backend, ClusterBackend::kPacket);
  // The dtype and placement words are the codecs' and the time plane's values, parsed once here.
  apply_json(json::parse(R"({"collective": {"wire": "fp32"}, "techniques": {"codec_placement":
                             "cpu"}, "workload": {"engine": "sum", "grad_dtype": "fp32"}})"),
             c);
  EXPECT_EQ(c.collective.wire, DType::kFp32);
  EXPECT_EQ(c.techniques.codec_placement, CodecPlacement::kCpu);
  EXPECT_EQ(c.workload.engine, WorkloadEngine::kSum);
  EXPECT_EQ(c.workload.grad_dtype, DType::kFp32);
  EXPECT_EQ(dtype_size(c.workload.grad_dtype), 4u);
}

}  // namespace
}  // namespace commlab
