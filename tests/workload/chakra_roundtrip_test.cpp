// Chakra export: a hand-built multi-rank graph written and read back is field-for-field the same
// graph; the standard fields ASTRA-sim replays are written; the file-system errors (missing rank
// file, a gap, a directory, a FIFO) are the documented one-liners.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "chakra_wire.h"
#include "network/analytical.h"
#include "test_dir.h"
#include "topology/builders.h"
#include "workload/chakra_trace.h"
#include "workload/scheduler.h"

namespace commlab::workload {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using test::fresh_test_dir;

Node make(uint64_t id, NodeKind kind) {
  Node n;
  n.id = id;
  n.kind = kind;
  return n;
}

// Three ranks, every node kind, two groups plus an all-ranks group, both dependency kinds,
// durations that are not whole microseconds, roofline nodes, CommKinds, streams and tags.
Graph sample_graph() {
  Graph g;
  g.name = "sample";
  g.groups = {{0, 1, 2}, {2, 0}, {1}};
  g.ranks.resize(3);
  for (int r = 0; r < 3; ++r) {
    RankGraph& rg = g.ranks[r];
    Node fwd = make(100 + r, NodeKind::kCompute);
    fwd.name = g.intern("fwd");
    fwd.duration_s = 1.234567891e-5 * (r + 1);
    const uint32_t a = rg.add(fwd);
    Node roof = make(7, NodeKind::kCompute);
    roof.name = g.intern("roofline");
    roof.flops = 3.5e12;
    roof.mem_bytes = 1.25e9;
    const uint32_t b = rg.add(roof, {a});
    Node ar = make(50, NodeKind::kCollective);
    ar.name = g.intern("tp all-reduce");
    ar.op = CommOp::kAllReduce;
    ar.comm = CommKind::kTp;
    ar.bytes = 123456789;
    ar.group_or_peer = 0;
    const uint32_t c = rg.add(ar, {b}, {a});
    uint32_t last = c;
    if (r != 1) {  // ranks 0 and 2: group 1 (ring order 2, 0)
      Node rs = make(51, NodeKind::kCollective);
      rs.op = CommOp::kReduceScatter;
      rs.comm = CommKind::kDp;
      rs.stream = 2;
      rs.bytes = 1 << 20;
      rs.group_or_peer = 1;
      rs.tag = 3;
      last = rg.add(rs, {}, {c});
    } else {
      Node bc = make(52, NodeKind::kCollective);
      bc.op = CommOp::kBroadcast;
      bc.group_or_peer = 2;
      bc.bytes = 8;
      last = rg.add(bc, {c});
    }
    Node a2a = make(53, NodeKind::kCollective);
    a2a.op = CommOp::kAllToAll;
    a2a.comm = CommKind::kEp;
    a2a.bytes = 4096;
    a2a.duration_s = 2e-6;  // not used by the scheduler for communication, still kept
    const uint32_t e = rg.add(a2a, {last});
    Node ag = make(54, NodeKind::kCollective);
    ag.op = CommOp::kAllGather;
    ag.bytes = 77;
    rg.add(ag, {e});
    // Pipeline: rank r sends to r + 1 with tag r; r + 1 receives.
    if (r < 2) {
      Node s = make(60, NodeKind::kSend);
      s.comm = CommKind::kPp;
      s.group_or_peer = r + 1;
      s.tag = r;
      s.bytes = 999;
      s.stream = 1;
      rg.add(s, {e}, {b});
    }
    if (r > 0) {
      Node v = make(61, NodeKind::kRecv);
      v.comm = CommKind::kPp;
      v.group_or_peer = r - 1;
      v.tag = r - 1;
      v.bytes = 999;
      v.stream = 4;
      rg.add(v);
    }
  }
  return g;
}

void expect_same(const Graph& a, const Graph& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.groups, b.groups);
  ASSERT_EQ(a.rank_count(), b.rank_count());
  for (int r = 0; r < a.rank_count(); ++r) {
    const RankGraph& x = a.ranks[r];
    const RankGraph& y = b.ranks[r];
    ASSERT_EQ(x.nodes.size(), y.nodes.size()) << "rank " << r;
    EXPECT_EQ(x.deps, y.deps) << "rank " << r;
    for (size_t i = 0; i < x.nodes.size(); ++i) {
      const Node& p = x.nodes[i];
      const Node& q = y.nodes[i];
      SCOPED_TRACE("rank " + std::to_string(r) + " node " + std::to_string(p.id));
      EXPECT_EQ(p.id, q.id);
      EXPECT_EQ(a.name_of(p), b.name_of(q));
      EXPECT_EQ(p.kind, q.kind);
      if (p.kind == NodeKind::kCollective) EXPECT_EQ(p.op, q.op);
      EXPECT_EQ(p.comm, q.comm);
      EXPECT_EQ(p.stream, q.stream);
      EXPECT_EQ(p.duration_s, q.duration_s);  // exactly, not to the microsecond
      EXPECT_EQ(p.flops, q.flops);
      EXPECT_EQ(p.mem_bytes, q.mem_bytes);
      EXPECT_EQ(p.bytes, q.bytes);
      EXPECT_EQ(p.group_or_peer, q.group_or_peer);
      EXPECT_EQ(p.tag, q.tag);
      EXPECT_EQ(p.dep_begin, q.dep_begin);
      EXPECT_EQ(p.data_deps, q.data_deps);
      EXPECT_EQ(p.ctrl_deps, q.ctrl_deps);
    }
  }
}

TEST(ChakraRoundTrip, WriteThenReadIsTheSameGraph) {
  const Graph g = sample_graph();
  check_graph(g);
  const fs::path dir = fresh_test_dir("chakra_roundtrip");
  write_chakra_trace(g, dir.string(), "sample");
  for (const char* f : {"sample.0.et", "sample.1.et", "sample.2.et", "sample.comm_groups.json"})
    EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
  TraceReadReport report;
  const Graph back = read_chakra_trace((dir / "sample").string(), &report);
  expect_same(g, back);
  EXPECT_EQ(report.nodes, g.node_count());
  EXPECT_EQ(report.unknown_attributes, 0u);
  EXPECT_EQ(report.skipped_nodes, 0u);
  // Deterministic: the graph read back encodes to the same bytes.
  std::string j1, j2;
  EXPECT_EQ(encode_chakra_trace(g, &j1), encode_chakra_trace(back, &j2));
  EXPECT_EQ(j1, j2);
}

TEST(ChakraRoundTrip, TheGroupFileIsFoundByEitherNameOrGiven) {
  const Graph g = sample_graph();
  const fs::path dir = fresh_test_dir("chakra_groups");
  write_chakra_trace(g, dir.string(), "sample");
  const std::string prefix = (dir / "sample").string();
  EXPECT_EQ(find_comm_group_file(prefix), prefix + ".comm_groups.json");
  // ASTRA-sim's generators name it PREFIX.json.
  fs::rename(prefix + ".comm_groups.json", prefix + ".json");
  EXPECT_EQ(find_comm_group_file(prefix), prefix + ".json");
  expect_same(g, read_chakra_trace(prefix));
  // Anywhere else, given (ASTRA-sim's --comm-group-configuration): it wins over PREFIX.json.
  const std::string elsewhere = (dir / "groups.json").string();
  fs::copy_file(prefix + ".json", elsewhere);
  std::ofstream(prefix + ".json") << "{nope";
  EXPECT_EQ(find_comm_group_file(prefix, elsewhere), elsewhere);
  expect_same(g, read_chakra_trace(prefix, nullptr, elsewhere));
  // A given file that does not exist is an error naming it, not a silent fallback.
  fs::remove(prefix + ".json");
  try {
    read_chakra_trace(prefix, nullptr, (dir / "none.json").string());
    FAIL() << "a missing --comm-groups file was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("none.json"));
  }
}

TEST(ChakraRoundTrip, ReplayOfTheReadBackTraceTakesTheSameTime) {
  // Emit, import, replay: the same graph gives the same schedule, to the last bit.
  const Graph g = sample_graph();
  const fs::path dir = fresh_test_dir("chakra_replay");
  write_chakra_trace(g, dir.string(), "sample");
  const Graph back = read_chakra_trace((dir / "sample").string());
  SchedulerOptions o;
  o.timeline_ranks = {-1};
  AnalyticalBackend b1(make_flat(3, 25e9, 5e-6));
  AnalyticalBackend b2(make_flat(3, 25e9, 5e-6));
  const ScheduleResult x = schedule(g, b1, o);
  const ScheduleResult y = schedule(back, b2, o);
  EXPECT_GT(x.iteration_s, 0);
  EXPECT_EQ(x.iteration_s, y.iteration_s);
  EXPECT_EQ(x.exposed_s, y.exposed_s);
  EXPECT_EQ(x.critical_path.size(), y.critical_path.size());
  ASSERT_EQ(x.timelines.size(), y.timelines.size());
  for (size_t r = 0; r < x.timelines.size(); ++r)
    for (size_t i = 0; i < x.timelines[r].size(); ++i)
      EXPECT_EQ(x.timelines[r][i].end_s, y.timelines[r][i].end_s) << "rank " << r << " node " << i;
}

TEST(ChakraRoundTrip, AMemoryOnlyNodeIsOneOpThatARooflineCanTime) {
  using namespace commlab::test::chakra_wire;
  Graph g;
  g.name = "opt";
  g.ranks.resize(1);
  Node step = make(1, NodeKind::kCompute);
  step.name = g.intern("optimizer");
  step.mem_bytes = 28e9;  // Adam over 1e9 parameters: memory traffic, no FLOPs counted
  g.ranks[0].add(step);
  const std::vector<std::string> files = encode_chakra_trace(g, nullptr);
  const auto msgs = messages(files[0]);
  ASSERT_EQ(msgs.size(), 2u);
  uint64_t num_ops = 0, tensor_size = 0;
  for (const Field& f : fields(msgs[1]))
    if (f.number == 10) {
      const auto a = fields(f.bytes);
      if (a.size() > 1 && a[0].bytes == "num_ops") num_ops = a[1].value;
      if (a.size() > 1 && a[0].bytes == "tensor_size") tensor_size = a[1].value;
    }
  // ASTRA-sim's roofline: runtime = num_ops / min(bw * num_ops / tensor_size, peak). With 0 ops
  // that is 0 / 0; with 1 op and bw = 2 TB/s it is tensor_size / bw = 14 ms, the memory time.
  ASSERT_EQ(num_ops, 1u);
  ASSERT_EQ(tensor_size, 28'000'000'000u);
  const double bw = 2e12, peak = 1e15;
  const double ops = static_cast<double>(num_ops);
  const double runtime = ops / std::min(bw * ops / static_cast<double>(tensor_size), peak);
  EXPECT_NEAR(runtime, 28e9 / bw, 1e-12);
  // Read back here: commlab_flops keeps the exact 0, and the node takes its memory time.
  const fs::path dir = fresh_test_dir("chakra_memory_only");
  write_chakra_trace(g, dir.string(), "opt");
  const Graph back = read_chakra_trace((dir / "opt").string());
  EXPECT_EQ(back.ranks[0].nodes[0].flops, 0.0);
  EXPECT_EQ(back.ranks[0].nodes[0].mem_bytes, 28e9);
  AnalyticalBackend b1(make_flat(1, 25e9, 5e-6)), b2(make_flat(1, 25e9, 5e-6));
  EXPECT_EQ(schedule(g, b1, {}).iteration_s, schedule(back, b2, {}).iteration_s);
}

TEST(ChakraRoundTrip, WritesTheStandardFieldsAstraSimReplays) {
  using namespace commlab::test::chakra_wire;
  std::string groups;
  const std::vector<std::string> files = encode_chakra_trace(sample_graph(), &groups);
  EXPECT_EQ(groups, "{\"1\":[0,1,2],\"2\":[2,0],\"3\":[1]}\n");  // key = group index + 1
  const auto msgs = messages(files[1]);
  ASSERT_EQ(msgs.size(), 9u);  // metadata + 8 nodes on rank 1
  // GlobalMetadata.version (field 1).
  EXPECT_EQ(fields(msgs[0])[0].bytes, "0.0.4");
  auto field = [](std::string_view msg, int number) {
    for (const Field& f : fields(msg))
      if (f.number == number) return f;
    return Field{};
  };
  auto attr = [](std::string_view msg, std::string_view name) {
    for (const Field& f : fields(msg))
      if (f.number == 10) {
        const auto a = fields(f.bytes);
        if (!a.empty() && a[0].bytes == name) return a.size() > 1 ? a[1] : Field{};
      }
    return Field{};
  };
  // fwd on rank 1: 2 * 12.34567891 us -> duration_micros round(24.69...) = 25; type COMP_NODE.
  EXPECT_EQ(field(msgs[1], 3).value, uint64_t(kComp));
  EXPECT_EQ(field(msgs[1], 7).value, 25u);
  // The roofline node: num_ops 3.5e12 and tensor_size 1.25e9 as uint64_val (field 13).
  EXPECT_EQ(attr(msgs[2], "num_ops").number, 13);
  EXPECT_EQ(attr(msgs[2], "num_ops").value, 3'500'000'000'000u);
  EXPECT_EQ(attr(msgs[2], "tensor_size").value, 1'250'000'000u);
  // The all-reduce: COMM_COLL_NODE, comm_type ALL_REDUCE (int64_val), comm_size, pg_name "1",
  // data dep on the roofline node's id (7) and ctrl dep on fwd's (101).
  EXPECT_EQ(field(msgs[3], 3).value, uint64_t(kColl));
  EXPECT_EQ(attr(msgs[3], "comm_type").number, 9);
  EXPECT_EQ(attr(msgs[3], "comm_type").value, uint64_t(kAllReduce));
  EXPECT_EQ(attr(msgs[3], "comm_size").value, 123456789u);
  EXPECT_EQ(attr(msgs[3], "pg_name").bytes, "1");
  // Repeated uint64 is packed in proto3 (wire type 2): one varint each.
  auto packed = [](const Field& f) {
    std::vector<uint64_t> out;
    size_t p = 0;
    uint64_t v;
    while (f.wire == 2 && p < f.bytes.size() && read_varint(f.bytes, &p, &v)) out.push_back(v);
    return out;
  };
  EXPECT_EQ(packed(field(msgs[3], 5)), std::vector<uint64_t>({7}));
  EXPECT_EQ(packed(field(msgs[3], 4)), std::vector<uint64_t>({101}));
  // Broadcast: comm_type 5 on group 2 -> pg_name "3".
  EXPECT_EQ(attr(msgs[4], "comm_type").value, uint64_t(kBroadcast));
  EXPECT_EQ(attr(msgs[4], "pg_name").bytes, "3");
  // Send 1 -> 2 with tag 1, recv from 0 with tag 0: comm_src / comm_dst / comm_tag.
  EXPECT_EQ(field(msgs[7], 3).value, uint64_t(kSend));
  EXPECT_EQ(attr(msgs[7], "comm_src").value, 1u);
  EXPECT_EQ(attr(msgs[7], "comm_dst").value, 2u);
  EXPECT_EQ(attr(msgs[7], "comm_tag").value, 1u);
  EXPECT_EQ(field(msgs[8], 3).value, uint64_t(kRecv));
  EXPECT_EQ(attr(msgs[8], "comm_src").value, 0u);
  EXPECT_EQ(attr(msgs[8], "comm_dst").value, 1u);
}

TEST(ChakraRoundTrip, WriterRejectsAGraphWithoutRanks) {
  std::string j;
  EXPECT_THROW(encode_chakra_trace(Graph{}, &j), std::invalid_argument);
}

TEST(ChakraRoundTrip, WriterRejectsDuplicateIds) {
  Graph g;
  g.ranks.resize(1);
  g.ranks[0].add(make(4, NodeKind::kCompute));
  g.ranks[0].add(make(4, NodeKind::kCompute));
  std::string j;
  EXPECT_THROW(
      {
        try {
          encode_chakra_trace(g, &j);
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "rank 0, node 4: duplicate node id");
          throw;
        }
      },
      std::invalid_argument);
}

std::string read_error(const std::string& prefix) {
  try {
    read_chakra_trace(prefix);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ChakraFiles, MissingGapDirectoryAndFifo) {
  const fs::path dir = fresh_test_dir("chakra_files");
  const std::string p = (dir / "w").string();
  EXPECT_EQ(read_error(p),
            p + ".0.et: no such trace file (a trace is PREFIX.0.et, PREFIX.1.et, ...)");
  const std::string one = test::chakra_wire::trace_file({});
  std::ofstream(p + ".0.et", std::ios::binary) << one;
  std::ofstream(p + ".2.et", std::ios::binary) << one;
  EXPECT_EQ(read_error(p),
            p + ".1.et: missing rank file (" + p + ".2.et exists; rank files must be consecutive)");
  fs::create_directory(p + ".1.et");
  EXPECT_EQ(read_error(p), p + ".1.et: is a directory, not a trace file");
  fs::remove(p + ".1.et");
  ASSERT_EQ(mkfifo((p + ".1.et").c_str(), 0600), 0);
  EXPECT_EQ(read_error(p), p + ".1.et: is a FIFO, not a regular file");  // never blocks
  fs::remove(p + ".1.et");
  fs::remove(p + ".2.et");
  // A group file that is not JSON.
  std::ofstream(p + ".comm_groups.json") << "{nope";
  EXPECT_THAT(read_error(p), HasSubstr(p + ".comm_groups.json: not a communicator-group file"));
  fs::remove(p + ".comm_groups.json");
  EXPECT_EQ(read_chakra_trace(p).rank_count(), 1);
}

}  // namespace
}  // namespace commlab::workload
