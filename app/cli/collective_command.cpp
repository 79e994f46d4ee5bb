// commlab-cli collective: times collectives like nccl-tests and verifies the reduced buffers.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "cli/command.h"
#include "cli/util/collective_options.h"
#include "cli/util/experiment_files_util.h"
#include "cli/util/flag_parse_util.h"
#include "cli/util/network_util.h"
#include "collective/algorithms.h"
#include "collective/codec_wire.h"
#include "collective/nccl/nccl_run.h"
#include "collective/reference.h"
#include "collective/simulated_executor.h"
#include "io/size_parse.h"
#include "scenario/scenario.h"
#include "topology/topology.h"

namespace commlab::cli {

std::pair<uint64_t, uint64_t> parse_size_range(const std::string& text) {
  auto colon = text.find(':');
  auto lo = parse_size(text.substr(0, colon));
  auto hi = colon == std::string::npos ? lo : parse_size(text.substr(colon + 1));
  if (!lo || !hi || *lo == 0 || *hi < *lo)
    throw InvalidInput(
        "--sizes: expected MIN:MAX with byte sizes such as 1K:64M (K/M/G suffixes), "
        "got '" +
        text + "'");
  // Every row is MIN x 2^k bytes of 4-byte elements: a MIN of 3 would be reported as 4.
  if (*lo % sizeof(float) != 0)
    throw InvalidInput("--sizes: MIN must be a multiple of the 4-byte element, got " +
                       std::to_string(*lo) + " bytes in '" + text + "'");
  // With at most 2^20 ranks, no algorithm's bytes_on_wire (about 2 x ranks x size) can overflow.
  if (*hi > kMaxCollectiveBytes)
    throw InvalidInput("--sizes: MAX must be at most " + format_size(kMaxCollectiveBytes) +
                       " per rank, got " + std::to_string(*hi) + " bytes in '" + text + "'");
  return {*lo, *hi};
}

void check_skip(const CollectiveOptions& o, const std::string& algorithm, int ranks) {
  if (std::optional<Status> bad = skip_problem(algorithm, ranks, o.skip)) throw_flag_error(*bad);
}

std::unique_ptr<TransferCodec> make_transfer_codec(const CollectiveOptions& o, double cpu_Bps) {
  if (o.wire != "fp32" && o.wire != "bf16")
    throw InvalidInput("--wire: expected fp32 or bf16, got '" + o.wire + "'");
  if (o.codec.empty()) return o.wire == "bf16" ? std::make_unique<Bf16Wire>() : nullptr;
  PlacementModel placement;
  if (cpu_Bps > 0) placement = PlacementModel{CodecPlacement::kCpu, 0, 0, cpu_Bps};
  try {
    return std::make_unique<CodecWire>(o.codec, parse_dtype(o.wire), placement);
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(std::string("--codec: ") + e.what());
  }
}

double verify_tolerance(const CollectiveOptions& o, int ranks) {
  // BF16 rounds each hop's partial sum to 8 bits of mantissa: |error| <= 2^-8 relative per hop on
  // sums of at most 3 * ranks in magnitude (test_value), over at most `ranks` hops.
  const double bf16 = 0.02 * 6.0 * 3 * ranks * ranks;
  if (o.codec.empty()) return o.wire == "bf16" ? bf16 : 0.0;
  auto probe = make_codec(o.codec);
  if (!probe->lossless()) return -1;
  return o.wire == "bf16" ? bf16 : 0.0;
}

namespace collective_command {
namespace {

// Fails on a bad name or an oversized plan before printing anything (and before the tuner's
// set-up, which takes seconds on a million ranks). Under auto the ring is the plan checked: the
// tuner's other choice, NCCL's tree, needs fewer transfers.
void check_plans(const CollectiveOptions& o, CollectiveOp op, const std::string& plan_algo,
                 int ranks, uint64_t min_bytes, uint64_t max_bytes) {
  PlanRequest probe{op, ranks, 1, o.time_only};
  probe.ranks_per_node = std::max(o.ranks_per_node, 1);
  try {
    check_plan_sizes(plan_algo, probe, min_bytes, max_bytes);
  } catch (const std::invalid_argument& e) {
    if (o.algo != "auto") throw;
    throw InvalidInput(std::string("--algo auto (NCCL's tuner, whose ring is checked): ") +
                       e.what());
  }
}

// Everything a table of sizes shares, checked before its header is printed.
struct CollectiveSetup {
  uint64_t min_bytes = 0, max_bytes = 0;
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::string plan_algo;  // the algorithm's plans (under auto, NCCL's tuner picks per size)
  std::unique_ptr<NetworkBackend> backend;
  int ranks = 0;
  // NCCL mode (--algo auto, --proto, --channels): the tuner picks algorithm, protocol and
  // channels per size and the time plane runs them (collective/nccl/tuner.h, docs/collectives.md).
  bool nccl = false;
  NcclOverrides force;
  std::optional<NcclTuner> tuner;
  SkipConfig skip;
  PipelineConfig pipeline;
  int ranks_per_node = 1;
  std::unique_ptr<TransferCodec> codec;
};

PipelineConfig parse_pipeline(const CollectiveOptions& o) {
  PipelineConfig pipeline;
  for (auto [flag, text, field] :
       {std::tuple{"--slice-bytes", &o.slice_bytes, &pipeline.slice_bytes},
        std::tuple{"--chunk-bytes", &o.chunk_bytes, &pipeline.chunk_bytes}}) {
    auto v = *text == "0" ? std::optional<uint64_t>(0) : parse_size(*text);
    if (!v)
      throw InvalidInput(std::string(flag) + ": expected a byte size such as 512K or 0, got '" +
                         *text + "'");
    *field = *v;
  }
  return pipeline;
}

CollectiveSetup prepare(const CollectiveOptions& o) {
  CollectiveSetup c;
  std::tie(c.min_bytes, c.max_bytes) = parse_size_range(o.sizes);
  c.op = parse_op(o.op);
  c.plan_algo = o.algo == "auto" ? "ring" : o.algo;
  // A flat network has --ranks ranks: its plans are checked before it is built (a million ranks'
  // nodes and routes take seconds); a cluster's ranks are known once it is built.
  if (o.net.cluster.empty()) check_plans(o, c.op, c.plan_algo, o.ranks, c.min_bytes, c.max_bytes);
  c.backend = make_backend(o.net, o.ranks, o.routing);
  c.ranks = c.backend->topology().ranks();
  c.nccl = o.algo == "auto" || !o.proto.empty() || o.channels > 0;
  if (c.nccl) c.force = parse_nccl_overrides(o.algo, o.proto, o.channels);
  check_plans(o, c.op, c.plan_algo, c.ranks, c.min_bytes, c.max_bytes);
  if (c.nccl)
    c.tuner.emplace(tuner_inputs(c.backend->topology(), o.channels > 0 ? o.channels : 16));
  check_skip(o, c.plan_algo, c.ranks);  // a skip the plan would clamp is refused, as scenarios do
  c.skip = SkipConfig{o.skip, parse_skip_policy(o.skip_policy), o.seed, o.unbiased};
  c.pipeline = parse_pipeline(o);
  c.ranks_per_node = o.ranks_per_node > 0 ? o.ranks_per_node : backend_ranks_per_node(*c.backend);
  {  // A skip or node size the algorithm refuses fails here, before the table's header.
    PlanRequest probe{c.op, c.ranks, std::max<uint64_t>(c.min_bytes / sizeof(float), 1),
                      o.time_only};
    probe.ranks_per_node = c.ranks_per_node;
    probe.skip = decide_skip(c.skip, c.ranks, 0, "bucket0", probe.count, o.iteration);
    build_plan(c.plan_algo, probe);
  }
  c.codec = make_transfer_codec(o);
  const uint64_t data_budget = 6ull << 30;  // inputs + outputs of every rank
  if (!o.time_only && 2 * static_cast<double>(c.ranks) * c.max_bytes > data_budget)
    throw InvalidInput("the data plane would need " +
                       std::to_string(2 * c.ranks * (c.max_bytes >> 20)) + " MiB for " +
                       std::to_string(c.ranks) + " ranks x " + format_size(c.max_bytes) +
                       "; lower --sizes or add --time-only");
  return c;
}

void print_header(const CollectiveOptions& o, const CollectiveSetup& c) {
  std::printf("# commlab collective: algo %s, op %s, %d ranks, backend %s (%s), wire %s%s%s\n",
              o.algo.c_str(), op_name(c.op), c.ranks, c.backend->name().c_str(),
              c.backend->topology().name().c_str(), o.wire.c_str(),
              o.codec.empty() ? "" : (", codec " + o.codec).c_str(),
              o.time_only ? ", time only (not verified)" : "");
  std::printf("%12s %12s %8s %8s %7s %12s %12s %12s %7s%s\n", "size", "count", "type", "redop",
              "steps", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong",
              c.nccl ? "   algo  proto channels" : "");
}

// One row of the table: a collective of `count` elements per rank, timed and (unless time only)
// verified.
struct SizeRow {
  uint64_t count = 0;
  CollectiveReport report;
  std::optional<NcclChoice> choice;  // NCCL mode: what the tuner picked
  bool ok = true;
};

SizeRow run_size(const CollectiveOptions& o, CollectiveSetup& c, uint64_t bytes) {
  SizeRow row;
  row.count = std::max<uint64_t>(bytes / sizeof(float), 1);
  PlanRequest req{c.op, c.ranks, row.count, o.time_only, {}, o.unbiased, c.ranks_per_node};
  req.skip = decide_skip(c.skip, c.ranks, 0, "bucket0", row.count, o.iteration);
  req.pipeline = c.pipeline;
  std::optional<NcclPlan> nccl_plan;
  if (c.nccl) nccl_plan = plan_nccl(*c.tuner, req, c.force);
  const NcclSetup* ns = nccl_plan ? &nccl_plan->setup : nullptr;
  const Plan plan = nccl_plan ? std::move(nccl_plan->plan) : build_plan(c.plan_algo, req);
  std::optional<ChannelBackend> channels;
  if (ns) channels.emplace(*c.backend, ns->channel);
  ExecutorOptions ex{ns ? &*channels : c.backend.get(), c.codec.get(), o.reduce_gbps * 1e9};
  ex.iteration = o.iteration;
  std::vector<std::vector<float>> inputs, outputs;
  std::vector<std::span<float>> views;
  if (!o.time_only) {
    inputs.assign(c.ranks, std::vector<float>(row.count));
    for (int r = 0; r < c.ranks; ++r)
      for (uint64_t i = 0; i < row.count; ++i) inputs[r][i] = test_value(r, i);
    outputs = inputs;
    for (auto& b : outputs) views.emplace_back(b);
  }
  row.report = execute_plan(plan, views, ex);
  if (ns) {
    row.report.time_s += ns->base_latency_s;
    row.choice = ns->choice;
  }
  if (!o.time_only) {
    const double tol = verify_tolerance(o, c.ranks);
    Verification v = verify_collective(plan, inputs, views, tol < 0 ? INFINITY : tol);
    row.ok = v.ok;
    if (!v.ok) std::cerr << "commlab-cli: verification failed: " << v.first_mismatch << "\n";
  }
  return row;
}

nlohmann::json row_json(const SizeRow& row, double algbw, double busbw) {
  nlohmann::json j = {{"size_bytes", row.count * sizeof(float)},
                      {"count", row.count},
                      {"time_us", row.report.time_s * 1e6},
                      {"algbw_gbps", algbw},
                      {"busbw_gbps", busbw},
                      {"steps", row.report.steps},
                      {"bytes_on_wire", row.report.bytes_on_wire}};
  if (row.choice)
    j.update({{"algo", nccl_algo_name(row.choice->algo)},
              {"proto", protocol_name(row.choice->proto)},
              {"channels", row.choice->channels},
              {"nccl_model_us", row.choice->predicted_s * 1e6}});
  return j;
}

void print_row(const CollectiveOptions& o, CollectiveOp op, const SizeRow& row, double algbw,
               double busbw) {
  std::printf("%12llu %12llu %8s %8s %7llu %12.2f %12.3f %12.3f %7s",
              static_cast<unsigned long long>(row.count * sizeof(float)),
              static_cast<unsigned long long>(row.count), "float",
              op == CollectiveOp::kAllGather || op == CollectiveOp::kBroadcast ? "none" : "sum",
              static_cast<unsigned long long>(row.report.steps), row.report.time_s * 1e6, algbw,
              busbw, o.time_only ? "n/a" : (row.ok ? "0" : "1"));
  if (row.choice)
    std::printf(" %6s %6s %8d", nccl_algo_name(row.choice->algo), protocol_name(row.choice->proto),
                row.choice->channels);
  std::printf("\n");
}

int run(const CollectiveOptions& o) {
  if (parse_exec_flag(o.exec) == ExecutionMode::kMpi) return run_collective_mpi(o);
  CollectiveSetup c = prepare(o);
  if (!o.json) print_header(o, c);
  nlohmann::json rows = nlohmann::json::array();
  bool all_ok = true;
  for (uint64_t bytes = c.min_bytes; bytes <= c.max_bytes; bytes *= 2) {
    const SizeRow row = run_size(o, c, bytes);
    all_ok &= row.ok;
    const double size_bytes = static_cast<double>(row.count * sizeof(float));
    const double algbw = row.report.time_s > 0 ? size_bytes / row.report.time_s / 1e9 : 0;
    const double busbw = algbw * busbw_factor(c.op, c.ranks);
    if (o.json)
      rows.push_back(row_json(row, algbw, busbw));
    else
      print_row(o, c.op, row, algbw, busbw);
    if (bytes > c.max_bytes / 2) break;  // avoid overflow at the top of the range
  }
  if (o.json) {
    nlohmann::json doc = {
        {"rows", rows},
        {"algo", o.algo},
        {"ranks", c.ranks},
        {"op", op_name(c.op)},
        {"backend", c.backend->name()},
        {"routing", o.routing},
        {"verified", o.time_only ? nlohmann::json(nullptr) : nlohmann::json(all_ok)}};
    std::cout << doc.dump(2) << "\n";
  }
  return all_ok ? kExitOk : kExitFailed;
}

const RegisterCommand reg{Command{
    "collective", "time collectives like nccl-tests on real, verified buffers", [](CLI::App& app) {
      auto o = std::make_shared<CollectiveOptions>();
      app.add_option("--algo", o->algo, "ring, tree, hd, hier, direct, or auto (NCCL's tuner)")
          ->capture_default_str();
      app.add_option("--proto", o->proto, "NCCL protocol: auto, simple, ll or ll128 (NCCL mode)");
      app.add_option("--channels", o->channels, "NCCL channels (NCCL mode; 0: the tuner's)")
          ->check(in_range(0, 64));
      app.add_option("--op", o->op, "allreduce, reducescatter, allgather or broadcast")
          ->capture_default_str();
      app.add_option("--ranks", o->ranks, "ranks on a flat alpha-beta network")
          ->check(in_range(kCollectiveRanks))
          ->capture_default_str();
      app.add_option("--ranks-per-node", o->ranks_per_node,
                     "ranks per node for --algo hier (default: from the cluster, else 8)")
          ->check(in_range(1, 1 << 20));
      add_network_flags(app, o->net);
      add_routing_flag(app, o->routing);
      app.add_option("--sizes", o->sizes, "MIN:MAX bytes per rank, doubling (K/M/G suffixes)")
          ->capture_default_str();
      app.add_option("--skip", o->skip,
                     "SkipReduce: steps to skip, ring at most N-1; tree and hd analogues, at most "
                     "log2 N (docs/collectives.md)");
      app.add_option("--skip-policy", o->skip_policy, "naive, random or selective")
          ->capture_default_str();
      app.add_flag("--unbiased", o->unbiased, "rescale skipped chunks by N/(N-s)");
      app.add_option("--seed", o->seed, "seed for random skipping")->capture_default_str();
      app.add_option("--iteration", o->iteration, "iteration number (random skip rotation)");
      app.add_option("--wire", o->wire, "fp32 or bf16 on the wire")->capture_default_str();
      app.add_option("--reduce-gbps", o->reduce_gbps,
                     "GPU memory bandwidth for the reduction, GB/s (0: not charged)")
          ->check(kNonNegative);
      app.add_option("--slice-bytes", o->slice_bytes,
                     "ring time plane: NCCL slice size (0: bulk-synchronous steps)")
          ->capture_default_str();
      app.add_option("--chunk-bytes", o->chunk_bytes,
                     "ring time plane: per-rank chunk of one loop (0: one loop)")
          ->capture_default_str();
      app.add_flag("--time-only", o->time_only,
                   "skip the data plane (no buffers, no verification)");
      app.add_flag("--json", o->json, "one JSON document on stdout");
      app.add_option("--codec", o->codec,
                     "a stateless codec on every transfer (codec names: commlab-cli codec); the "
                     "values are cast to --wire first")
          ->capture_default_str();
      app.add_option(
             "--exec", o->exec,
             "simulated (or sim: the simulated cluster) or mpi (one real process per rank, under "
             "mpirun), as run --exec")
          ->capture_default_str();
      app.add_option("--warmup", o->warmup, "--exec mpi: untimed iterations per size")
          ->check(kNonNegative)
          ->capture_default_str();
      app.add_option("--iters", o->iters, "--exec mpi: timed iterations per size")
          ->check(kPositive)
          ->capture_default_str();
      app.add_option("--timeout", o->timeout_s,
                     "--exec mpi: seconds without an answer from a peer before the job is ended")
          ->check(kPositive)
          ->capture_default_str();
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace collective_command
}  // namespace commlab::cli
