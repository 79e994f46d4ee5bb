// What a collective's comm_size means (docs/workload.md "What comm_size means"):
// the bytes of this rank's input buffer, as ASTRA-sim's Ring.cc and its microbenchmark generators
// read it. ASTRA-sim-shaped traces (no commlab_* attributes, raw wire bytes from the public schema)
// replay on the alpha-beta formula of each collective under that reading; CommLab writes the
// same; CommLab -> Chakra -> CommLab keeps every collective's bytes; traces CommLab wrote before
// the convention was recorded keep their old all-gather reading.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "chakra_wire.h"
#include "network/analytical.h"
#include "topology/topology.h"
#include "workload/chakra_trace.h"
#include "workload/scheduler.h"

namespace commlab::workload {
namespace {

using namespace commlab::test::chakra_wire;
using ::testing::HasSubstr;

constexpr double kB = 50e9;        // bytes/s per rank (ASTRA-sim's 50 GB/s example links)
constexpr double kAlpha = 0.5e-6;  // s per ring step
constexpr int kRanks = 8;
constexpr uint64_t kSize = 1 << 20;  // comm_size: 1 MiB, as in ASTRA-sim's microbenchmarks

Graph parse(const std::vector<std::string>& files) {
  std::vector<std::string_view> views(files.begin(), files.end());
  return parse_chakra_trace(views, "", "t");
}

// One COMM_COLL_NODE per rank on the default communicator (every rank), as ASTRA-sim's
// examples/workload/microbenchmarks/generator_scripts write them.
std::vector<std::string> microbenchmark(CommType type, const std::vector<Msg>& metadata = {}) {
  std::vector<std::string> files;
  for (int r = 0; r < kRanks; ++r)
    files.push_back(trace_file({NodeMsg(0, "coll", kColl)
                                    .attr(attr_b("is_cpu_op", false))
                                    .attr(attr_i("comm_type", type))
                                    .attr(attr_i("comm_size", kSize))},
                               metadata));
  return files;
}

double replay(const Graph& g) {
  SchedulerOptions o;
  o.pipeline.slice_bytes = 0;  // bulk-synchronous ring steps: the textbook alpha-beta forms
  AnalyticalBackend backend(make_flat(g.rank_count(), kB, kAlpha));
  return schedule(g, backend, o).iteration_s;
}

TEST(ChakraCommSize, AllReduceIsTheWholeInput) {
  // Ring all-reduce of the input S on n ranks: T = 2(n-1)(alpha + S/(nB)).
  const double expected = 2.0 * (kRanks - 1) * (kAlpha + kSize / (kRanks * kB));
  EXPECT_NEAR(replay(parse(microbenchmark(kAllReduce))), expected, 1e-12);
}

TEST(ChakraCommSize, ReduceScatterIsTheWholeInput) {
  // Ring reduce-scatter of the input S: T = (n-1)(alpha + S/(nB)).
  const double expected = (kRanks - 1) * (kAlpha + kSize / (kRanks * kB));
  EXPECT_NEAR(replay(parse(microbenchmark(kReduceScatter))), expected, 1e-12);
}

TEST(ChakraCommSize, AllGatherIsThisRanksShard) {
  // Ring all-gather of n shards of S: T = (n-1)(alpha + S/B); the 8 x 1 MiB: 150.3 us.
  const Graph g = parse(microbenchmark(kAllGather));
  EXPECT_EQ(g.ranks[0].nodes[0].bytes, kRanks * kSize);  // the gathered output
  const double expected = (kRanks - 1) * (kAlpha + kSize / kB);
  EXPECT_NEAR(replay(g), expected, 1e-12);
  EXPECT_NEAR(expected, 150.3e-6, 0.1e-6);
}

TEST(ChakraCommSize, AllToAllIsTheWholeSendBuffer) {
  // One step: each rank sends S/n to each of the n-1 others over its one link of rate B, all
  // flows at once: T = alpha + (n-1) (S/n) / B.
  const double expected = kAlpha + (kRanks - 1) * (kSize / double(kRanks)) / kB;
  EXPECT_NEAR(replay(parse(microbenchmark(kAllToAll))), expected, 1e-12);
}

TEST(ChakraCommSize, OldCommLabTracesKeepTheGatheredAllGather) {
  // Written by CommLab before commlab_comm_size existed: commlab_graph_name in GlobalMetadata,
  // all-gather comm_size the gathered output. Replay: (n-1)(alpha + S/(nB)).
  const Graph old = parse(microbenchmark(kAllGather, {attr_s("commlab_graph_name", "old")}));
  EXPECT_EQ(old.ranks[0].nodes[0].bytes, kSize);
  EXPECT_NEAR(replay(old), (kRanks - 1) * (kAlpha + kSize / (kRanks * kB)), 1e-12);
  // With the convention recorded, the same node is a shard again.
  const Graph now = parse(microbenchmark(
      kAllGather, {attr_s("commlab_graph_name", "new"), attr_s("commlab_comm_size", "input")}));
  EXPECT_EQ(now.ranks[0].nodes[0].bytes, kRanks * kSize);
}

TEST(ChakraCommSize, BadConventionAndExactBytesAreClearErrors) {
  try {
    parse(microbenchmark(kAllGather, {attr_s("commlab_comm_size", "output")}));
    FAIL() << "an unknown convention was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("t.0.et: rank 0"));
    EXPECT_THAT(e.what(), HasSubstr("commlab_comm_size: expected string_val \"input\""));
  }
  // commlab_comm_bytes must round up to comm_size: 8 MiB + 1 over 8 ranks is a shard of 1 MiB + 1.
  std::vector<std::string> files;
  for (int r = 0; r < kRanks; ++r)
    files.push_back(trace_file({NodeMsg(0, "ag", kColl)
                                    .attr(attr_i("comm_type", kAllGather))
                                    .attr(attr_u("comm_size", kSize))
                                    .attr(attr_u("commlab_comm_bytes", kRanks * kSize + 1))}));
  try {
    parse(files);
    FAIL() << "a commlab_comm_bytes that does not match comm_size was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("t.0.et: rank 0, node 0: commlab_comm_bytes 8388609 does not "
                                    "match comm_size 1048576"));
  }
}

// Every collective on groups of 4, 3 and 2 ranks; bytes that divide the group and bytes that do
// not (an all-gather of 1,001 bytes on 4 ranks has no whole shard).
Graph every_collective() {
  Graph g;
  g.name = "collectives";
  g.groups = {{0, 1, 2, 3}, {3, 1, 2}, {0, 2}};
  g.ranks.resize(4);
  const CommOp ops[] = {CommOp::kAllReduce, CommOp::kReduceScatter, CommOp::kAllGather,
                        CommOp::kAllToAll, CommOp::kBroadcast};
  const uint64_t sizes[] = {1 << 20, 1001, 6};
  for (int r = 0; r < 4; ++r) {
    uint64_t id = 1;
    for (int grp = 0; grp < 3; ++grp) {
      const auto& m = g.groups[grp];
      if (std::find(m.begin(), m.end(), r) == m.end()) continue;
      for (CommOp op : ops)
        for (uint64_t bytes : sizes) {
          Node n;
          n.id = id++;
          n.kind = NodeKind::kCollective;
          n.op = op;
          n.bytes = bytes;
          n.group_or_peer = grp;
          n.comm = CommKind::kDp;
          const uint32_t prev = static_cast<uint32_t>(g.ranks[r].nodes.size());
          if (prev == 0)
            g.ranks[r].add(n);
          else
            g.ranks[r].add(n, {prev - 1});
        }
    }
  }
  return g;
}

TEST(ChakraCommSize, RoundTripKeepsEveryCollectivesBytes) {
  const Graph g = every_collective();
  check_graph(g);
  std::string groups;
  const std::vector<std::string> files = encode_chakra_trace(g, &groups);
  std::vector<std::string_view> views(files.begin(), files.end());
  const Graph back = parse_chakra_trace(views, groups, "rt");
  ASSERT_EQ(back.rank_count(), g.rank_count());
  for (int r = 0; r < g.rank_count(); ++r) {
    ASSERT_EQ(back.ranks[r].nodes.size(), g.ranks[r].nodes.size());
    for (size_t i = 0; i < g.ranks[r].nodes.size(); ++i) {
      const Node& a = g.ranks[r].nodes[i];
      const Node& b = back.ranks[r].nodes[i];
      EXPECT_EQ(a.op, b.op) << "rank " << r << " node " << a.id;
      EXPECT_EQ(a.bytes, b.bytes) << "rank " << r << " node " << a.id << " " << comm_op_name(a.op);
    }
  }
  // And it replays to the same time, to the last bit.
  EXPECT_EQ(replay(g), replay(back));
}

TEST(ChakraCommSize, TheWriterWritesTheShardAndTheConvention) {
  const Graph g = every_collective();
  const std::vector<std::string> files = encode_chakra_trace(g, nullptr);
  const auto msgs = messages(files[0]);
  auto attr = [](std::string_view msg, std::string_view name, Field* out) {
    for (const Field& f : fields(msg))
      if (f.number == 10) {
        const auto a = fields(f.bytes);
        if (a.size() > 1 && a[0].bytes == name) return *out = a[1], true;
      }
    return false;
  };
  // GlobalMetadata attr (field 2): commlab_comm_size = "input".
  bool convention = false;
  for (const Field& f : fields(msgs[0]))
    if (f.number == 2) convention |= fields(f.bytes)[1].bytes == "input";
  EXPECT_TRUE(convention);
  // Rank 0, group 0 (4 ranks): nodes 1..15 are op-major, sizes 1 MiB, 1001, 6. The all-gathers
  // (nodes 7, 8, 9) write comm_size = ceil(bytes / 4): 262144, 251 (+ exact 1001), 2 (+ exact 6);
  // every other collective writes its bytes.
  const uint64_t shard[] = {262144, 251, 2};
  for (int i = 0; i < 15; ++i) {
    Field size, exact;
    ASSERT_TRUE(attr(msgs[1 + i], "comm_size", &size)) << i;
    const bool all_gather = i / 3 == 2;
    const uint64_t bytes = std::vector<uint64_t>{1 << 20, 1001, 6}[i % 3];
    EXPECT_EQ(size.value, all_gather ? shard[i % 3] : bytes) << "node " << i + 1;
    EXPECT_EQ(attr(msgs[1 + i], "commlab_comm_bytes", &exact), all_gather && i % 3 != 0) << i;
    if (all_gather && i % 3 != 0) EXPECT_EQ(exact.value, bytes);
  }
}

}  // namespace
}  // namespace commlab::workload
