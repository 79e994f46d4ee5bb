// commlab-cli workload: iteration time of a catalog workload (GPT-3 175B, Llama-3, Mixtral, ...)
// or of a Chakra execution trace on a cluster. The default engine generates the iteration as a
// graph per rank (workload/catalog/catalog_graph.h) and replays it (workload/scheduler.h): overlap,
// pipeline bubbles and all-to-alls as they happen; `--engine sum` keeps the closed form that
// counts every message fully exposed. Both time the run twice: as is, and with the techniques.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/util/flag_parse_util.h"
#include "cli/util/network_util.h"
#include "collective/codec_wire.h"
#include "collective/collective_settings.h"
#include "network/analytical.h"
#include "scenario/run/catalog_run.h"
#include "scenario/scenario.h"
#include "topology/gpu_presets.h"
#include "topology/topology.h"
#include "workload/catalog/catalog_graph.h"
#include "workload/catalog/catalog_settings.h"
#include "workload/chakra_trace.h"
#include "workload/scheduler.h"
#include "workload/workload_timing.h"

namespace commlab::cli {
namespace workload_command {
namespace {

using workload::CommKind;

struct Options {
  std::string catalog = "gpt3-175b";
  std::string trace;  // DIR/PREFIX of a Chakra trace (instead of --catalog)
  std::string engine = "graph";
  NetworkFlags net;
  int dp = 0, tp = 4, pp = 1, ep = 1, micro_batch = 1, global_batch = 128;
  int seq = 0;  // 0: the model's own sequence length
  std::string gpu = "h100";
  double mfu = 0.4;
  double ratio = 0;  // 0: measure --codec on --tensor-source
  std::string codec = "none";
  std::string comm_groups;  // --trace: the communicator-group file (default: found by prefix)
  uint64_t max_trace_nodes = workload::ChakraReadBudgets{}.nodes;  // --trace: the node budget
  std::string codec_placement = "nic";  // where encode + decode run: nic (free), gpu or cpu
  std::string source = "gaussian";
  int skip = 0;
  std::string grad_dtype = "bf16";
  double bucket_mb = 25;
  bool no_overlap = false, no_distributed_optimizer = false;
  std::string emit_trace;
  std::string p2p = "eager";           // point-to-point semantics (workload::P2pMode)
  std::string comm_issue = "overlap";  // how a rank issues communication (workload::CommIssue)
  std::string routing = "ecmp";        // analytical backend: per-flow ECMP or ideal (RoutingMode)
  bool json = false;
  // The first flag given that shapes a catalog model only (--catalog, --tp, ...), as typed
  // ("--tp 2"): a trace has its own ranks and groups, so it is refused with --trace.
  std::string catalog_flag;
};

struct Timing {  // one replay (or the closed form), in the JSON's terms
  WorkloadTiming w;
  bool graph = false;  // replayed: the fields below are set
  std::array<double, workload::kCommKinds> total_s{};
  uint64_t nodes = 0, collectives = 0, p2p = 0;
  uint64_t unreceived_sends = 0;  // eager sends no recv matched
  double wall_s = 0;
  std::vector<TierImbalance> tiers;  // analytical backend: link bytes per tier
  bool ecmp_choices = false;         // analytical backend: some flow had equal-cost paths
};

// The backend under `routing`, counting link bytes when it is the analytical backend.
std::unique_ptr<NetworkBackend> routed_backend(const Options& o, int ranks, RoutingMode routing) {
  auto backend = make_backend(o.net, ranks, routing_mode_name(routing));
  if (auto* analytical = dynamic_cast<AnalyticalBackend*>(backend.get()))
    analytical->set_link_accounting(true);
  return backend;
}

std::vector<TierImbalance> tiers_of(const NetworkBackend& backend) {
  auto* analytical = dynamic_cast<const AnalyticalBackend*>(&backend);
  return analytical ? tier_loads(analytical->topology(), analytical->link_bytes())
                    : std::vector<TierImbalance>{};
}

bool had_ecmp_choices(const NetworkBackend& backend) {
  auto* analytical = dynamic_cast<const AnalyticalBackend*>(&backend);
  return analytical && analytical->router().had_choice();
}

nlohmann::json to_json(const std::vector<TierImbalance>& tiers, const std::string& name) {
  const TierImbalance t = find_tier(tiers, name);
  return {{"tier", t.tier},
          {"busiest_link_bytes", t.busiest_bytes},
          {"tier_mean_bytes", t.mean_bytes},
          {"busiest_over_mean", t.ratio()},
          {"busiest_link_busy_s", t.busiest_s},
          {"busy_over_endpoint_links", busy_over_endpoints(tiers, name)}};
}

nlohmann::json to_json(const Timing& t) {
  nlohmann::json j = {{"iteration_s", t.w.iteration_s},
                      {"compute_s", t.w.compute_s},
                      {"tp_s", t.w.tp_s},
                      {"dp_s", t.w.dp_s},
                      {"pp_s", t.w.pp_s},
                      {"ep_s", t.w.ep_s},
                      {"codec_s", t.w.codec_s}};
  if (!t.graph) return j;
  j["other_s"] = t.w.other_s;
  j["idle_s"] = t.w.idle_s;
  j["comm_total_s"] = {{"tp", t.total_s[0]},
                       {"dp", t.total_s[1]},
                       {"pp", t.total_s[2]},
                       {"ep", t.total_s[3]},
                       {"other", t.total_s[4]}};
  j["nodes"] = t.nodes;
  j["collectives"] = t.collectives;
  j["p2p"] = t.p2p;
  j["replay_wall_s"] = t.wall_s;
  return j;
}

// The scheduler refuses a graph with more ranks than the cluster has GPUs.
Timing replay(const workload::Graph& g, const Options& o, const ComputeModel& compute,
              const WorkloadTechniques& tech, RoutingMode routing) {
  auto backend = routed_backend(o, g.rank_count(), routing);
  workload::SchedulerOptions options = graph_options(compute, tech);
  options.p2p = workload::parse_p2p_mode(o.p2p);
  options.comm_issue = workload::parse_comm_issue(o.comm_issue);
  const workload::ScheduleResult r = workload::schedule(g, *backend, options);
  Timing t;
  t.w = timing_of(r);
  t.graph = true;
  t.total_s = r.comm_total_s;
  t.nodes = r.nodes;
  t.collectives = r.collectives;
  t.p2p = r.p2p;
  t.unreceived_sends = r.unreceived_sends;
  t.wall_s = r.wall_s;
  t.tiers = tiers_of(*backend);
  t.ecmp_choices = had_ecmp_choices(*backend);
  return t;
}

Timing closed_form(const TransformerSpec& spec, const Parallelism& p, const Options& o,
                   const ComputeModel& compute, const WorkloadTechniques& tech,
                   RoutingMode routing) {
  auto backend = routed_backend(o, 0, routing);
  Timing t;
  t.w = time_workload(spec, p, *backend, compute, tech);
  t.tiers = tiers_of(*backend);
  t.ecmp_choices = had_ecmp_choices(*backend);
  return t;
}

// A graph whose compute nodes all take no time (neither durations nor op counts) reports only its
// communication: say so rather than pass off that time, or 0 s, as an iteration.
std::string untimed_compute_warning(const workload::ComputeCoverage& c, const std::string& what) {
  if (!c.none_timed()) return "";
  return "warning: " + what + ": none of its " + std::to_string(c.compute_nodes) +
         " compute nodes has a duration (duration_micros, commlab_duration_s) or op counts "
         "(num_ops, tensor_size), so compute is not timed and the iteration time counts "
         "communication only";
}

// Fills in the `?` of the text table: a number, or n/a when there is nothing to time.
std::string seconds_or_na(double s, bool timed) {
  if (!timed) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", s);
  return buf;
}

// Where the routing concentrated bytes, and the baseline's DP time under the other mode.
void print_routing_line(const std::string& routing, const Timing& base, const Timing& other,
                        double ecmp_penalty) {
  const char* other_name = routing == "ecmp" ? "ideal" : "ecmp";
  std::printf("routing %s:", routing.c_str());
  if (const TierImbalance load = most_imbalanced_tier(base.tiers); !load.tier.empty())
    std::printf(
        " busiest %s link carries %.2fx its tier's mean and is busy %.2fx as long as the busiest "
        "GPU-side link (%.2fx and %.2fx under %s);",
        load.tier.c_str(), load.ratio(), busy_over_endpoints(base.tiers, load.tier),
        find_tier(other.tiers, load.tier).ratio(), busy_over_endpoints(other.tiers, load.tier),
        other_name);
  std::printf(" baseline DP %.4g s, %.4g s under %s routing", base.w.dp_s, other.w.dp_s,
              other_name);
  if (ecmp_penalty > 0)
    std::printf(" (ECMP penalty %.2fx)\n", ecmp_penalty);
  else
    std::printf("\n");
}

// Flags whose limits come from a trace (its rank count: the number of PREFIX.K.et files) say so,
// with the flag, the value and the limit.
// --max-trace-nodes: the node budget, and a memory budget that lets that many nodes in (the
// reader's estimate would refuse them otherwise).
workload::ChakraReadBudgets trace_budgets(const Options& o) {
  workload::ChakraReadBudgets b;
  b.nodes = o.max_trace_nodes;
  b.memory_bytes = std::max(b.memory_bytes, o.max_trace_nodes * workload::kChakraPeakBytesPerNode);
  return b;
}

void check_trace_limits(const Options& o, int ranks) {
  const std::string source = "the trace's " + std::to_string(ranks) + " ranks (" + o.trace +
                             ".0.et to ." + std::to_string(ranks - 1) + ".et)";
  // The ring a trace's collectives run on spans at most every rank: a larger skip was accepted.
  if (skip_problem("ring", ranks, o.skip))
    throw InvalidInput("--skip " + std::to_string(o.skip) + ": expected at most " +
                       std::to_string(std::max(ranks - 1, 0)) + ", the N-1 steps of a ring over " +
                       source);
  if (o.net.cluster.empty()) return;
  const int gpus = make_backend(o.net, ranks)->topology().ranks();
  if (gpus < ranks)
    throw InvalidInput("--cluster " + o.net.cluster + ": " + std::to_string(gpus) +
                       " GPUs, expected at least " + std::to_string(ranks) + ", one for each of " +
                       source);
}

// Flag combinations the engines cannot run, refused before any work.
void check_flag_combinations(const Options& o, bool graph_engine) {
  if (!graph_engine && o.engine != "sum")
    throw InvalidInput("--engine: expected graph or sum, got '" + o.engine + "'");
  if (!o.trace.empty() && !graph_engine) throw InvalidInput("--trace needs --engine graph");
  if (!o.trace.empty() && o.catalog_flag.starts_with("--catalog "))
    throw InvalidInput(o.catalog_flag + ": give --catalog or --trace " + o.trace + ", not both");
  if (!o.trace.empty() && !o.catalog_flag.empty())
    throw InvalidInput(o.catalog_flag +
                       ": applies to catalog models only, not to --trace (a trace has its own "
                       "model, ranks and groups)");
  if (o.p2p != "eager" && !graph_engine) throw InvalidInput("--p2p needs --engine graph");
  if (o.comm_issue != "overlap" && !graph_engine)
    throw InvalidInput("--comm-issue needs --engine graph");
  if (!o.comm_groups.empty() && o.trace.empty())
    throw InvalidInput("--comm-groups " + o.comm_groups +
                       ": needs --trace (catalog models "
                       "build their own groups)");
  if (o.max_trace_nodes != workload::ChakraReadBudgets{}.nodes && o.trace.empty())
    throw InvalidInput("--max-trace-nodes " + std::to_string(o.max_trace_nodes) +
                       ": needs --trace (it bounds a trace file's nodes)");
  if (o.grad_dtype != "bf16" && o.grad_dtype != "fp32")
    throw InvalidInput("--grad-dtype: expected bf16 or fp32, got " + o.grad_dtype);
}

// What is replayed: a Chakra trace, or a catalog model's graph (graph engine) or parallelism
// (closed form).
struct WorkloadSource {
  workload::Graph graph;
  std::optional<TransformerSpec> spec;  // catalog models only
  Parallelism p;
  std::string what;  // how the output names it
};

WorkloadSource load_trace(const Options& o) {
  WorkloadSource src;
  workload::Graph& graph = src.graph;
  std::string& what = src.what;
  workload::TraceReadReport report;
  graph = workload::read_chakra_trace(o.trace, &report, o.comm_groups, trace_budgets(o));
  const std::string groups = workload::find_comm_group_file(o.trace, o.comm_groups);
  check_trace_limits(o, graph.rank_count());
  what = "trace " + o.trace + " (" + std::to_string(graph.rank_count()) + " ranks, " +
         std::to_string(report.nodes) + " nodes" +
         (groups.empty() ? "" : ", groups from " + groups) + ")";
  return src;
}

WorkloadSource load_catalog(const Options& o, bool graph_engine) {
  WorkloadSource src;
  if (o.net.cluster.empty()) throw InvalidInput("--cluster is required (e.g. netzip-512:gbps=400)");
  const int gpus = make_backend(o.net, 0)->topology().ranks();
  CatalogRequest request;
  request.catalog = o.catalog, request.engine = o.engine;
  request.dp = o.dp, request.tp = o.tp, request.pp = o.pp;
  request.micro_batch = o.micro_batch, request.global_batch = o.global_batch;
  request.seq = o.seq, request.gpu = o.gpu, request.mfu = o.mfu, request.skip = o.skip;
  request.ratio = o.ratio > 0 ? o.ratio : 1.0;  // a measured ratio is the engine's, not input
  StatusOr<CatalogSettings> settings = catalog_settings(request, gpus);
  if (!settings) {
    throw_flag_error(settings.status());
  }
  Parallelism& p = src.p;
  p = settings->parallel;
  TransformerSpec spec_as_run = settings->spec;
  const TransformerSpec* spec = &spec_as_run;
  src.what = spec->display;
  if (graph_engine) {
    workload::CatalogGraphOptions go;
    go.parallel = p;
    go.ep = o.ep;
    go.grad_bytes = o.grad_dtype == "fp32" ? 4 : 2;
    go.bucket_bytes = static_cast<uint64_t>(o.bucket_mb * (1 << 20));
    go.overlap = !o.no_overlap;
    go.distributed_optimizer = !o.no_distributed_optimizer;
    src.graph = workload::catalog_graph(*spec, go);
  } else if (o.ep > 1 || o.grad_dtype != "bf16" || o.no_overlap || o.no_distributed_optimizer) {
    throw InvalidInput(
        "--ep, --grad-dtype, --no-overlap and --no-distributed-optimizer need "
        "--engine graph");
  }
  src.spec = std::move(spec_as_run);
  return src;
}

// Both timings (without and with the techniques), the other routing mode's baseline and what the
// output says of them.
struct WorkloadResult {
  double ratio = 1;
  WorkloadTechniques techniques;
  Timing base, with;
  std::optional<Timing> other;
  RoutingComparison routes;
  workload::ComputeCoverage coverage;
  std::string warning;
  double saving = 0;
  bool timed = true;  // false: nothing in the workload is timed
};

void print_json(const Options& o, const WorkloadSource& src, const WorkloadResult& r,
                bool graph_engine) {
  const TransformerSpec* spec = src.spec ? &*src.spec : nullptr;
  nlohmann::json doc = {{"workload", spec ? spec->name : o.trace},
                        {"engine", o.engine},
                        {"gpus", spec ? src.p.gpus() : src.graph.rank_count()},
                        {"ratio", r.ratio},
                        {"codec", o.codec},
                        {"codec_placement", o.codec_placement},
                        {"codec_s_per_byte", r.techniques.codec_s_per_byte},
                        {"tensor_source", o.source},
                        {"skip", o.skip},
                        {"baseline", to_json(r.base)},
                        {"with_techniques", to_json(r.with)},
                        {"time_saving", r.saving},
                        {"routing", o.routing},
                        {"ecmp_choices", r.base.ecmp_choices}};
  const std::string& tier = r.routes.load.tier;  // the most imbalanced tier
  if (!tier.empty()) doc["link_load"] = to_json(r.base.tiers, tier);
  if (r.other) {
    doc["routing_comparison"] = {
        {"routing", routing_mode_name(r.routes.other)},
        {"baseline", to_json(*r.other)},
        {"ecmp_penalty_dp", r.routes.ecmp_penalty_dp > 0 ? nlohmann::json(r.routes.ecmp_penalty_dp)
                                                         : nlohmann::json(nullptr)}};
    if (!tier.empty())  // the same tier, for comparison
      doc["routing_comparison"]["link_load"] = to_json(r.other->tiers, tier);
  }
  if (graph_engine) {
    doc["p2p"] = o.p2p;
    doc["comm_issue"] = o.comm_issue;
    doc["untimed_compute_nodes"] = r.coverage.untimed;
    doc["unreceived_sends"] = r.base.unreceived_sends;
    doc["compute_timed"] = !r.coverage.none_timed();
    if (!r.warning.empty()) doc["warning"] = r.warning;
  }
  if (!r.timed) {
    doc["baseline"]["iteration_s"] = nullptr;
    doc["with_techniques"]["iteration_s"] = nullptr;
    doc["time_saving"] = nullptr;
  }
  if (spec) {
    doc["dp"] = src.p.dp, doc["tp"] = src.p.tp, doc["pp"] = src.p.pp, doc["ep"] = o.ep;
    doc["micro_batch"] = src.p.micro_batch, doc["global_batch"] = src.p.global_batch;
    doc["seq"] = spec->seq;
    doc["grad_dtype"] = o.grad_dtype, doc["overlap"] = !o.no_overlap;
    doc["distributed_optimizer"] = !o.no_distributed_optimizer;
    doc["bucket_mb"] = o.bucket_mb;
  }
  std::cout << doc.dump(2) << "\n";
}

// The MFU as set: two decimals as always ("0.40"), more where two would change it (0.005 is
// not 0.01).
std::string mfu_text(double mfu) {
  char text[32];
  const bool two_decimals = std::abs(mfu * 100 - std::round(mfu * 100)) < 1e-9;
  std::snprintf(text, sizeof text, two_decimals ? "%.2f" : "%g", mfu);
  return text;
}

void print_table(const Options& o, const WorkloadSource& src, const WorkloadResult& r,
                 bool graph_engine) {
  const TransformerSpec* spec = src.spec ? &*src.spec : nullptr;
  if (spec)
    std::printf("# %s: dp %d x tp %d x pp %d%s = %d GPUs, %s at MFU %s, %s engine\n",
                src.what.c_str(), src.p.dp, src.p.tp, src.p.pp,
                o.ep > 1 ? (" (ep " + std::to_string(o.ep) + ")").c_str() : "", src.p.gpus(),
                o.gpu.c_str(), mfu_text(o.mfu).c_str(), o.engine.c_str());
  else
    std::printf("# %s, %s at MFU %s, %s point-to-point\n", src.what.c_str(), o.gpu.c_str(),
                mfu_text(o.mfu).c_str(), o.p2p.c_str());
  if (o.comm_issue != "overlap")  // only a mode other than the default is named
    std::printf(
        "# communication issued as ASTRA-sim does (%s): one collective or send in flight "
        "per rank\n",
        o.comm_issue.c_str());
  std::printf(
      "# wire ratio %.3f (%s) on TP and DP, SkipReduce s=%d on DP reduce-scatter\n", r.ratio,
      o.ratio > 0 ? "given" : (o.codec + " measured on " + o.source + " BF16").c_str(), o.skip);
  std::printf("# %s\n", graph_engine ? "critical path: compute and exposed communication per kind"
                                     : "closed form: every message fully exposed");
  std::printf("# codec on the %s: %.3g s per payload byte (encode + decode)\n",
              o.codec_placement.c_str(), r.techniques.codec_s_per_byte);
  std::printf("%-16s %12s %11s %9s %9s %9s %9s %9s %9s\n", "", "iteration(s)", "compute(s)",
              "TP(s)", "DP(s)", "PP(s)", "EP(s)", "other(s)", "codec(s)");
  for (auto [name, w] : {std::pair{"baseline", &r.base.w}, std::pair{"with techniques", &r.with.w}})
    std::printf("%-16s %12s %11.4g %9.3g %9.3g %9.3g %9.3g %9.3g %9.3g\n", name,
                seconds_or_na(w->iteration_s, r.timed).c_str(), w->compute_s, w->tp_s, w->dp_s,
                w->pp_s, w->ep_s, w->other_s, w->codec_s);
  if (graph_engine)
    std::printf("replayed %llu nodes (%llu collectives, %llu send/recv pairs) in %.2f s\n",
                static_cast<unsigned long long>(r.base.nodes),
                static_cast<unsigned long long>(r.base.collectives),
                static_cast<unsigned long long>(r.base.p2p), r.base.wall_s);
  if (r.other)
    print_routing_line(o.routing, r.base, *r.other, r.routes.ecmp_penalty_dp);
  else if (o.net.backend == "analytical")
    std::printf("routing %s: every flow has a single shortest path (ecmp and ideal agree)\n",
                o.routing.c_str());
  if (r.timed)
    std::printf("time saving: %.1f%%\n", 100 * r.saving);
  else
    std::printf("time saving: n/a (nothing in the workload is timed)\n");
}

int run(const Options& o) {
  const bool graph_engine = o.engine == "graph";
  check_flag_combinations(o, graph_engine);
  ComputeModel compute;
  try {
    compute.gpu = gpu_preset(o.gpu);
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(std::string("--gpu: ") + e.what());
  }
  compute.mfu = o.mfu;
  WorkloadResult r;
  r.ratio = o.ratio > 0 ? o.ratio : measure_codec_ratio(o.codec, o.source, 1);
  const WorkloadSource src = o.trace.empty() ? load_catalog(o, graph_engine) : load_trace(o);
  const TransformerSpec* spec = src.spec ? &*src.spec : nullptr;
  r.coverage = workload::compute_coverage(src.graph);
  r.warning = untimed_compute_warning(r.coverage, src.what);
  if (!r.warning.empty()) std::cerr << r.warning << "\n";
  if (!o.emit_trace.empty()) {
    if (!graph_engine) throw InvalidInput("--emit-trace needs --engine graph");
    workload::write_chakra_trace(src.graph, o.emit_trace, spec ? spec->name : "trace");
  }
  const RoutingMode routing = parse_routing_mode(o.routing);  // a member: CLI11 checked it
  auto time = [&](const WorkloadTechniques& tech, RoutingMode mode) {
    return graph_engine ? replay(src.graph, o, compute, tech, mode)
                        : closed_form(*spec, src.p, o, compute, tech, mode);
  };
  r.techniques = WorkloadTechniques{r.ratio, r.ratio, o.skip};
  PlacementModel placement;
  // Parsed once here, at the flag's boundary, with the scenario's spellings (config_enums).
  const std::optional<CodecPlacement> where = parse_enum<CodecPlacement>(o.codec_placement);
  if (!where)
    throw InvalidInput("--codec-placement: unknown codec placement '" + o.codec_placement +
                       "' (expected nic, gpu or cpu)");
  placement.placement = *where;
  // A given --ratio stands for a codec too: it is charged where --codec-placement puts it.
  r.techniques.codec_s_per_byte =
      o.ratio > 0 || o.codec != "none" ? codec_seconds_per_byte(placement) : 0.0;
  r.base = time({}, routing);
  r.with = time(r.techniques, routing);
  // The baseline under the other routing mode: what per-flow ECMP collisions cost
  // (docs/workload.md, "Routing"). Only the analytical backend has both modes (had_ecmp_choices).
  r.routes = compare_routing(
      routing, {r.base.w.dp_s, r.base.tiers, r.base.ecmp_choices}, [&](RoutingMode mode) {
        r.other = time({}, mode);
        return RoutedTiming{r.other->w.dp_s, r.other->tiers, r.other->ecmp_choices};
      });
  // Eager sends complete without their recv (that is their meaning), but a send nothing receives
  // is a trace cut short or a recv missing: said once, with how many.
  if (r.base.unreceived_sends > 0)
    std::cerr << "commlab-cli: warning: " << src.what << ": " << r.base.unreceived_sends << " of "
              << r.base.p2p
              << " sends were never received (eager sends complete without a matching recv; "
                 "their data was timed, nothing received it)\n";
  r.saving = 1.0 - r.with.w.iteration_s / r.base.w.iteration_s;
  // Nothing timed at all (no compute timing, no communication): no iteration time to report.
  r.timed = !(r.coverage.none_timed() && r.base.w.iteration_s == 0);
  if (o.json)
    print_json(o, src, r, graph_engine);
  else
    print_table(o, src, r, graph_engine);
  return kExitOk;
}

const RegisterCommand reg{Command{
    "workload", "iteration time of a catalog workload or a Chakra trace on a cluster",
    [](CLI::App& app) {
      auto o = std::make_shared<Options>();
      app.add_option("--catalog", o->catalog,
                     "gpt3-175b, gpt-7b, llama3-8b, llama3-70b, llama3-405b, bloom-176b, "
                     "mixtral-8x7b")
          ->capture_default_str();
      app.add_option("--trace", o->trace,
                     "replay a Chakra trace DIR/PREFIX (PREFIX.RANK.et) instead of --catalog")
          ->check(kNonEmpty);
      app.add_option("--comm-groups", o->comm_groups,
                     "--trace: the communicator-group file (ASTRA-sim's "
                     "--comm-group-configuration; default PREFIX.comm_groups.json, else "
                     "PREFIX.json as ASTRA-sim's generators write it)");
      app.add_option("--max-trace-nodes", o->max_trace_nodes,
                     "--trace: refuse a trace of more nodes, before reading it (each costs about " +
                         std::to_string(workload::kChakraPeakBytesPerNode) +
                         " bytes read and replayed; raise it when the memory is there)")
          ->check(in_range(uint64_t{1}, uint64_t{1} << 32))
          ->capture_default_str();
      app.add_option("--engine", o->engine,
                     "graph: replay the iteration's graph; sum: closed form, all exposed")
          ->capture_default_str();
      add_network_flags(app, o->net);
      app.add_option("--dp", o->dp, "data-parallel degree (0: GPUs / (tp x pp))")
          ->check(in_range(kCatalogDataParallel));
      app.add_option("--tp", o->tp, "tensor-parallel degree")
          ->capture_default_str()
          ->check(in_range(kCatalogModelParallel));
      app.add_option("--pp", o->pp, "pipeline-parallel degree (1F1B)")
          ->capture_default_str()
          ->check(in_range(kCatalogModelParallel));
      app.add_option("--ep", o->ep, "expert-parallel degree (MoE models; divides dp)")
          ->capture_default_str()
          ->check(in_range(kCatalogModelParallel));
      app.add_option("--micro-batch", o->micro_batch, "sequences per micro-batch")
          ->check(in_range(kCatalogMicroBatch));
      app.add_option("--global-batch", o->global_batch, "sequences per iteration")
          ->capture_default_str()
          ->check(in_range(kCatalogGlobalBatch));
      app.add_option("--seq", o->seq, "sequence length (0: the model's, e.g. 2048 for GPT-3)")
          ->check(in_range(kCatalogSeq));
      app.add_option("--grad-dtype", o->grad_dtype, "gradients on the wire: bf16 or fp32")
          ->capture_default_str();
      app.add_option("--bucket-mb", o->bucket_mb, "DP gradient bucket size in MiB")
          ->capture_default_str()
          ->check(in_range(0.001, 65536.0));
      app.add_flag("--no-overlap", o->no_overlap,
                   "DP communication waits for the whole backward (and all-gathers for the step)");
      app.add_flag("--no-distributed-optimizer", o->no_distributed_optimizer,
                   "DDP all-reduce of every bucket instead of reduce-scatter + all-gather");
      app.add_option("--comm-issue", o->comm_issue,
                     "how a rank issues communication: overlap (each stream runs its own node) "
                     "or astra (one collective or send in flight per rank, as ASTRA-sim)")
          ->capture_default_str()
          ->check(CLI::IsMember({workload::comm_issue_name(workload::CommIssue::kOverlap),
                                 workload::comm_issue_name(workload::CommIssue::kAstra)}));
      app.add_option("--p2p", o->p2p,
                     "point-to-point semantics: eager (a send completes when its data has "
                     "arrived, as in ASTRA-sim) or rendezvous (a send waits for its recv)")
          ->capture_default_str()
          ->check(CLI::IsMember({workload::p2p_mode_name(workload::P2pMode::kEager),
                                 workload::p2p_mode_name(workload::P2pMode::kRendezvous)}));
      add_routing_flag(app, o->routing);  // the other mode's baseline is timed too
      app.add_option("--emit-trace", o->emit_trace,
                     "also write the graph as Chakra traces DIR/NAME.RANK.et");
      app.add_option("--gpu", o->gpu, "GPU preset for compute time")->capture_default_str();
      app.add_option("--mfu", o->mfu, "model FLOPs utilisation")
          ->check(checked_by(mfu_problem, "FLOAT in (0, 1]"));
      app.add_option("--ratio", o->ratio, "wire ratio to apply (0: measure --codec)")
          ->check(checked_by(
              [](double r) { return r == 0 ? std::optional<Status>() : ratio_problem(r); },
              "FLOAT in (0, 1], or 0"));
      app.add_option("--codec-placement", o->codec_placement,
                     "where the codec (or a given --ratio) encodes and decodes: nic (at line rate, "
                     "free), gpu (100 GB/s kernels) or cpu (1 GB/s, one core); charged per "
                     "payload byte on the critical path (codec_s)");
      app.add_option("--codec", o->codec, "codec whose ratio is measured on --tensor-source")
          ->capture_default_str();
      app.add_option("--tensor-source", o->source, "gaussian, laplace, student-t or sparse:F")
          ->capture_default_str();
      app.add_option("--skip", o->skip, "SkipReduce steps skipped in the DP reduce-scatter")
          ->check(in_range(0, 1 << 20));
      app.add_flag("--json", o->json, "one JSON document on stdout");
      // Flags that shape a catalog model only: --trace refuses them instead of ignoring them.
      std::vector<CLI::Option*> catalog_only;
      for (const char* name :
           {"--catalog", "--dp", "--tp", "--pp", "--ep", "--micro-batch", "--global-batch", "--seq",
            "--grad-dtype", "--bucket-mb", "--no-overlap", "--no-distributed-optimizer"})
        catalog_only.push_back(app.get_option(name));
      return [o, catalog_only] {
        for (const CLI::Option* opt : catalog_only) {
          if (opt->count() == 0 || !o->catalog_flag.empty()) continue;
          o->catalog_flag = opt->get_name();
          if (opt->get_expected_max() > 0) o->catalog_flag += " " + opt->as<std::string>();
        }
        return run(*o);
      };
    }}};

}  // namespace
}  // namespace workload_command
}  // namespace commlab::cli
