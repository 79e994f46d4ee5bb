// The measurements behind `calibrate` (calibration.h): all over the runtime's communicator and
// its watchdog. Every size is warmed up once, then timed over enough repetitions to last a few
// milliseconds (at least 9), and their mean counts: `collective --exec mpi` reports the mean over
// its iterations (as nccl-tests does), so the prediction must be built from the same statistic.
#include <algorithm>
#include <cstring>
#include <vector>

#include "collective/codec_wire.h"
#include "collective/reference.h"
#include "exec/calibration.h"
#include "io/status.h"
#if COMMLAB_HAVE_MPI
#include "exec/mpi_detail.h"
#endif

namespace commlab::exec {

#if COMMLAB_HAVE_MPI

namespace {

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double t : v) sum += t;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

int repetitions(uint64_t bytes) {
  return static_cast<int>(
      std::clamp<uint64_t>((64ull << 20) / std::max<uint64_t>(bytes, 1), 9, 200));
}

// One-way time between rank 0 and `peer` (half a round trip); the other ranks wait at the barrier.
double ping_pong(const MpiRuntime& rt, int peer, uint64_t bytes, std::vector<char>& buf) {
  MPI_Comm comm = world(rt);
  const int me = rt.rank(), reps = repetitions(bytes);
  rt.barrier();
  std::vector<double> times;
  if (me == 0 || me == peer) {
    const int other = me == 0 ? peer : 0, n = static_cast<int>(bytes);
    for (int rep = -1; rep < reps; ++rep) {        // rep -1: warm-up
      std::memset(buf.data(), rep & 0x7f, bytes);  // freshly written, as in ring_step below
      const double t0 = MPI_Wtime();
      MPI_Request req;
      if (me == 0) {
        MPI_Isend(buf.data(), n, MPI_BYTE, other, 1, comm, &req);
        wait_one(rt, req, "ping-pong with rank " + std::to_string(other));
        MPI_Irecv(buf.data(), n, MPI_BYTE, other, 1, comm, &req);
        wait_one(rt, req, "ping-pong with rank " + std::to_string(other));
      } else {
        MPI_Irecv(buf.data(), n, MPI_BYTE, other, 1, comm, &req);
        wait_one(rt, req, "ping-pong with rank 0");
        MPI_Isend(buf.data(), n, MPI_BYTE, other, 1, comm, &req);
        wait_one(rt, req, "ping-pong with rank 0");
      }
      if (rep >= 0) times.push_back(MPI_Wtime() - t0);
    }
  }
  return rt.broadcast(me == 0 ? mean(times) / 2 : 0.0, 0);
}

// A ring step: every rank sends `bytes` to the next and receives from the previous at once. Timed
// as a collective runs them: N - 1 steps back to back after one barrier, each forwarding what the
// previous one received (no barrier between steps, so the ranks' drift on an oversubscribed host
// counts as it does in a collective); the mean step of the slowest rank.
double ring_step(const MpiRuntime& rt, uint64_t bytes, std::vector<char>& out,
                 std::vector<char>& in) {
  MPI_Comm comm = world(rt);
  const int me = rt.rank(), n = rt.size(), reps = repetitions(bytes), steps = std::max(1, n - 1);
  const int count = static_cast<int>(bytes);
  std::vector<double> times;
  for (int rep = -1; rep < reps; ++rep) {
    // A collective sends what its rank has just written (the gradients, the reduced chunk): dirty
    // in this core's cache, which costs the peer's copy about twice a clean buffer's between 16 KiB
    // and 1 MiB on a shared-memory host (docs/validation.md). Rewrite it before every repetition;
    // later steps forward the buffer just received, as a ring does.
    std::memset(out.data(), rep & 0x7f, bytes);
    char* send = out.data();
    char* recv = in.data();
    rt.barrier();
    const double t0 = MPI_Wtime();
    for (int step = 0; step < steps; ++step) {
      MPI_Request req[2];
      MPI_Irecv(recv, count, MPI_BYTE, (me + n - 1) % n, 2, comm, &req[0]);
      MPI_Isend(send, count, MPI_BYTE, (me + 1) % n, 2, comm, &req[1]);
      wait_all(rt, req, "a ring step");
      std::swap(send, recv);
    }
    if (rep >= 0) times.push_back((MPI_Wtime() - t0) / steps);
  }
  return rt.max(mean(times));
}

// dst += src over `bytes` per operand on every rank at once (the collectives' reduction), 12 B
// per element / time; the slowest rank counts. Repeated over the same buffers, so sizes that fit
// in cache run from cache, as a collective's small chunks do.
double reduce_speed(const MpiRuntime& rt, uint64_t bytes) {
  const uint64_t count = std::max<uint64_t>(bytes / sizeof(float), 1);
  std::vector<float> dst(count, 1.0f), src(count, 2.0f);
  const int reps =
      std::clamp<int>(static_cast<int>((32ull << 20) / (count * sizeof(float))), 4, 64);
  std::vector<double> times;
  for (int rep = -1; rep < reps; ++rep) {
    rt.barrier();
    const double t0 = MPI_Wtime();
    for (uint64_t i = 0; i < count; ++i) dst[i] += src[i];
    if (rep >= 0) times.push_back(MPI_Wtime() - t0);
  }
  volatile float sink = dst[count / 2];
  (void)sink;
  return 3.0 * sizeof(float) * static_cast<double>(count) / rt.max(mean(times));
}

// Encode + decode of a 4 MiB buffer of the collective's test data, on every rank at once.
CodecSpeed codec_speed(const MpiRuntime& rt, const std::string& name, DType dtype) {
  const uint64_t count = 1ull << 20;
  std::vector<float> values(count), back(count);
  for (uint64_t i = 0; i < count; ++i) values[i] = test_value(rt.rank(), i);
  CodecWire wire(name, dtype);
  Transfer t{0, 1, 0, count, true};
  WireContext ctx{&t, 0, 0, 0};
  std::vector<std::byte> bytes;
  double best = 1e30;
  for (int rep = 0; rep < 4; ++rep) {
    rt.barrier();
    const double t0 = MPI_Wtime();
    wire.encode(ctx, values, bytes);
    wire.decode(ctx, bytes, nullptr, back);
    best = std::min(best, MPI_Wtime() - t0);
  }
  const double input = static_cast<double>(count * dtype_size(dtype));
  return {wire.name(), dtype, 2.0 * input / rt.max(best), bytes.size() / input};
}

}  // namespace

Calibration run_calibration(const MpiRuntime& rt, const CalibrationOptions& options) {
  if (rt.size() < 2) throw bad_input("calibrate needs at least 2 processes");
  Calibration c;
  c.ranks = rt.size();
  c.hosts = rt.hosts();
  c.host_name = rt.host_name();
  c.oversubscribed = rt.max(rt.oversubscribed() ? 1 : 0) > 0;
  for (int r = 0; r < rt.size(); ++r) c.host_of.push_back(rt.host_of(r));
  int same = -1, other = -1;
  for (int r = 1; r < rt.size(); ++r) {
    if (same < 0 && rt.host_of(r) == rt.host_of(0)) same = r;
    if (other < 0 && rt.host_of(r) != rt.host_of(0)) other = r;
  }
  std::vector<char> a(options.max_bytes, 1), b(options.max_bytes, 2);
  std::vector<std::pair<uint64_t, double>> pp_same, pp_other, ring;
  for (uint64_t bytes = options.min_bytes; bytes <= options.max_bytes; bytes *= 2) {
    if (same > 0) pp_same.emplace_back(bytes, ping_pong(rt, same, bytes, a));
    if (other > 0) pp_other.emplace_back(bytes, ping_pong(rt, other, bytes, a));
    ring.emplace_back(bytes, ring_step(rt, bytes, a, b));
  }
  if (!pp_same.empty()) c.same_host = fit_latency_bandwidth(pp_same);
  if (!pp_other.empty()) c.other_host = fit_latency_bandwidth(pp_other);
  c.ring = fit_latency_bandwidth(ring);
  for (uint64_t bytes = 4096; bytes <= (32ull << 20); bytes *= 4)
    c.reduce_samples.emplace_back(bytes, reduce_speed(rt, bytes));
  c.reduce_Bps = c.reduce_samples.back().second;  // from memory: the conservative figure
  for (const std::string& name : options.codecs)
    for (DType dtype : {DType::kFp32, DType::kBf16})
      c.codecs.push_back(codec_speed(rt, name, dtype));
  return c;
}

#else

Calibration run_calibration(const MpiRuntime&, const CalibrationOptions&) {
  throw MpiUnavailable(launch_hint("calibrate"));
}

#endif

}  // namespace commlab::exec
