// Timing a 1 GiB ring all-reduce schedule with the analytical backend (targets: 1,024 GPUs
// under 1 ms, 16,384 GPUs under 50 ms of wall time). The ring is 2(N-1) steps of N flows r -> r+1.
//   Folded:   the collective executor's time-only mode: identical steps are timed once and
//             repeated, so the schedule is one reduce-scatter step + one all-gather step.
//   AllSteps: every one of the 2(N-1) steps is passed (equal chunks: cache hits).
//   Uneven:   chunk sizes differ per rank (S not divisible by N), so every step has new bytes.
//   Reference: the plain progressive-filling algorithm on ONE step, the peer for ratios.
// "Cold" runs build a fresh backend per iteration (routing and patterns included, the topology
// check excluded); warm runs reuse one backend.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "network/analytical.h"
#include "topology/presets.h"

namespace commlab {
namespace {

constexpr uint64_t kBytes = uint64_t{1} << 30;

const char* spec_for(int ranks) {
  return ranks == 1024 ? "fattree:k=16,gbps=400"
                       : "leafspine:servers=16384,gpus_per_server=1,radix=256";
}

const Topology& topology_for(int ranks) {
  static std::unique_ptr<Topology> small, large;
  auto& slot = ranks == 1024 ? small : large;
  if (!slot) slot = std::make_unique<Topology>(cluster_from_spec(spec_for(ranks)));
  return *slot;
}

// Step s of the ring: rank r sends chunk (r - s) mod N to r + 1; flow ids are per (src, dst).
// The flows live in one buffer whose bytes are rewritten per step, as an executor would do.
void ring_step(std::vector<Flow>& flows, int n, int s, bool uneven) {
  const uint64_t base = kBytes / n, extra = uneven ? 64 : 0;
  if (static_cast<int>(flows.size()) != n) {
    flows.resize(n);
    for (int r = 0; r < n; ++r) flows[r] = {r, (r + 1) % n, base, static_cast<uint64_t>(r)};
  }
  if (!uneven) return;
  // uneven: chunk c carries base + (c % 7) * 64 bytes (as when S is not a multiple of N)
  int chunk = ((-s) % n + n) % n;
  for (int r = 0; r < n; ++r, chunk = chunk + 1 == n ? 0 : chunk + 1)
    flows[r].bytes = base + (chunk % 7) * extra;
}

double run_schedule(AnalyticalBackend& backend, int n, bool all_steps, bool uneven) {
  std::vector<Flow> step;
  ring_step(step, n, 0, false);
  double total = 0;
  if (!all_steps) {  // folded: RS step and AG step, each repeated N-1 times
    total += backend.time_step(step).duration_s * (n - 1);
    total += backend.time_step(step).duration_s * (n - 1);
    return total;
  }
  for (int s = 0; s < 2 * (n - 1); ++s) {
    ring_step(step, n, s % n, uneven);
    total += backend.time_step(step).duration_s;
  }
  return total;
}

void BM_Ring(benchmark::State& state, bool all_steps, bool uneven, bool cold) {
  const int n = static_cast<int>(state.range(0));
  const Topology& topo = topology_for(n);
  auto backend = std::make_unique<AnalyticalBackend>(topo);
  double sim = 0;
  for (auto _ : state) {
    if (cold) {
      state.PauseTiming();
      backend = std::make_unique<AnalyticalBackend>(topo);
      state.ResumeTiming();
    }
    sim = run_schedule(*backend, n, all_steps, uneven);
    benchmark::DoNotOptimize(sim);
  }
  state.counters["sim_ms"] = sim * 1e3;
  state.counters["steps"] = 2.0 * (n - 1);
  state.SetLabel(spec_for(n));
}

void BM_ReferenceOneStep(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Topology& topo = topology_for(n);
  Router router(topo);
  std::vector<Flow> step;
  ring_step(step, n, 0, false);
  time_step_reference(topo, router, step);  // warm the router like the backend's warm runs
  for (auto _ : state) benchmark::DoNotOptimize(time_step_reference(topo, router, step));
  state.SetLabel(spec_for(n));
}

// The same folded schedule on 8-GPU servers (NVSwitch inside, rail-optimized leaves): 7 of 8 ring
// flows stay inside a server, the 8th crosses rails. Cold backend per iteration.
void BM_RailFoldedCold(benchmark::State& state) {
  static const Topology topo = cluster_from_spec("rail:servers=2048,gpus_per_server=8,radix=256");
  const int n = topo.ranks();
  double sim = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto backend = std::make_unique<AnalyticalBackend>(topo);
    state.ResumeTiming();
    sim = run_schedule(*backend, n, false, false);
    state.PauseTiming();
    backend.reset();
    state.ResumeTiming();
  }
  state.counters["sim_ms"] = sim * 1e3;
  state.SetLabel("rail:servers=2048,gpus_per_server=8,radix=256");
}
BENCHMARK(BM_RailFoldedCold)->Unit(benchmark::kMillisecond);

// Contended: one all-to-all step (every host sends 1 MiB to every other) on a k=8 fat-tree, 16,256
// flows sharing links through ECMP collisions: hundreds of max-min phases. Peer: the plain
// algorithm.
void BM_AllToAll(benchmark::State& state, bool reference) {
  Topology topo = cluster_from_spec("fattree:k=8");
  const int n = topo.ranks();
  std::vector<Flow> flows;
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d) flows.push_back({s, d, 1 << 20, static_cast<uint64_t>(s * n + d)});
  Router router(topo);
  for (auto _ : state) {
    if (reference) {
      benchmark::DoNotOptimize(time_step_reference(topo, router, flows));
    } else {
      AnalyticalBackend backend(topo);  // cold: no cached pattern or result
      benchmark::DoNotOptimize(backend.time_step(flows));
    }
  }
  state.SetLabel("fattree:k=8 all-to-all, 16256 flows");
}
BENCHMARK_CAPTURE(BM_AllToAll, Fast, false)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_AllToAll, Reference, true)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_CAPTURE(BM_Ring, FoldedCold, false, false, true)
    ->Arg(1024)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Ring, FoldedWarm, false, false, false)
    ->Arg(1024)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Ring, AllStepsEqual, true, false, false)
    ->Arg(1024)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Ring, AllStepsUneven, true, true, false)
    ->Arg(1024)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK(BM_ReferenceOneStep)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace commlab

BENCHMARK_MAIN();
