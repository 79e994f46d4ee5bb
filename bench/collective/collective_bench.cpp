// Speed of the collective data plane: a 64-rank ring all-reduce of 16 MiB (4M floats)
// per rank, against memcpy of the same bytes measured in the same run on the same buffers.
//
// Bytes the data plane must move: in each of the 2(N-1) ring steps every rank receives one chunk
// of S/N bytes, so each rank receives 2(N-1)/N * S bytes and all ranks together 2(N-1) * S (2016
// MiB for N = 64, S = 16 MiB). The reduce-scatter half also reads and writes the receiver's
// accumulator (3 memory streams per received byte instead of memcpy's 2), so even a perfect data
// plane runs at about 4/5 of memcpy. The baseline is memcpy of exactly those bytes with the
// ring's access pattern: 2(N-1) steps, in each rank r copies chunk (r - step) mod N of its buffer
// into rank r+1's buffer, with the same thread count.
//
//   build-coll/bench/collective/collective_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "collective/algorithms.h"
#include "collective/simulated_executor.h"

namespace commlab {
namespace {

constexpr int kRanks = 64;
constexpr uint64_t kCount = 4u << 20;  // floats per rank: 16 MiB

struct Buffers {
  std::vector<std::vector<float>> data;
  std::vector<std::span<float>> views;
  Buffers() : data(kRanks, std::vector<float>(kCount, 1.0f)) {
    for (auto& b : data) views.emplace_back(b);
  }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// memcpy of the ring's bytes along the ring's pattern: 2(N-1) steps of N chunk copies.
void ring_memcpy(Buffers& b, int threads) {
  for (int step = 0; step < 2 * (kRanks - 1); ++step) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int r = 0; r < kRanks; ++r) {
      int c = mod(r - step, kRanks);
      uint64_t begin = chunk_start(kCount, kRanks, c), end = chunk_start(kCount, kRanks, c + 1);
      std::memcpy(b.data[(r + 1) % kRanks].data() + begin, b.data[r].data() + begin,
                  (end - begin) * sizeof(float));
    }
  }
}

void BM_RingAllReduce64x16MiB(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  static Buffers buffers;  // 1 GiB: allocated once for every run of the benchmark
  PlanRequest req;
  req.ranks = kRanks;
  req.count = kCount;
  const Plan plan = build_plan("ring", req);
  ExecutorOptions opts;
  opts.threads = threads;
  const double bytes = 2.0 * (kRanks - 1) * kCount * sizeof(float);  // received, all ranks
  double plane_s = 0, memcpy_s = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    ring_memcpy(buffers, threads);
    memcpy_s += seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    execute_plan(plan, buffers.views, opts);
    double s = seconds_since(t0);
    plane_s += s;
    state.SetIterationTime(s);
    // Keep values finite and normal across iterations (each all-reduce multiplies them by 64).
    state.PauseTiming();
    for (auto& v : buffers.data) std::fill(v.begin(), v.end(), 1.0f);
    state.ResumeTiming();
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["dataplane_GBps"] = bytes * iters / plane_s / 1e9;
  state.counters["memcpy_GBps"] = bytes * iters / memcpy_s / 1e9;
  state.counters["ratio"] = memcpy_s / plane_s;  // data plane bandwidth / memcpy bandwidth
  state.SetBytesProcessed(static_cast<int64_t>(bytes * iters));
}
BENCHMARK(BM_RingAllReduce64x16MiB)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Iterations(4)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace commlab

BENCHMARK_MAIN();
