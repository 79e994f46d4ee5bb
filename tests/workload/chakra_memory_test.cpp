// The Chakra reader's peak heap on plain nodes follows the file (a 62 MB trace took
// 1.79 GB, 29x). This executable counts every operator new / delete to measure the peak heap
// while a trace is parsed; its own executable, so no other test runs with the counting.
#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

#include "chakra_wire.h"
#include "network/analytical.h"
#include "support/error_of.h"
#include "test_dir.h"
#include "topology/topology.h"
#include "workload/chakra/chakra_placement.h"
#include "workload/chakra_trace.h"
#include "workload/scheduler.h"

namespace {
std::atomic<int64_t> g_live{0}, g_peak{0};

void* counted(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  const int64_t live = g_live += static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}
void uncounted(void* p) {
  if (!p) return;
  g_live -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}
}  // namespace

void* operator new(size_t n) {
  return counted(n);
}
void* operator new[](size_t n) {
  return counted(n);
}
void operator delete(void* p) noexcept {
  uncounted(p);
}
void operator delete[](void* p) noexcept {
  uncounted(p);
}
void operator delete(void* p, size_t) noexcept {
  uncounted(p);
}
void operator delete[](void* p, size_t) noexcept {
  uncounted(p);
}
// The nothrow forms too (std::stable_sort's buffer in the replay summary): freed through the
// deletes above, they must come from the same malloc (ASan reports the mismatch otherwise).
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted(n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t& tag) noexcept {
  return operator new(n, tag);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  uncounted(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  uncounted(p);
}

namespace commlab::workload {
namespace {

using namespace commlab::test::chakra_wire;

// `count` compute nodes in a chain (each depends on the one before), named from 16 operator names
// as a PyTorch trace repeats aten::mm and friends.
std::string chain(int count) {
  std::string f;
  frame(&f, Msg().s(1, "0.0.4").b);
  for (int i = 1; i <= count; ++i) {
    NodeMsg n(i, "aten::op" + std::to_string(i % 16), kComp);
    n.micros(1);
    if (i > 1) n.data(i - 1);
    frame(&f, n.msg.b);
  }
  return f;
}

TEST(ChakraMemory, PlainNodesPeakWithinEightTimesTheFile) {
  const std::string file = chain(200000);  // 4.8 MB: about 24 bytes a node
  const std::vector<std::string_view> views{file};
  const int64_t before = g_live.load();
  g_peak = before;
  Graph g = parse_chakra_trace(views, "", "t");
  const int64_t peak = g_peak.load() - before;
  ASSERT_EQ(g.ranks[0].nodes.size(), 200000u);
  EXPECT_EQ(g.ranks[0].deps.size(), 199999u);
  // Held at the peak: the Node array (64 bytes a node, moved into the graph, not copied), its
  // links (32), the id index (16), dependency ids (8 + 4 + 4) and placement marks: about 140
  // bytes a node, 5.9x the file's 24; it was 17x (a hash-map index, a RawNode array copied into
  // the RankGraph, both grown by doubling).
  std::printf("peak heap %lld bytes for a %zu-byte trace\n", (long long)peak, file.size());
  EXPECT_LT(peak, 8 * static_cast<int64_t>(file.size()))
      << "peak heap " << peak << " bytes for a " << file.size() << "-byte trace";
}

TEST(ChakraMemory, TheMemoryBudgetRefusesBeforeAllocatingAndNamesTheValue) {
  const std::string file = chain(1000);
  const std::vector<std::string_view> views{file};
  ChakraReadBudgets budgets;
  // The estimate at the start: the file plus 1,000 nodes x kBytesPerRawNode (chakra_placement.h:
  // sizeof(Node) + links 32 + index 16 + marks 9, 121 bytes today), over a 100,000-byte budget.
  budgets.memory_bytes = 100000;
  try {
    parse_chakra_trace(views, "", "t", nullptr, budgets);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string expected =
        "t.0.et: rank 0: reading needs about " +
        std::to_string(file.size() + 1000 * chakra_place::kBytesPerRawNode) +
        " bytes (1000 nodes), over the memory budget of 100000 bytes "
        "(ChakraReadBudgets::memory_bytes)";
    EXPECT_EQ(std::string(e.what()), expected);
  }
  // Ten times the file is enough.
  budgets.memory_bytes = 10 * file.size();
  EXPECT_EQ(parse_chakra_trace(views, "", "t", nullptr, budgets).ranks[0].nodes.size(), 1000u);
}

TEST(ChakraMemory, TheNodeBudgetRefusesFromTheRecordCountAndATraceWithinItReplays) {
  const std::string file = chain(200000);  // 4.8 MB a rank
  const std::string prefix = (commlab::test::fresh_test_dir("chakra_node_budget") / "c").string();
  for (int r = 0; r < 2; ++r) std::ofstream(prefix + "." + std::to_string(r) + ".et") << file;
  ChakraReadBudgets budgets;
  budgets.nodes = 399999;
  const int64_t before = g_live.load();
  g_peak = before;
  const auto start = std::chrono::steady_clock::now();
  const std::string error =
      testing::error_of([&] { read_chakra_trace(prefix, nullptr, "", budgets); });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int64_t peak = g_peak.load() - before;
  // Rank 1 brings the trace to 400,000 nodes; 399,999 x kChakraPeakBytesPerNode (230) =
  // 91,999,770 bytes = 0.0857 GiB.
  EXPECT_EQ(error,
            prefix +
                ".1.et: rank 1: 200000 nodes (400000 in the trace so far), over the budget "
                "of 399999 nodes (about 230 bytes each read and "
                "replayed, 0.0857 GiB); a shorter trace, fewer ranks, or a larger budget (workload "
                "--max-trace-nodes)");
  // Refused from the files' records, counted in 1 MiB blocks before rank 0 is parsed or either
  // file is read whole: the heap held the block and little else (a file is 4.8 MB, rank 0's
  // graph 200,000 x kBytesPerRawNode, 24 MB), in far less than a second (5 s: a loaded machine).
  std::printf("refused in %.3f s, peak heap %lld bytes for two %zu-byte rank files\n", seconds,
              (long long)peak, file.size());
  EXPECT_LT(peak, 2 << 20);
  EXPECT_LT(seconds, 5.0);
  // At the budget it reads and replays: two chains of 200,000 compute nodes of 1 us side by side
  // end at 0.2 s.
  budgets.nodes = 400000;
  const Graph g = read_chakra_trace(prefix, nullptr, "", budgets);
  AnalyticalBackend backend(make_flat(2, 25e9, 5e-6));
  const ScheduleResult r = schedule(g, backend, SchedulerOptions{});
  EXPECT_EQ(r.nodes, 400000u);
  EXPECT_NEAR(r.iteration_s, 0.2, 1e-9);
}

TEST(ChakraMemory, TheNodeBudgetCountsTheWholeTrace) {
  // Two ranks of 1,000 nodes, a budget of 1,500: rank 0 fits, rank 1 brings the trace to 2,000.
  const std::string file = chain(1000);
  const std::vector<std::string_view> views{file, file};
  ChakraReadBudgets budgets;
  budgets.nodes = 1500;
  EXPECT_EQ(testing::error_of([&] { parse_chakra_trace(views, "", "t", nullptr, budgets); }),
            "t.1.et: rank 1: 1000 nodes (2000 in the trace so far), over the budget of 1500 "
            "nodes (about 230 bytes each read and replayed, "
            "0.000321 GiB); a shorter trace, fewer ranks, or a larger budget (workload "
            "--max-trace-nodes)");
  budgets.nodes = 2000;
  EXPECT_EQ(parse_chakra_trace(views, "", "t", nullptr, budgets).node_count(), 2000u);
}

// Rank 0's METADATA node lists `count` process groups of one rank each, as PyTorch writes them.
std::string process_groups(int count) {
  std::string pgs = "[";
  for (int k = 1; k <= count; ++k)
    pgs += (k > 1 ? "," : "") + std::string(R"({"pg_name":")") + std::to_string(k) +
           R"(","pg_desc":"default_pg","ranks":[0],"group_size":1})";
  pgs += "]";
  return trace_file({NodeMsg(1, "## process_group:init ##", kMetadata).inputs("['" + pgs + "']")});
}

TEST(ChakraMemory, ProcessGroupMetadataPeakWithinEightTimesItsText) {
  const std::string file = process_groups(20000);  // 1.3 MB
  const std::vector<std::string_view> views{file};
  const int64_t before = g_live.load();
  g_peak = before;
  Graph g = parse_chakra_trace(views, "", "t");
  const int64_t peak = g_peak.load() - before;
  ASSERT_EQ(g.groups.size(), 20000u);
  EXPECT_EQ(g.groups[19999], std::vector<int>({0}));
  std::printf("peak heap %lld bytes for a %zu-byte trace\n", (long long)peak, file.size());
  // Held: the node's protobuf copy of the text (1x), the groups (a vector of one rank, ~56 bytes)
  // and their keys (~64 bytes) a group, ~2x more; the JSON tree of the whole list (~300 bytes a
  // group of 66 characters) was 10x more than the text.
  EXPECT_LT(peak, 8 * static_cast<int64_t>(file.size()))
      << "peak heap " << peak << " bytes for a " << file.size() << "-byte trace";
}

}  // namespace
}  // namespace commlab::workload
