// Generating and replaying a GPT-3 175B iteration as per-rank graphs
// (workload/catalog/catalog_graph.h, workload/scheduler.h) at 1,024 and 16,384 ranks on the
// analytical backend: nodes, generation and replay CPU time, nodes replayed per second. Targets
//: 1,024 ranks under 1 s, 16,384 under 30 s. Splits: tp 8, pp 16 and dp = ranks / 128,
// global batch 16 x dp (16 micro-batches per pipeline), on a leaf-spine of 8-GPU servers at 400
// Gb/s.
#include <benchmark/benchmark.h>

#include "network/analytical.h"
#include "topology/builders.h"
#include "workload/catalog/catalog_graph.h"
#include "workload/scheduler.h"

namespace commlab::workload {
namespace {

CatalogGraphOptions gpt3_split(int ranks) {
  CatalogGraphOptions o;
  o.parallel.tp = 8;
  o.parallel.pp = 16;
  o.parallel.dp = ranks / 128;
  o.parallel.global_batch = 16 * o.parallel.dp;
  return o;
}

Topology cluster(int ranks) {
  LeafSpineParams p;
  p.gpus_per_server = 8;
  p.servers = ranks / 8;
  p.nic_gbps = 400;
  while (p.radix * p.radix / 2 < ranks) p.radix *= 2;
  return make_leaf_spine(p);
}

void BM_Generate(benchmark::State& state) {
  const int ranks = static_cast<int>(state.range(0));
  uint64_t nodes = 0;
  for (auto _ : state) {
    Graph g = catalog_graph(find_workload("gpt3-175b"), gpt3_split(ranks));
    nodes = g.node_count();
    benchmark::DoNotOptimize(g);
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["nodes/s"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Replay(benchmark::State& state) {
  const int ranks = static_cast<int>(state.range(0));
  const Graph g = catalog_graph(find_workload("gpt3-175b"), gpt3_split(ranks));
  const Topology topo = cluster(ranks);
  SchedulerOptions o;
  o.timeline_ranks = {};
  double iteration = 0;
  for (auto _ : state) {
    AnalyticalBackend net(topo);
    iteration = schedule(g, net, o).iteration_s;
  }
  state.counters["nodes"] = static_cast<double>(g.node_count());
  state.counters["iteration_s"] = iteration;
  state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(g.node_count()),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_Generate)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Replay)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace commlab::workload

BENCHMARK_MAIN();
