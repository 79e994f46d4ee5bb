// Under mpirun: our ring all-reduce (core/exec MpiExecutor) against MPI_Allreduce of the same size
// on the same processes in the same run, interleaved size by size, printed side by side (issue
// #17 target: >= 70% of MPI's bus bandwidth). Then the codec path: the codec's throughput inside
// the collective (encode + decode bytes over the time the executor spent in them) against the
// codec's own single-core throughput on this rank's data (target: within 10%).
//   mpirun -np 2 --mca btl self,vader mpi_collective_bench [--sizes 1K:64M] [--iters 20]
//          [--codec lz4] [--wire fp32]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "collective/algorithms.h"
#include "collective/codec_wire.h"
#include "exec/mpi_executor.h"
#include "exec/native_collective.h"
#include "exec/rank_reference.h"
#include "io/size_parse.h"

using namespace commlab;
using namespace commlab::exec;

namespace {

struct Args {
  uint64_t min_bytes = 1 << 10, max_bytes = 64ull << 20;
  int iters = 20;
  std::string codec = "lz4", wire = "fp32";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--sizes") {
      auto colon = v.find(':');
      a.min_bytes = parse_size(v.substr(0, colon)).value_or(a.min_bytes);
      a.max_bytes = parse_size(v.substr(colon + 1)).value_or(a.max_bytes);
    } else if (k == "--iters") {
      a.iters = std::stoi(v);
    } else if (k == "--codec") {
      a.codec = v;
    } else if (k == "--wire") {
      a.wire = v;
    }
  }
  return a;
}

// Average over ranks of each rank's mean time over `iters` runs (after 3 warm-ups).
template <class F>
double timed(const MpiRuntime& rt, int iters, std::vector<float>& buffer,
             const std::vector<float>& input, F&& run) {
  double total = 0;
  for (int it = -3; it < iters; ++it) {
    std::copy(input.begin(), input.end(), buffer.begin());
    rt.barrier();
    double t = run();
    if (it >= 0) total += t;
  }
  return rt.sum(total / iters) / rt.size();
}

}  // namespace

int run(int argc, char** argv) {
  MpiRuntime rt;
  Args a = parse(argc, argv);
  MpiExecutor executor(rt);
  const int n = rt.size();
  const double factor = busbw_factor(CollectiveOp::kAllReduce, n);
  if (rt.root())
    std::printf(
        "# ring all-reduce (commlab MpiExecutor) vs MPI_Allreduce, %d processes, %d iters\n"
        "%12s %12s %12s %10s %10s %7s\n",
        n, a.iters, "size", "ours(us)", "mpi(us)", "ours GB/s", "mpi GB/s", "ratio");
  for (uint64_t bytes = a.min_bytes; bytes <= a.max_bytes; bytes *= 2) {
    const uint64_t count = bytes / sizeof(float);
    std::vector<float> input(count), buffer(count);
    fill_test_input(rt.rank(), input);
    PlanRequest req{CollectiveOp::kAllReduce, n, count};
    req.pipeline.slice_bytes = 0;
    Plan plan = build_plan("ring", req);
    double ours = timed(rt, a.iters, buffer, input,
                        [&] { return executor.run(plan, buffer, MpiExecOptions{}).time_s; });
    double mpi = timed(rt, a.iters, buffer, input,
                       [&] { return native_collective(rt, CollectiveOp::kAllReduce, buffer); });
    if (rt.root()) {
      double ob = bytes / ours / 1e9 * factor, mb = bytes / mpi / 1e9 * factor;
      std::printf("%12llu %12.2f %12.2f %10.3f %10.3f %6.0f%%\n",
                  static_cast<unsigned long long>(bytes), ours * 1e6, mpi * 1e6, ob, mb,
                  100 * ob / mb);
      std::fflush(stdout);
    }
    if (bytes > a.max_bytes / 2) break;
  }

  // The codec path at the largest size: throughput inside the collective vs on its own.
  const uint64_t count = a.max_bytes / sizeof(float);
  const DType dtype = parse_dtype(a.wire);
  std::vector<float> input(count), buffer(count), back(count / n + 1);
  fill_test_input(rt.rank(), input);
  PlanRequest req{CollectiveOp::kAllReduce, n, count};
  req.pipeline.slice_bytes = 0;
  Plan plan = build_plan("ring", req);
  CodecWire wire(a.codec, dtype);
  // Inside: the best of 5 runs after one warm-up (the first run also faults in the executor's
  // wire buffers), the same statistic as the alone figure below.
  double in_path_rate = 0;
  for (int it = -1; it < 5; ++it) {
    std::copy(input.begin(), input.end(), buffer.begin());
    rt.barrier();
    MpiCollectiveReport rep = executor.run(plan, buffer, MpiExecOptions{&wire});
    // decoded bytes; as many were encoded
    const double rate = 2.0 * static_cast<double>(rep.payload_bytes) / rep.codec_s;
    if (it >= 0) in_path_rate = std::max(in_path_rate, rate);
  }
  // Alone: encode + decode of one chunk-sized block of this rank's input on the same wire object,
  // while the other ranks do the same (as they do inside the collective).
  const uint64_t chunk = count / n;
  Transfer t{rt.rank(), (rt.rank() + 1) % n, 0, chunk, true};
  WireContext ctx{&t, 0, 0, 0};
  std::vector<std::byte> bytes;
  double alone_s = 1e30;
  for (int it = -1; it < 5; ++it) {
    rt.barrier();
    auto t0 = std::chrono::steady_clock::now();
    wire.encode(ctx, std::span<const float>(input).first(chunk), bytes);
    wire.decode(ctx, bytes, nullptr, std::span<float>(back).first(chunk));
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (it >= 0) alone_s = std::min(alone_s, took);
  }
  // Bytes through the codec per second of codec time (FP32 input bytes, encoded and decoded).
  const double in_path = rt.sum(in_path_rate) / n;
  const double alone = rt.sum(2.0 * chunk * sizeof(float) / alone_s) / n;
  if (rt.root())
    std::printf(
        "# codec path: %s (%s) at %llu bytes: %.3f GB/s inside the collective, %.3f GB/s "
        "alone (%.0f%%)\n",
        wire.name().c_str(), a.wire.c_str(), static_cast<unsigned long long>(a.max_bytes),
        in_path / 1e9, alone / 1e9, 100 * in_path / alone);
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // e.g. an unknown --codec: one line, not an abort
    std::fprintf(stderr, "mpi_collective_bench: %s\n", e.what());
    return 2;
  }
}
