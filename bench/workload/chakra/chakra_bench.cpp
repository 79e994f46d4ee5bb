// Chakra trace throughput: encode (writer) and parse (reader) of a synthetic per-rank graph shaped
// like a training iteration (a chain of compute nodes, each followed by a TP all-reduce on a
// 4-rank group and a DP reduce-scatter on a stream of its own, plus a send/recv pipeline hop), in
// memory and through files. Run: build-X/bench/workload/chakra/chakra_bench
#include <benchmark/benchmark.h>

#include <filesystem>

#include "workload/chakra_trace.h"

namespace commlab::workload {
namespace {

Graph training_like(int ranks, int layers) {
  Graph g;
  g.name = "bench";
  g.ranks.resize(ranks);
  for (int r = 0; r < ranks; r += 4) g.groups.push_back({r, r + 1, r + 2, r + 3});
  std::vector<int> all(ranks);
  for (int r = 0; r < ranks; ++r) all[r] = r;
  g.groups.push_back(all);
  const uint32_t fwd = g.intern("layer"), tp = g.intern("tp"), dp = g.intern("dp");
  for (int r = 0; r < ranks; ++r) {
    RankGraph& rg = g.ranks[r];
    uint64_t id = 0;
    uint32_t prev = UINT32_MAX;
    for (int l = 0; l < layers; ++l) {
      Node c;
      c.id = id++;
      c.name = fwd;
      c.duration_s = 1.25e-4 + 1e-9 * l;
      const uint32_t a = prev == UINT32_MAX ? rg.add(c) : rg.add(c, {prev});
      Node t;
      t.id = id++;
      t.name = tp;
      t.kind = NodeKind::kCollective;
      t.comm = CommKind::kTp;
      t.bytes = 1 << 24;
      t.group_or_peer = r / 4;
      prev = rg.add(t, {a});
      Node d = t;
      d.id = id++;
      d.name = dp;
      d.op = CommOp::kReduceScatter;
      d.comm = CommKind::kDp;
      d.stream = 2;
      d.group_or_peer = static_cast<int32_t>(g.groups.size() - 1);
      rg.add(d, {prev});
    }
    Node p;
    p.id = id++;
    p.kind = r % 2 ? NodeKind::kRecv : NodeKind::kSend;
    p.comm = CommKind::kPp;
    p.group_or_peer = r % 2 ? r - 1 : r + 1;
    p.bytes = 1 << 20;
    rg.add(p, {prev});
  }
  return g;
}

void BM_Encode(benchmark::State& state) {
  const Graph g = training_like(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  std::string groups;
  uint64_t bytes = 0;
  for (auto _ : state) {
    auto files = encode_chakra_trace(g, &groups);
    bytes = 0;
    for (const auto& f : files) bytes += f.size();
    benchmark::DoNotOptimize(files.data());
  }
  state.counters["nodes"] = static_cast<double>(g.node_count());
  state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(g.node_count()),
                                                 benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/node"] = static_cast<double>(bytes) / static_cast<double>(g.node_count());
}

void BM_Parse(benchmark::State& state) {
  const Graph g = training_like(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  std::string groups;
  const auto files = encode_chakra_trace(g, &groups);
  const std::vector<std::string_view> views(files.begin(), files.end());
  for (auto _ : state) {
    Graph back = parse_chakra_trace(views, groups, "bench");
    benchmark::DoNotOptimize(back.ranks.data());
  }
  state.counters["nodes"] = static_cast<double>(g.node_count());
  state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(g.node_count()),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

// Through the file system: write_chakra_trace, then read_chakra_trace (one file per rank).
void BM_WriteRead(benchmark::State& state) {
  const Graph g = training_like(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const auto dir = std::filesystem::temp_directory_path() / "commlab_chakra_bench";
  for (auto _ : state) {
    write_chakra_trace(g, dir.string(), "t");
    Graph back = read_chakra_trace((dir / "t").string());
    benchmark::DoNotOptimize(back.ranks.data());
  }
  std::filesystem::remove_all(dir);
  state.counters["nodes"] = static_cast<double>(g.node_count());
  state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(g.node_count()),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

// {ranks, layers}: 3 * layers + 1 nodes per rank.
BENCHMARK(BM_Encode)->Args({64, 256})->Args({1024, 96})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Parse)->Args({64, 256})->Args({1024, 96})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WriteRead)->Args({1024, 96})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace commlab::workload

BENCHMARK_MAIN();
