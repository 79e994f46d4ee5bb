// `commlab-cli collective --exec mpi`: one real process per rank (core/exec), the nccl-tests
// table with min/avg/max over ranks, #wrong from each rank's verification, and beside it what the
// simulator predicts for the same plan on the calibrated cluster (`--cluster` from calibrate).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/util/collective_options.h"
#include "collective/algorithms.h"
#include "collective/simulated_executor.h"
#include "exec/calibration.h"
#include "exec/mpi_executor.h"
#include "exec/mpi_runtime.h"
#include "exec/rank_reference.h"
#include "topology/topology.h"
#include "topology/topology_json.h"

namespace commlab::cli {

namespace {

using exec::MpiRuntime;

struct Row {
  uint64_t count = 0;
  uint64_t steps = 0;
  double avg_s = 0, min_s = 0, max_s = 0;
  double wrong = 0;  // summed over ranks; < 0: not verifiable (lossy codec)
  double bytes_sent = 0;
  std::optional<double> predicted_s;
};

// The plan's largest message in wire bytes (before any codec): the step that costs most.
uint64_t largest_message(const Plan& plan, const std::string& wire) {
  uint64_t most = 0;
  for (const PlanStep& step : plan.steps)
    for (const Transfer& t : step.transfers) most = std::max(most, t.count);
  return most * dtype_size(parse_dtype(wire));
}

// What the simulator predicts for the plan on the calibrated cluster (rank 0 only). The
// calibration is taken at the plan's largest message (Calibration::at_message): the link
// bandwidths and reduction speed measured at that size, not the one line through all sizes.
double predict(const Plan& plan, const NetworkFlags& net, const exec::Calibration& measured,
               const CollectiveOptions& o) {
  const exec::Calibration cal = measured.at_message(largest_message(plan, o.wire));
  std::unique_ptr<NetworkBackend> owned =
      make_backend(net.backend, topology_from_json(exec::calibration_to_json(cal)));
  NetworkBackend& backend = *owned;
  std::string codec_name = o.codec;
  double cpu_Bps = 0;
  if (!o.codec.empty()) {
    cpu_Bps = cal.codec_Bps(make_codec(o.codec)->name(), parse_dtype(o.wire));
    if (cpu_Bps == 0)
      std::cerr << "commlab-cli: the calibration has no speed for codec " << o.codec << " ("
                << o.wire << "): its time is the default placement's\n";
  }
  std::unique_ptr<TransferCodec> codec = make_transfer_codec(o, cpu_Bps);
  ExecutorOptions ex{&backend, codec.get(), cal.reduce_Bps};
  ex.iteration = o.iteration;
  std::vector<std::vector<float>> buffers;
  std::vector<std::span<float>> views;
  if (codec) {  // the wire size of a codec depends on the bytes: run the data plane too
    buffers.assign(plan.ranks, std::vector<float>(plan.count));
    for (int r = 0; r < plan.ranks; ++r) {
      exec::fill_test_input(r, buffers[r]);
      views.emplace_back(buffers[r]);
    }
  }
  return execute_plan(plan, views, ex).time_s;
}

Row run_size(const MpiRuntime& rt, exec::MpiExecutor& executor, const Plan& plan,
             TransferCodec* codec, double tolerance, const CollectiveOptions& o) {
  Row row;
  row.count = plan.count;
  std::vector<float> input(plan.count), buffer(plan.count);
  exec::fill_test_input(rt.rank(), input);
  exec::MpiExecOptions mo{codec, o.iteration, 0};
  double total = 0;
  exec::MpiCollectiveReport rep;
  for (int it = 0; it < o.warmup + o.iters; ++it) {
    std::copy(input.begin(), input.end(), buffer.begin());
    rt.barrier();  // every iteration starts together, as the simulator's does
    rep = executor.run(plan, buffer, mo);
    if (it >= o.warmup) total += rep.time_s;
  }
  const double mine = total / o.iters;
  row.steps = rep.steps;
  row.avg_s = rt.sum(mine) / rt.size();
  row.min_s = rt.min(mine);
  row.max_s = rt.max(mine);
  row.bytes_sent = rt.sum(static_cast<double>(rep.bytes_sent));
  if (tolerance >= 0) {
    exec::RankVerification v = exec::verify_rank(plan, rt.rank(), buffer, tolerance);
    if (v.wrong) std::cerr << "commlab-cli: verification failed: " << v.first_mismatch << "\n";
    row.wrong = rt.sum(static_cast<double>(v.wrong));
  } else {
    row.wrong = -1;
  }
  return row;
}

int run_in_job(const MpiRuntime& rt, const CollectiveOptions& o) {
  auto [min_bytes, max_bytes] = parse_size_range(o.sizes);
  const int ranks = rt.size();
  const CollectiveOp op = parse_op(o.op);
  std::optional<exec::Calibration> cal;
  std::unique_ptr<NetworkBackend> backend;
  if (!o.net.cluster.empty()) {
    backend = make_backend(o.net, ranks);
    cal = exec::read_calibration(o.net.cluster);
    if (backend->topology().ranks() != ranks)
      throw InvalidInput("--cluster " + o.net.cluster + " has " +
                         std::to_string(backend->topology().ranks()) + " ranks but the job has " +
                         std::to_string(ranks) + " processes (calibrate with the same -np)");
  }
  if (o.time_only) throw InvalidInput("--time-only: --exec mpi always moves real buffers");
  if (static_cast<double>(max_bytes) * 3 > 3.0 * (1ull << 30))
    throw InvalidInput("--sizes: at most 1G per rank with --exec mpi");
  check_skip(o, o.algo, ranks);
  SkipConfig skip{o.skip, parse_skip_policy(o.skip_policy), o.seed, o.unbiased};
  const int ranks_per_node = o.ranks_per_node > 0 ? o.ranks_per_node
                             : backend            ? backend_ranks_per_node(*backend)
                                                  : std::max(1, ranks / std::max(1, rt.hosts()));
  std::unique_ptr<TransferCodec> codec = make_transfer_codec(o);
  const double tolerance = verify_tolerance(o, ranks);
  exec::MpiExecutor executor(rt);

  if (rt.root() && !o.json) {
    std::printf(
        "# commlab collective --exec mpi: algo %s, op %s, %d processes on %d host(s)%s, wire %s%s, "
        "%d warm-up + %d timed iterations, bulk-synchronous steps\n",
        o.algo.c_str(), op_name(op), ranks, rt.hosts(),
        rt.max(rt.oversubscribed()) > 0 ? " (oversubscribed)" : "", o.wire.c_str(),
        o.codec.empty() ? "" : (", codec " + o.codec).c_str(), o.warmup, o.iters);
    std::printf("# prediction: %s\n", cal ? ("calibrated cluster " + o.net.cluster).c_str()
                                          : "uncalibrated (pass --cluster FILE from `calibrate`)");
    std::printf("%12s %12s %6s %5s %5s %11s %11s %11s %9s %9s %7s %11s %8s\n", "size", "count",
                "type", "redop", "steps", "time(us)", "min(us)", "max(us)", "algbw", "busbw",
                "#wrong", "pred(us)", "err(%)");
  } else if (!o.json) {
    rt.max(rt.oversubscribed());  // the same collective calls on every rank
  }
  nlohmann::json rows = nlohmann::json::array();
  bool all_ok = true;
  for (uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
    const uint64_t count = std::max<uint64_t>(bytes / sizeof(float), 1);
    PlanRequest req{op, ranks, count, false, {}, o.unbiased, ranks_per_node};
    req.skip = decide_skip(skip, ranks, 0, "bucket0", count, o.iteration);
    req.pipeline.slice_bytes = 0;  // the real executor runs whole steps
    Plan plan = build_plan(o.algo, req);
    Row row = run_size(rt, executor, plan, codec.get(), tolerance, o);
    if (rt.root() && backend && cal) row.predicted_s = predict(plan, o.net, *cal, o);
    all_ok &= row.wrong <= 0;
    if (!rt.root()) continue;
    const double size_bytes = static_cast<double>(count * sizeof(float));
    const double algbw = size_bytes / row.avg_s / 1e9;
    const double busbw = algbw * busbw_factor(op, ranks);
    std::optional<double> err;
    if (row.predicted_s) err = (*row.predicted_s - row.avg_s) / row.avg_s * 100;
    if (o.json) {
      rows.push_back(
          {{"size_bytes", count * sizeof(float)},
           {"count", count},
           {"time_us", row.avg_s * 1e6},
           {"time_min_us", row.min_s * 1e6},
           {"time_max_us", row.max_s * 1e6},
           {"algbw_gbps", algbw},
           {"busbw_gbps", busbw},
           {"steps", row.steps},
           {"bytes_on_wire", row.bytes_sent},
           {"wrong", row.wrong < 0 ? nlohmann::json(nullptr) : nlohmann::json(row.wrong)},
           {"predicted_us",
            row.predicted_s ? nlohmann::json(*row.predicted_s * 1e6) : nlohmann::json(nullptr)},
           {"error_pct", err ? nlohmann::json(*err) : nlohmann::json(nullptr)}});
    } else {
      char pred[32] = "-", errs[32] = "-";
      if (row.predicted_s) std::snprintf(pred, sizeof pred, "%.2f", *row.predicted_s * 1e6);
      if (err) std::snprintf(errs, sizeof errs, "%+.1f", *err);
      std::printf("%12llu %12llu %6s %5s %5llu %11.2f %11.2f %11.2f %9.3f %9.3f %7s %11s %8s\n",
                  static_cast<unsigned long long>(count * sizeof(float)),
                  static_cast<unsigned long long>(count), "float",
                  op == CollectiveOp::kAllGather || op == CollectiveOp::kBroadcast ? "none" : "sum",
                  static_cast<unsigned long long>(row.steps), row.avg_s * 1e6, row.min_s * 1e6,
                  row.max_s * 1e6, algbw, busbw,
                  row.wrong < 0 ? "n/a" : std::to_string(static_cast<long long>(row.wrong)).c_str(),
                  pred, errs);
      std::fflush(stdout);
    }
    if (bytes > max_bytes / 2) break;
  }
  if (rt.root() && o.json) {
    nlohmann::json doc = {
        {"rows", rows},
        {"algo", o.algo},
        {"ranks", ranks},
        {"op", op_name(op)},
        {"exec", "mpi"},
        {"hosts", rt.hosts()},
        {"warmup", o.warmup},
        {"iters", o.iters},
        {"calibrated", cal.has_value()},
        {"verified", tolerance < 0 ? nlohmann::json(nullptr) : nlohmann::json(all_ok)}};
    std::cout << doc.dump(2) << "\n";
  }
  return all_ok ? kExitOk : kExitFailed;
}

}  // namespace

int run_collective_mpi(const CollectiveOptions& o) {
  if (!exec::mpi_built() || !exec::launched_by_mpirun())
    throw InvalidInput(exec::launch_hint("collective"));
  MpiRuntime rt(exec::RuntimeOptions{o.timeout_s});
  std::vector<std::string> files;
  if (o.net.cluster.ends_with(".json")) files.push_back(o.net.cluster);
  const std::string mismatch =
      rt.check_same_inputs(exec::hash_inputs(exec::process_arguments(), files));
  if (!mismatch.empty()) {
    rt.report_everywhere(mismatch);
    throw AlreadyReported(kExitInvalid);
  }
  try {
    return run_in_job(rt, o);
  } catch (const InvalidInput&) {
    throw;  // the same on every rank: each exits 2 after MPI_Finalize
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::exception& e) {
    rt.abort(std::string("failed: ") + e.what());  // one rank's failure ends the job
  }
}

}  // namespace commlab::cli
