// The pages' settings checked once (views/view_settings.h): every checked field refused by name
// with the words every door prints, and the pages' defaults accepted unchanged.
#include "views/view_settings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace commlab::views {
namespace {

struct Case {
  std::string field;    // the refusal's field
  std::string message;  // its whole message
  std::function<void()> change;
};

// Each case changes one field of the defaults `base`; `check` must refuse exactly that field.
template <class Settings>
void expect_refusals(Settings& s, StatusOr<Settings> (*check)(const Settings&),
                     const std::vector<Case>& cases) {
  const Settings base = s;
  for (const Case& c : cases) {
    s = base;
    c.change();
    const StatusOr<Settings> checked = check(s);
    ASSERT_FALSE(checked.ok()) << c.field;
    EXPECT_EQ(checked.status().code, ErrorCode::kBadInput) << c.field;
    EXPECT_EQ(checked.status().field, c.field);
    EXPECT_EQ(checked.status().message, c.message) << c.field;
  }
}

TEST(ViewSettings, TeachingRefusesEachFieldByName) {
  TeachingSettings s;
  expect_refusals<TeachingSettings>(
      s, check_teaching,
      {{"ranks", "expected 2 to 16 ranks, got 17", [&] { s.ranks = 17; }},
       {"ranks", "expected 2 to 16 ranks, got 1", [&] { s.ranks = 1; }},
       {"algorithm", "unknown algorithm 'bogus' (expected ring, tree, hd, hier, direct, nccl-tree)",
        [&] { s.algorithm = "bogus"; }},
       {"ranks_per_node", "expected 1 to 16, got 0", [&] { s.ranks_per_node = 0; }},
       {"skip", "expected 0 to 15, got -1", [&] { s.skip = -1; }},
       {"policy", "unknown skip policy 'bogus' (expected naive, random or selective)",
        [&] { s.policy = "bogus"; }},
       // 2^53 + 1: one past the scenarios' seed range.
       {"iteration", "expected 0 to 9007199254740992, got 9007199254740993",
        [&] { s.iteration = (uint64_t{1} << 53) + 1; }},
       {"seed", "expected 0 to 9007199254740992, got 9007199254740993",
        [&] { s.seed = (uint64_t{1} << 53) + 1; }},
       {"trim_rate", "expected 0 to 1, got 1.5", [&] { s.trim_rate = 1.5; }},
       {"trim_rate", "expected 0 to 1, got nan", [&] { s.trim_rate = std::nan(""); }},
       // Cross-field: the descriptor's skip limit on these ranks (ring: N-1 = 3 on 4 ranks).
       {"skip", "ring on 4 ranks skips at most 3 steps (N-1), got 4", [&] { s.skip = 4; }},
       {"skip", "SkipReduce runs on ring, tree or hd, not direct, got 1",
        [&] { s.algorithm = "direct", s.skip = 1; }},
       // Tree on 8 ranks: its depth floor(log2 8) = 3.
       {"skip", "tree on 8 ranks skips at most 3 reduce levels (its depth), got 4",
        [&] { s.algorithm = "tree", s.ranks = 8, s.skip = 4; }},
       {"ranks_per_node", "hier groups ranks into whole nodes: 5 ranks are not a multiple of 2",
        [&] { s.algorithm = "hier", s.ranks = 5; }}});
}

TEST(ViewSettings, TopologyRefusesEachFieldByName) {
  TopologySettings s;
  expect_refusals<TopologySettings>(
      s, check_topology,
      {{"algorithm", "unknown algorithm 'bogus' (expected ring, tree, hd, hier, direct, nccl-tree)",
        [&] { s.algorithm = "bogus"; }},
       {"message_bytes", "expected a byte size in [4B, 1T], got 3B", [&] { s.message_bytes = 3; }},
       {"step", "expected 1 to 1048576, got 0", [&] { s.step = 0; }},
       {"max_endpoints", "expected 1 to 1048576, got 0", [&] { s.max_endpoints = 0; }},
       {"max_servers", "expected 1 to 1048576, got 0", [&] { s.max_servers = 0; }},
       {"max_links", "expected 1 to 4294967296, got 0", [&] { s.max_links = 0; }},
       {"max_transfers", "expected 1 to 50000000, got 50000001",
        [&] { s.max_transfers = kMaxPlanTransfers + 1; }},
       {"max_flows", "expected 1 to 50000000, got 0", [&] { s.max_flows = 0; }},
       {"backend", "expected analytical or packet, got 'bogus'", [&] { s.backend = "bogus"; }},
       {"queue_packets", "expected 0 to 4096, got -1", [&] { s.queue_packets = -1; }}});
  // The scenarios' spelling of tail-drop is the same admission.
  s = TopologySettings{};
  s.admission = "droptail";
  EXPECT_TRUE(check_topology(s).ok());
  s.admission = "bogus";
  ASSERT_FALSE(check_topology(s).ok());
  EXPECT_EQ(check_topology(s).status().field, "admission");
}

TEST(ViewSettings, WorkloadRefusesEachFieldByName) {
  WorkloadSettings s;
  expect_refusals<WorkloadSettings>(
      s, check_workload,
      {{"dp", "expected 1 to 1024, got 0", [&] { s.dp = 0; }},
       {"tp", "expected 1 to 64, got 65", [&] { s.tp = 65; }},
       {"pp", "expected 1 to 64, got 0", [&] { s.pp = 0; }},
       {"micro_batch", "expected 1 to 64, got 0", [&] { s.micro_batch = 0; }},
       {"global_batch", "expected 1 to 65536, got 0", [&] { s.global_batch = 0; }},
       {"gbps", "expected 1 to 3200, got 0", [&] { s.gbps = 0; }},
       {"gpus_per_server", "expected 1 to 8, got 9", [&] { s.gpus_per_server = 9; }},
       {"dp_ratio", "expected 0.05 to 1, got 0.01", [&] { s.dp_ratio = 0.01; }},
       {"skip", "expected 0 to 63, got 64", [&] { s.skip = 64; }},
       {"max_ranks", "expected 1 to 32, got 0", [&] { s.max_ranks = 0; }},
       {"max_graph_nodes", "expected 1 to 67108864, got 0", [&] { s.max_graph_nodes = 0; }},
       {"trace_prefix", "choose a Chakra trace (PREFIX.0.et, PREFIX.1.et, ...)",
        [&] { s.source = WorkloadSettings::Source::kTrace; }}});
  s = WorkloadSettings{};
  s.model = "no-such-model";
  ASSERT_FALSE(check_workload(s).ok());
  EXPECT_EQ(check_workload(s).status().field, "model");
}

TEST(ViewSettings, ThroughputRefusesEachFieldByName) {
  ThroughputSettings s;
  expect_refusals<ThroughputSettings>(
      s, check_throughput,
      {{"ranks", "expected 2 to 256 ranks, got 1", [&] { s.ranks = 1; }},
       {"bw_gbps", "expected 0.1 to 2000, got 0", [&] { s.bw_gbps = 0; }},
       {"alpha_us", "expected 0 to 1000, got -1", [&] { s.alpha_us = -1; }},
       {"slice_bytes", "expected a byte size in [0B, 1T], got 2T",
        [&] { s.pipeline.slice_bytes = 2ull << 40; }},
       {"chunk_bytes", "expected a byte size in [0B, 1T], got 2T",
        [&] { s.pipeline.chunk_bytes = 2ull << 40; }},
       {"channels", "expected 0 to 64, got 65", [&] { s.channels = 65; }},
       {"min_bytes", "expected a byte size in [4B, 1T], got 0B", [&] { s.min_bytes = 0; }},
       {"max_bytes", "expected a byte size in [1M, 1T], got 1K",
        [&] { s.min_bytes = 1 << 20, s.max_bytes = 1 << 10; }},
       // Without --max-bytes the flat page draws up to 256 MiB.
       {"min_bytes", "expected a byte size in [4B, 256M], got 512M",
        [&] { s.min_bytes = 512u << 20; }},
       {"proto", "expected auto, simple, ll or ll128, got 'bogus'", [&] { s.proto = "bogus"; }}});
}

TEST(ViewSettings, ThePagesDefaultsAreAcceptedUnchanged) {
  // What each page shows when the app opens, and a request with every field set in range.
  EXPECT_EQ(check_teaching(TeachingSettings{}).value(), TeachingSettings{});
  EXPECT_EQ(check_topology(TopologySettings{}).value(), TopologySettings{});
  EXPECT_EQ(check_workload(WorkloadSettings{}).value(), WorkloadSettings{});
  // ThroughputSettings has no == (PipelineConfig has none): its fields are compared.
  auto same = [](const ThroughputSettings& a, const ThroughputSettings& b) {
    return a.cluster == b.cluster && a.ranks == b.ranks && a.bw_gbps == b.bw_gbps &&
           a.alpha_us == b.alpha_us && a.pipeline.slice_bytes == b.pipeline.slice_bytes &&
           a.pipeline.chunk_bytes == b.pipeline.chunk_bytes && a.proto == b.proto &&
           a.channels == b.channels && a.min_bytes == b.min_bytes && a.max_bytes == b.max_bytes;
  };
  EXPECT_TRUE(same(check_throughput(ThroughputSettings{}).value(), ThroughputSettings{}));
  TeachingSettings t;
  t.algorithm = "hier", t.ranks = 8, t.ranks_per_node = 4, t.trim_rate = 0.5;
  EXPECT_EQ(check_teaching(t).value(), t);
  t = TeachingSettings{};
  t.algorithm = "tree", t.ranks = 8, t.skip = 3, t.policy = "random", t.seed = 1ull << 53;
  EXPECT_EQ(check_teaching(t).value(), t);
  ThroughputSettings n;
  n.cluster = "flat:8", n.proto = "ll128", n.channels = 64, n.max_bytes = 1ull << 40;
  EXPECT_TRUE(same(check_throughput(n).value(), n));
}

// The checks are the engine's: compute_* refuses what they refuse, naming the same field.
TEST(ViewSettings, ComputeRefusesWhatTheCheckRefuses) {
  TeachingSettings s;
  s.trim_rate = 2;
  try {
    compute_teaching_trace(s);
    ADD_FAILURE() << "trim rate 2 was accepted";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status, check_teaching(s).status());
  }
}

}  // namespace
}  // namespace commlab::views
