// commlab-cli view PAGE: what a GUI page draws, as one JSON document (docs/cli.md, "view"). The
// pictures are the ones the pages draw, computed by core/views without Qt; every flag mirrors a
// control of the page and defaults to what the page shows when the app opens.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/util/collective_options.h"
#include "cli/util/experiment_files_util.h"
#include "cli/util/flag_parse_util.h"
#include "cli/util/network_util.h"
#include "cli/util/size_flag_util.h"
#include "collective/algorithms.h"
#include "io/staged_files.h"
#include "scenario/config_enums.h"
#include "scenario/scenario.h"
#include "views/view_settings.h"
#include "views/views_json.h"
#include "workload/catalog/catalog_graph.h"

namespace commlab::cli {
namespace view_command {
namespace {

using namespace commlab::views;

struct Options {
  std::string page;  // the subcommand given
  TopologySettings topology;
  std::string message_bytes = "64M";  // topology --bytes
  TeachingSettings teaching;
  int64_t iteration = 0, seed = 1;  // teaching
  WorkloadSettings workload;
  std::string routing = "ecmp", codec_placement = "nic";
  bool no_overlap = false;
  ThroughputSettings throughput;
  std::string min_bytes = "1K", max_bytes, slice_bytes = "512K", chunk_bytes = "2M";
  std::string out;  // empty: stdout
};

// Number flags checked against the page's named range, with the settings' words (NaN and
// infinities are refused before, in main).
template <class T, class V>
CLI::Option* add_number(CLI::App& app, const char* flag, V& value, Bounds<T> range,
                        const char* help) {
  return app.add_option(flag, value, help)->check(in_range(range))->capture_default_str();
}

CLI::App* add_page(CLI::App& app, Options& o, const char* name, const char* description) {
  CLI::App* page = app.add_subcommand(name, description);
  page->callback([&o, name] { o.page = name; });
  page->add_option("--out", o.out, "write the JSON to FILE (atomically) instead of stdout")
      ->check(kNonEmpty);
  return page;
}

void add_topology(CLI::App& app, Options& o) {
  CLI::App* p = add_page(app, o, "topology",
                         "The Topology page: boxes, links and how busy one step of an all-reduce "
                         "keeps each link");
  TopologySettings& s = o.topology;
  p->add_option("--cluster", s.spec, "cluster preset or builder spec")->capture_default_str();
  p->add_option("--algorithm", s.algorithm, "all-reduce algorithm whose step is timed")
      ->check(CLI::IsMember({"ring", "tree", "hd", "direct"}))
      ->capture_default_str();
  p->add_option("--bytes", o.message_bytes, "all-reduce message size per rank (K/M/G suffixes)")
      ->capture_default_str();
  add_number(*p, "--step", s.step, kTopologyStep, "step of the collective to time (clamped)");
  p->add_option("--backend", s.backend, "analytical or packet")
      ->check(CLI::IsMember(kTopologyBackends))
      ->capture_default_str();
  p->add_option("--admission", s.admission, "packet: a full switch port trims, drops or marks")
      ->check(CLI::IsMember({"trim", "tail-drop", "ecn"}))
      ->capture_default_str();
  add_number(*p, "--queue-packets", s.queue_packets, kTopologyQueuePackets,
             "packet: data queue per switch port in full packets (0: the link's buffer)");
  p->add_option("--background", s.background,
                "packet: none, perm, incast:K, alltoall or onoff:LOAD")
      ->capture_default_str();
  add_number(*p, "--max-endpoints", s.max_endpoints, kTopologyBoxes,
             "more GPUs than this: one box per server");
  add_number(*p, "--max-servers", s.max_servers, kTopologyBoxes,
             "more servers than this: one box per leaf");
  add_number(*p, "--max-links", s.max_links, kTopologyLinkBudget,
             "work budget: a cluster of more directed links is refused");
  add_number(*p, "--max-transfers", s.max_transfers, kTopologyPlanBudget,
             "work budget: a collective plan of more transfers is refused");
  add_number(*p, "--max-flows", s.max_flows, kTopologyPlanBudget,
             "work budget: a timed step of more flows is refused");
}

void add_teaching(CLI::App& app, Options& o) {
  CLI::App* p = add_page(app, o, "teaching",
                         "The Teaching page: an all-reduce on a few ranks, step by step, on real "
                         "buffers (which ranks' data every cell holds)");
  TeachingSettings& s = o.teaching;
  add_number(*p, "--ranks", s.ranks, kTeachingRanks, "ranks");
  p->add_option("--algorithm", s.algorithm, "ring, tree, hd, hier or direct")
      ->check(CLI::IsMember(kTeachingAlgorithms))
      ->capture_default_str();
  add_number(*p, "--ranks-per-node", s.ranks_per_node, kTeachingRanksPerNode,
             "hier: consecutive ranks per node");
  add_number(*p, "--skip", s.skip, kTeachingSkip,
             "SkipReduce s (ring, tree, hd: within the algorithm's limit)");
  p->add_option("--policy", s.policy, "SkipReduce policy: naive, random or selective")
      ->check(CLI::IsMember({"naive", "random", "selective"}))
      ->capture_default_str();
  // Signed with the scenarios' seed range: an unsigned flag took -1 as 2^64 - 1.
  add_number(*p, "--iteration", o.iteration, kTeachingSeeds,
             "random policy: the iteration (rotation)");
  add_number(*p, "--seed", o.seed, kTeachingSeeds, "random policy: seed");
  add_number(*p, "--trim-rate", s.trim_rate, kTeachingTrimRate,
             "fraction of packets that arrive trimmed, in [0, 1]");
}

void add_workload(CLI::App& app, Options& o) {
  CLI::App* p = add_page(app, o, "workload",
                         "The Workload page: a training iteration replayed by the graph engine, "
                         "as Gantt lanes per rank and stream");
  WorkloadSettings& s = o.workload;
  auto* model =
      p->add_option("--model", s.model, "catalog model (commlab-cli workload --help lists them)")
          ->capture_default_str();
  p->add_option("--trace", s.trace_prefix, "DIR/PREFIX of a Chakra trace (PREFIX.RANK.et)")
      ->check(kNonEmpty)
      ->excludes(model);
  add_number(*p, "--dp", s.dp, kWorkloadDp, "data-parallel replicas");
  add_number(*p, "--tp", s.tp, kWorkloadTp, "tensor-parallel ranks");
  add_number(*p, "--pp", s.pp, kWorkloadPp, "pipeline stages");
  add_number(*p, "--micro-batch", s.micro_batch, kWorkloadMicroBatch, "sequences per micro-batch");
  add_number(*p, "--global-batch", s.global_batch, kWorkloadGlobalBatch, "sequences per iteration");
  add_number(*p, "--gbps", s.gbps, kWorkloadGbps, "NIC rate of every GPU in Gb/s");
  add_number(*p, "--gpus-per-server", s.gpus_per_server, kWorkloadGpusPerServer,
             "GPUs per server (NVSwitch)");
  add_number(*p, "--dp-ratio", s.dp_ratio, kWorkloadDpRatio,
             "DP codec: wire bytes / payload bytes, in [0.05, 1]");
  p->add_option("--codec-placement", o.codec_placement, "where the DP codec runs: nic, gpu or cpu")
      ->check(CLI::IsMember(enum_names<CodecPlacement>()))
      ->capture_default_str();
  add_number(*p, "--skip", s.skip, kWorkloadSkip, "SkipReduce s on DP reduce-scatters");
  p->add_flag("--no-overlap", o.no_overlap, "DP communication waits for the whole backward pass");
  add_number(*p, "--max-ranks", s.max_ranks, kWorkloadMaxRanks, "ranks drawn");
  add_number(*p, "--max-graph-nodes", s.max_graph_nodes, kWorkloadGraphNodeBudget,
             "work budget: a catalog graph of more nodes (estimated) is refused");
  p->add_option("--routing", o.routing, "ecmp (per flow) or ideal (spraying)")
      ->check(CLI::IsMember({"ecmp", "ideal"}))
      ->capture_default_str();
}

void add_throughput(CLI::App& app, Options& o) {
  CLI::App* p = add_page(app, o, "throughput",
                         "The Throughput page: all-reduce bus bandwidth vs message size per "
                         "algorithm, on a flat network or (--cluster) as NCCL runs it");
  ThroughputSettings& s = o.throughput;
  auto* cluster =
      p->add_option("--cluster", s.cluster, "NCCL mode: a cluster spec")->check(kNonEmpty);
  add_number(*p, "--ranks", s.ranks, kThroughputRanks, "flat: ranks")->excludes(cluster);
  add_number(*p, "--bw-gbps", s.bw_gbps, kThroughputBwGbps,
             "flat: GB/s per rank (25 GB/s = a 200 Gb/s NIC)")
      ->excludes(cluster);
  add_number(*p, "--alpha-us", s.alpha_us, kThroughputAlphaUs,
             "flat: latency per step in microseconds")
      ->excludes(cluster);
  p->add_option("--slice-bytes", o.slice_bytes, "flat: ring slice (0: off)")
      ->capture_default_str()
      ->excludes(cluster);
  p->add_option("--chunk-bytes", o.chunk_bytes, "flat: ring chunk (0: off)")
      ->capture_default_str()
      ->excludes(cluster);
  p->add_option("--proto", s.proto, "NCCL mode: auto, simple, ll or ll128")
      ->check(CLI::IsMember({"auto", "simple", "ll", "ll128"}))
      ->capture_default_str()
      ->needs(cluster);
  add_number(*p, "--channels", s.channels, kThroughputChannels,
             "NCCL mode: channels (0: the tuner's)")
      ->needs(cluster);
  p->add_option("--min-bytes", o.min_bytes, "smallest message (K/M/G suffixes)")
      ->capture_default_str();
  p->add_option("--max-bytes", o.max_bytes, "largest message (default 256M flat, 1G NCCL)");
}

// The page's settings as core/views checks them (the cross-field rules: the algorithm's skip
// limit, whole nodes, the sizes' order); a refusal names the view flag of its field.
template <class Settings>
void check(const StatusOr<Settings>& checked) {
  if (checked) return;
  const Status& bad = checked.status();
  throw InvalidInput(Status{bad.code,
                            flag_for_field(bad.field, {{"spec", "--cluster"},
                                                       {"message_bytes", "--bytes"},
                                                       {"trace_prefix", "--trace"}}),
                            bad.message}
                         .text());
}

// The string flags that become numbers or enums, each checked naming its flag, then the page's
// settings as a whole.
void resolve(Options& o) {
  if (o.page.empty())
    throw InvalidInput("view: expected a page: topology, teaching, workload or throughput");
  if (o.page == "teaching") {
    TeachingSettings& s = o.teaching;
    s.iteration = static_cast<uint64_t>(o.iteration);
    s.seed = static_cast<uint64_t>(o.seed);
    check(check_teaching(s));
  } else if (o.page == "topology") {
    o.topology.message_bytes =
        size_flag("--bytes", o.message_bytes, kTopologyMessageBytes.lo, kTopologyMessageBytes.hi);
    check(check_topology(o.topology));
  } else if (o.page == "workload") {
    WorkloadSettings& s = o.workload;
    if (!s.trace_prefix.empty()) s.source = WorkloadSettings::Source::kTrace;
    s.codec_placement = *parse_enum<CodecPlacement>(o.codec_placement);  // IsMember checked it
    s.routing = parse_routing_mode(o.routing);
    s.overlap = !o.no_overlap;
    check(check_workload(s));
  } else if (o.page == "throughput") {
    ThroughputSettings& s = o.throughput;
    s.min_bytes = size_flag("--min-bytes", o.min_bytes, 4, kMaxCollectiveBytes);
    if (!o.max_bytes.empty())
      s.max_bytes = size_flag("--max-bytes", o.max_bytes, s.min_bytes, kMaxCollectiveBytes);
    s.pipeline.slice_bytes = size_flag("--slice-bytes", o.slice_bytes, 0, kMaxCollectiveBytes);
    s.pipeline.chunk_bytes = size_flag("--chunk-bytes", o.chunk_bytes, 0, kMaxCollectiveBytes);
    check(check_throughput(s));
  }
}

nlohmann::json compute(const Options& o) {
  if (o.page == "topology") return to_json(compute_topology_picture(o.topology));
  if (o.page == "teaching") return to_json(compute_teaching_trace(o.teaching));
  if (o.page == "workload") return to_json(compute_workload_picture(o.workload));
  return to_json(o.throughput, compute_throughput(o.throughput));
}

int run(Options& o) {
  resolve(o);
  // The engine's refusals (std::invalid_argument) reach main's one error path: exit 2.
  const std::string text = compute(o).dump(2) + "\n";
  if (o.out.empty())
    std::cout << text;
  else
    write_file_atomically(o.out, text);
  return kExitOk;
}

RegisterCommand reg{
    Command{"view",
            "What a GUI page draws, as JSON: view topology|teaching|workload|throughput [flags] "
            "(defaults: the page as the app opens)",
            [](CLI::App& app) -> std::function<int()> {
              auto o = std::make_shared<Options>();
              app.require_subcommand(0, 1);  // none: run() names the pages
              add_topology(app, *o);
              add_teaching(app, *o);
              add_workload(app, *o);
              add_throughput(app, *o);
              return [o] { return run(*o); };
            }}};

}  // namespace
}  // namespace view_command
}  // namespace commlab::cli
